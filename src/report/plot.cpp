// gnuplot scripts and data for the report pictures, and running gnuplot on them (fork/exec,
// its output captured to gnuplot.log in the picture folder).
#include "report/plot.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "report/process.hpp"

namespace sgt::report {
namespace {

namespace fs = std::filesystem;

std::string data_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? '\'' : c;
  return out + "\"";
}

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out;
}

// Both terminals from one script: the plot is drawn for PNG, then replotted for SVG.
std::string terminals_and_plot(const std::string& output_stem, const std::string& plot, int width,
                               int height) {
  return fmt::format(
      "set terminal pngcairo size {w},{h} enhanced font 'Sans,11' background rgb 'white'\n"
      "set output {png}\n{plot}\n"
      "set terminal svg size {w},{h} enhanced font 'Sans,11' background rgb 'white'\n"
      "set output {svg}\nreplot\nunset output\n",
      fmt::arg("w", width), fmt::arg("h", height),
      fmt::arg("png", gnuplot_quote(output_stem + ".png")),
      fmt::arg("svg", gnuplot_quote(output_stem + ".svg")), fmt::arg("plot", plot));
}

std::string gpu_title(const ProblemReport& r) {
  return fmt::format("{} ({}, {} SMs at {} MHz)", r.gpu.name, r.gpu.arch, r.gpu.sm_count,
                     r.gpu.default_clock_mhz);
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot write", path.string()));
}

}  // namespace

std::string find_on_path(std::string_view name) {
  if (name.find('/') != std::string_view::npos)
    return access(std::string(name).c_str(), X_OK) == 0 ? std::string(name) : std::string();
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / std::string(name);
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return {};
}

std::string gnuplot_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string roofline_data(const std::vector<const ProblemReport*>& group) {
  std::string out =
      "# intensity_flop_per_byte tuned_tflops cublas_tflops label winner own_best_tflops\n";
  for (const ProblemReport* r : group)
    out += fmt::format("{:.6g} {:.6g} {:.6g} {} {} {:.6g}\n", r->intensity, r->tuned_tflops(),
                       r->cublas_tflops(), data_quote(r->label),
                       data_quote(r->cublas_won() ? kCublasFamily : r->winner_family),
                       r->own ? tflops(r->problem, r->own->time_us) : 0.0);
  return out;
}

std::string speedup_data(const std::vector<const ProblemReport*>& group) {
  std::string out = "# label winner_ratio own_best_ratio\n";
  for (const ProblemReport* r : group)
    out += fmt::format("{} {:.6g} {:.6g}\n", data_quote(r->label), r->ratio(),
                       r->own ? r->own->ratio() : 0.0);
  return out;
}

std::string roofline_script(const std::vector<const ProblemReport*>& group,
                            const std::string& data_path, const std::string& output_stem) {
  const ProblemReport& first = *group.front();
  double x_min = 1e30, x_max = 0, y_min = 1e30;
  for (const ProblemReport* r : group) {
    x_min = std::min(x_min, r->intensity);
    x_max = std::max(x_max, r->intensity);
    for (double y : {r->tuned_tflops(), r->cublas_tflops(),
                     r->own ? tflops(r->problem, r->own->time_us) : 0.0})
      if (y > 0) y_min = std::min(y_min, y);
  }
  const double ridge = ridge_point(first.peak_tflops, first.bandwidth_tbps);
  x_min = std::max(0.01, std::min(x_min, ridge) / 4);
  x_max = std::max(x_max, ridge) * 4;
  y_min = std::max(1e-3, std::min(y_min, first.bandwidth_tbps * x_min) / 2);
  const double y_max = first.peak_tflops * 2.5;
  // The plot area is fixed in screen fractions (margins below) so that the memory roof's label
  // can lie along it: on log-log axes its slope of one decade per decade shows at this angle.
  constexpr int kWidth = 1500, kHeight = 800;
  constexpr double kLeft = 0.06, kRight = 0.74, kBottom = 0.1, kTop = 0.93;
  const double pixels_per_x_decade = (kRight - kLeft) * kWidth / std::log10(x_max / x_min);
  const double pixels_per_y_decade = (kTop - kBottom) * kHeight / std::log10(y_max / y_min);
  const double roof_angle =
      std::atan2(pixels_per_y_decade, pixels_per_x_decade) * 180.0 / 3.14159265358979323846;
  const std::string data = gnuplot_quote(data_path);
  const std::string plot = fmt::format(
      "set title {title} noenhanced\n"
      "set logscale xy\n"
      "set xrange [{x0:.4g}:{x1:.4g}]\nset yrange [{y0:.4g}:{y1:.4g}]\n"
      "set xlabel 'arithmetic intensity (FLOP per byte of minimal traffic: A, B read and C written "
      "once)'\n"
      "set ylabel 'TFLOP/s (FP32)'\n"
      "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n"
      "set key bottom right box opaque\n"
      "set samples 2000\n"
      "peak = {peak:.6g}\nbw = {bw:.6g}\n"
      "roof(x) = (bw * x < peak) ? bw * x : peak\n"
      "set label 1 sprintf('FP32 peak %.1f TFLOP/s', peak) at {x1:.4g} / 1.3, peak * 1.12 right "
      "font ',10'\n"
      "set label 2 sprintf('memory %.2f TB/s', bw) at {lx:.4g}, bw * {lx:.4g} * 1.35 left rotate "
      "by {angle:.1f} font ',10'\n"
      "set arrow 1 from {ridge:.4g}, graph 0 to {ridge:.4g}, peak nohead dt 3 lc rgb '#999999'\n"
      "plot roof(x) with lines lw 2.5 lc rgb '#333333' title 'roofline (FP32 peak, HBM ceiling)', "
      "\\\n"
      "  {data} using 1:3:(0):($2-$3) with vectors nohead dt 2 lc rgb '#aaaaaa' notitle, \\\n"
      "  {data} using 1:3 with points pt 6 ps 1.6 lw 1.5 lc rgb '#d62728' title 'cuBLAS', \\\n"
      "  {data} using 1:($6 > 0 ? $6 : NaN) with points pt 9 ps 1.1 lc rgb '#ff7f0e' title "
      "\"project's best kernel\", \\\n"
      "  {data} using 1:2 with points pt 7 ps 1.3 lc rgb '#1f77b4' title 'tuned (winner)', \\\n"
      "  {data} using 1:2:(sprintf('%d', $0 + 1)) with labels left offset 0.7,0.5 font ',9' "
      "notitle",
      fmt::arg("title", gnuplot_quote("SGEMM roofline: " + gpu_title(first))),
      fmt::arg("x0", x_min), fmt::arg("x1", x_max), fmt::arg("y0", y_min), fmt::arg("y1", y_max),
      fmt::arg("peak", first.peak_tflops), fmt::arg("bw", first.bandwidth_tbps),
      fmt::arg("lx", std::max(x_min * 1.3, ridge / 12)), fmt::arg("angle", roof_angle),
      fmt::arg("ridge", ridge), fmt::arg("data", data));
  // Points carry their number; the list of problems sits in the right margin (labels beside
  // the points would overlap where problems have similar intensities).
  const double step = std::min(0.032, 0.86 / std::max<std::size_t>(1, group.size()));
  std::string key = fmt::format(
      "set lmargin at screen {}\nset rmargin at screen {}\nset bmargin at screen {}\n"
      "set tmargin at screen {}\n",
      kLeft, kRight, kBottom, kTop);
  key += fmt::format(
      "set label 9 'problem (ratio, winner)' at screen 0.755, screen 0.93 left font ',10'\n");
  for (std::size_t i = 0; i < group.size(); ++i) {
    const ProblemReport& r = *group[i];
    key += fmt::format("set label {} {} at screen 0.755, screen {:.4f} left font ',9' noenhanced\n",
                       10 + i,
                       gnuplot_quote(fmt::format("{:>2}  {}  {:.2f}x {}", i + 1, r.label, r.ratio(),
                                                 r.cublas_won() ? "cuBLAS" : r.winner_family)),
                       0.93 - step * static_cast<double>(i + 1));
  }
  return "# Roofline of the tuned problems; re-render in this folder with: gnuplot " + output_stem +
         ".gp\n" + terminals_and_plot(output_stem, key + plot, kWidth, kHeight);
}

std::string speedup_script(const std::vector<const ProblemReport*>& group,
                           const std::string& data_path, const std::string& output_stem) {
  const ProblemReport& first = *group.front();
  double y_max = 1.0;
  for (const ProblemReport* r : group)
    y_max = std::max({y_max, r->ratio(), r->own ? r->own->ratio() : 0.0});
  const std::string data = gnuplot_quote(data_path);
  const int width = std::max(900, 70 * static_cast<int>(group.size()) + 250);
  const std::string plot = fmt::format(
      "set title {title} noenhanced\n"
      "set style data histograms\n"
      "set style histogram clustered gap 1\n"
      "set style fill solid 0.85 border rgb '#555555'\n"
      "set boxwidth 0.9\n"
      "set yrange [0:{ymax:.4g}]\n"
      "set ylabel 'speedup over cuBLAS (cuBLAS time / kernel time)'\n"
      "set xtics rotate by -40 scale 0 font ',9' noenhanced\n"
      "set rmargin 10\n"
      "set grid ytics lc rgb '#dddddd'\n"
      "set key top left box opaque\n"
      "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 dt 2 lc rgb '#000000'\n"
      "plot {data} using 2:xtic(1) lc rgb '#1f77b4' title 'winner (cuBLAS = 1.00 when nothing beat "
      "it)', \\\n"
      "  {data} using 3 lc rgb '#ff7f0e' title \"project's best kernel\", \\\n"
      "  {data} using ($0 - 1.0/6):2:(sprintf('%.2f', $2)) with labels offset 0,0.6 font ',8' "
      "notitle, \\\n"
      "  {data} using ($0 + 1.0/6):3:($3 > 0 && abs($3 - $2) >= 0.005 ? sprintf('%.2f', $3) : '') "
      "with labels offset 0,0.6 font ',8' notitle",
      fmt::arg("title", gnuplot_quote("SGEMM speedup over cuBLAS: " + gpu_title(first))),
      fmt::arg("ymax", y_max * 1.15), fmt::arg("data", data));
  return "# Speedup over cuBLAS per problem; re-render in this folder with: gnuplot " +
         output_stem + ".gp\n" + terminals_and_plot(output_stem, plot, width, 650);
}

std::vector<std::string> draw_plots(const std::vector<ProblemReport>& reports,
                                    const std::string& dir) {
  if (reports.empty()) throw Error(ErrorKind::invalid_value, "no tuned problems to plot");
  const std::string gnuplot = find_on_path("gnuplot");
  if (gnuplot.empty())
    throw Error(ErrorKind::not_supported,
                "--plot needs gnuplot, which is not on PATH (Debian: apt-get install gnuplot-nox)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot create: {}", dir, ec.message()));
  const fs::path base = fs::absolute(dir);
  const fs::path log = base / "gnuplot.log";
  fs::remove(log, ec);

  const auto groups = group_by_gpu(reports);
  std::vector<std::string> pictures;
  for (const auto& group : groups) {
    const std::string suffix =
        groups.size() == 1 ? ""
                           : "_" + slug(group.front()->gpu.arch + "_" + group.front()->gpu.name);
    for (const bool roofline : {true, false}) {
      const std::string name = (roofline ? "roofline" : "speedup") + suffix;
      // Paths inside the scripts are relative to the folder, so it can be moved.
      const fs::path script = base / (name + ".gp");
      write_file(base / (name + ".dat"), roofline ? roofline_data(group) : speedup_data(group));
      write_file(script, roofline ? roofline_script(group, name + ".dat", name)
                                  : speedup_script(group, name + ".dat", name));
      const int rc = run_command({gnuplot, script.string()}, log.string(), base.string());
      if (rc != 0)
        throw Error(ErrorKind::internal,
                    fmt::format("gnuplot {} failed (status {}): {}", script.string(), rc,
                                read_tail(log.string(), 2000)));
      for (const char* ext : {".png", ".svg"}) {
        const fs::path picture = base / (name + ext);
        if (!fs::exists(picture) || fs::file_size(picture) == 0)
          throw Error(ErrorKind::internal,
                      fmt::format("gnuplot did not write {}: {}", picture.string(),
                                  read_tail(log.string(), 2000)));
        pictures.push_back(picture.string());
      }
    }
  }
  return pictures;
}

}  // namespace sgt::report
