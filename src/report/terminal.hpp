// Terminal manners: colour only on a terminal and never with NO_COLOR set (no-color.org).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace sgt::report {

enum class Colour { none, green, red, yellow, bold, dim };

// True when `stream` is a terminal and $NO_COLOR is unset or empty.
bool colour_enabled(std::FILE* stream);
// text wrapped in the ANSI sequence for `colour` when `on`, else text unchanged.
std::string paint(std::string_view text, Colour colour, bool on);
// Green above 1 + band, red below 1 - band, plain inside: a ratio (cuBLAS / ours) on screen.
Colour ratio_colour(double ratio, double band = 0.0);

// Sends spdlog's default logger to standard error (same pattern and level, colour on a terminal
// unless NO_COLOR is set), so that a verb's results on standard output (JSON, CSV) are never
// mixed with log lines.
void log_to_stderr();

}  // namespace sgt::report
