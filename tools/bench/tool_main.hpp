// main() of the benchmark tools: runs the tool and turns an exception that escapes it into one
// line on stderr and an exit code, as sgemm-tune does (2 for bad arguments or input, else 1).
#pragma once

#include <cstdio>
#include <exception>
#include <string>

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

// Calls take(flag, value) for each "--flag value" pair of the command line, in order. Throws
// sgt::Error(invalid_value) for a flag without its value; take throws for a flag it does not know.
template <class Take>
void for_each_option(int argc, char** argv, Take take) {
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw sgt::Error(sgt::ErrorKind::invalid_value, flag + " needs a value");
    take(flag, std::string(argv[i + 1]));
  }
}
