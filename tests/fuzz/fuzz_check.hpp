// The invariant every parser fuzzer checks: a parser returns a valid result or throws
// sgt::Error(invalid_value) whose message starts "FILE:LINE: "; anything else aborts (a finding).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace sgt::fuzz {

[[noreturn]] inline void finding(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz invariant broken: %.*s: %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// "FILE:LINE: reason" with LINE a positive decimal number and a non-empty reason.
inline bool names_file_and_line(std::string_view message, std::string_view file) {
  if (!message.starts_with(file) || message.size() <= file.size() + 1 ||
      message[file.size()] != ':')
    return false;
  std::size_t i = file.size() + 1;
  const std::size_t digits = i;
  while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
  if (i == digits || message[digits] == '0') return false;
  return message.substr(i).starts_with(": ") && message.size() > i + 2;
}

// Runs parse(); checks the result with check() or the exception it threw.
template <class Parse, class Check>
void expect_result_or_input_error(std::string_view file, Parse&& parse, Check&& check) {
  try {
    check(parse());
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::invalid_value) finding("error kind is not invalid_value", e.what());
    if (!names_file_and_line(e.what(), file)) finding("message lacks FILE:LINE: reason", e.what());
  } catch (const std::exception& e) {
    finding("exception other than sgt::Error", e.what());
  } catch (...) {
    finding("exception other than sgt::Error", "not a std::exception");
  }
}

}  // namespace sgt::fuzz
