// Colour decisions and ANSI wrapping for the report verbs.
#include "report/terminal.hpp"

#include <unistd.h>

#include <cstdlib>

namespace sgt::report {

bool colour_enabled(std::FILE* stream) {
  if (const char* no = std::getenv("NO_COLOR"); no && *no) return false;
  return stream != nullptr && isatty(fileno(stream)) == 1;
}

std::string paint(std::string_view text, Colour colour, bool on) {
  const char* code = nullptr;
  switch (colour) {
    case Colour::green: code = "32"; break;
    case Colour::red: code = "31"; break;
    case Colour::yellow: code = "33"; break;
    case Colour::bold: code = "1"; break;
    case Colour::dim: code = "2"; break;
    case Colour::none: break;
  }
  if (!on || code == nullptr) return std::string(text);
  return std::string("\033[") + code + "m" + std::string(text) + "\033[0m";
}

Colour ratio_colour(double ratio, double band) {
  if (ratio <= 0) return Colour::none;
  if (ratio > 1.0 + band) return Colour::green;
  if (ratio < 1.0 - band) return Colour::red;
  return Colour::none;
}

}  // namespace sgt::report
