// Colour decisions and ANSI wrapping for the report verbs.
#include "report/terminal.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>

namespace sgt::report {

bool colour_enabled(std::FILE* stream) {
  if (const char* no = std::getenv("NO_COLOR"); no && *no) return false;
  return stream != nullptr && isatty(fileno(stream)) == 1;
}

std::string paint(std::string_view text, Colour colour, bool on) {
  // SGR codes in Colour's order: none, green, red, yellow, bold, dim.
  constexpr const char* codes[] = {nullptr, "32", "31", "33", "1", "2"};
  static_assert(std::size(codes) == static_cast<std::size_t>(Colour::dim) + 1);
  const char* code = codes[static_cast<std::size_t>(colour)];
  if (!on || code == nullptr) return std::string(text);
  return std::string("\033[") + code + "m" + std::string(text) + "\033[0m";
}

Colour ratio_colour(double ratio, double band) {
  if (ratio <= 0) return Colour::none;
  if (ratio > 1.0 + band) return Colour::green;
  if (ratio < 1.0 - band) return Colour::red;
  return Colour::none;
}

void log_to_stderr() {
  const spdlog::level::level_enum level = spdlog::default_logger()->level();
  // spdlog colours a terminal on its own but knows nothing of NO_COLOR.
  const char* no = std::getenv("NO_COLOR");
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>(
      no && *no ? spdlog::color_mode::never : spdlog::color_mode::automatic);
  auto logger = std::make_shared<spdlog::logger>("sgemm-tune", std::move(sink));
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(level);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace sgt::report
