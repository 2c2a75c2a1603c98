// main() of the benchmark tools: runs the tool and turns an exception that escapes it into one
// line on stderr and an exit code, as sgemm-tune does (2 for bad arguments or input, else 1).
#pragma once

#include <cstdio>
#include <exception>

#include "common/error.hpp"

template <class Run>
int tool_main(const char* name, Run run) {
  try {
    return run();
  } catch (const sgt::Error& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return e.kind() == sgt::ErrorKind::invalid_value ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}
