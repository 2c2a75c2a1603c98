// Shape list parsing with strict checking: every complaint names the file and line.
#include "config/shape_list.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "common/error.hpp"

namespace sgt {
namespace {

[[noreturn]] void fail(const std::string& file, int line, const std::string& why) {
  throw Error(ErrorKind::invalid_value, fmt::format("{}:{}: {}", file, line, why));
}

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// Fields of one row by column name; turns them into a Shape and checks it.
class RowBuilder {
 public:
  RowBuilder(const std::string& file, int line) : file_(file), line_(line) {}

  void set(const std::string& column, const std::string& raw) {
    const std::string value = trim(raw);
    if (!given_.insert(column).second) fail(file_, line_, fmt::format("{} given twice", column));
    if (column == "class" || column == "name") {
      shape_.label = value;
    } else if (column == "calls") {  // the dispatcher's miss log: how often the problem ran
      long long v = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc{} || ptr != value.data() + value.size() || v < 0)
        fail(file_, line_, fmt::format("calls '{}' is not a count", value));
      shape_.calls = v;
    } else if (column == "transa" || column == "transb") {
      if (value.empty()) return;
      if (value.size() != 1)
        fail(file_, line_, fmt::format("{} '{}' is not N or T", column, value));
      try {
        (column == "transa" ? key().transa : key().transb) = parse_op(value[0]);
      } catch (const Error& e) {
        fail(file_, line_, e.what());
      }
    } else if (column == "alpha" || column == "beta") {
      if (value.empty()) return;
      char* end = nullptr;
      const float f = std::strtof(value.c_str(), &end);
      if (end != value.c_str() + value.size())
        fail(file_, line_, fmt::format("{} '{}' is not a number", column, value));
      if (!std::isfinite(f))
        fail(file_, line_, fmt::format("{} '{}' is not a finite float", column, value));
      (column == "alpha" ? shape_.problem.alpha : shape_.problem.beta) = f;
    } else if (int* field = int_field(column)) {
      if (value.empty() && column.starts_with("ld")) return;
      long long v = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc{} || ptr != value.data() + value.size())
        fail(file_, line_, fmt::format("{} '{}' is not an integer", column, value));
      if (v <= 0) fail(file_, line_, fmt::format("{} = {} must be positive", column, v));
      if (v > std::numeric_limits<int>::max())
        fail(file_, line_, fmt::format("{} = {} exceeds 32-bit range", column, v));
      *field = static_cast<int>(v);
      seen_[column] = true;
    } else {
      fail(file_, line_, fmt::format("unknown column '{}'", column));
    }
  }

  Shape finish() {
    for (const char* required : {"m", "n", "k"})
      if (!seen_[required]) fail(file_, line_, fmt::format("missing value for {}", required));
    ProblemKey& p = key();
    p = with_minimal_leading_dimensions(p);
    p.align = alignment_class(p.lda, p.ldb, p.ldc, 0, 0, 0);
    if (const std::string why = validate(p); !why.empty()) fail(file_, line_, why);
    shape_.line = line_;
    return shape_;
  }

  static bool known(const std::string& c) {
    static const char* names[] = {"m",   "n",     "k",    "transa", "transb", "lda",  "ldb",
                                  "ldc", "alpha", "beta", "class",  "name",   "calls"};
    for (const char* n : names)
      if (c == n) return true;
    return false;
  }

 private:
  ProblemKey& key() { return shape_.problem.key; }
  int* int_field(const std::string& c) {
    ProblemKey& p = key();
    if (c == "m") return &p.m;
    if (c == "n") return &p.n;
    if (c == "k") return &p.k;
    if (c == "lda") return &p.lda;
    if (c == "ldb") return &p.ldb;
    if (c == "ldc") return &p.ldc;
    return nullptr;
  }

  std::string file_;
  int line_;
  Shape shape_;
  std::map<std::string, bool> seen_;
  std::set<std::string> given_;
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// In O(n log n): a list of many thousand shapes must not take minutes to check.
void reject_duplicates(const std::vector<Shape>& shapes, const std::string& file) {
  std::map<std::tuple<int, int, int, int, int, int, int, int, int, float, float>, int> first_line;
  for (const Shape& s : shapes) {
    const ProblemKey& p = s.problem.key;
    const auto key =
        std::make_tuple(static_cast<int>(p.transa), static_cast<int>(p.transb), p.m, p.n, p.k,
                        p.lda, p.ldb, p.ldc, p.align, s.problem.alpha, s.problem.beta);
    const auto [it, inserted] = first_line.emplace(key, s.line);
    if (!inserted) fail(file, s.line, fmt::format("duplicate of line {}", it->second));
  }
}

}  // namespace

std::vector<Shape> parse_shape_csv(const std::string& text, const std::string& file) {
  std::stringstream in(text);
  std::string line;
  std::vector<std::string> header;
  std::vector<Shape> shapes;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // UTF-8 BOM
    const std::string stripped = trim(line);
    if (stripped.empty() || stripped[0] == '#') continue;
    std::vector<std::string> cells = split_csv(stripped);
    if (header.empty()) {
      for (std::string& c : cells) {
        c = trim(c);
        if (!RowBuilder::known(c)) fail(file, number, fmt::format("unknown column '{}'", c));
        if (std::count(cells.begin(), cells.end(), c) > 1)
          fail(file, number, fmt::format("column '{}' appears twice", c));
      }
      for (const char* required : {"m", "n", "k"})
        if (std::find(cells.begin(), cells.end(), required) == cells.end())
          fail(file, number, fmt::format("header lacks the column '{}'", required));
      header = cells;
      continue;
    }
    if (cells.size() != header.size())
      fail(file, number, fmt::format("{} fields, the header has {}", cells.size(), header.size()));
    RowBuilder row(file, number);
    for (std::size_t i = 0; i < cells.size(); ++i) row.set(header[i], cells[i]);
    shapes.push_back(row.finish());
  }
  if (header.empty()) fail(file, std::max(number, 1), "no header line (expected m,n,k[,...])");
  if (shapes.empty()) fail(file, number, "no shapes");
  reject_duplicates(shapes, file);
  return shapes;
}

std::vector<Shape> parse_shape_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(file, e.mark.line + 1, e.msg);
  }
  if (!root.IsMap()) fail(file, 1, "expected a top-level 'shapes:' sequence");
  const YAML::Node list = root["shapes"];
  if (!list || !list.IsSequence()) fail(file, 1, "expected a top-level 'shapes:' sequence");
  std::vector<Shape> shapes;
  for (const YAML::Node& item : list) {
    const int line = item.Mark().line + 1;
    if (!item.IsMap()) fail(file, line, "each shape must be a mapping such as {m: 1, n: 2, k: 3}");
    RowBuilder row(file, line);
    for (const auto& kv : item) {
      if (!kv.first.IsScalar()) fail(file, line, "keys must be column names");
      const std::string column = kv.first.Scalar();
      if (!kv.second.IsScalar()) fail(file, line, fmt::format("{} must be a scalar", column));
      row.set(column, kv.second.Scalar());
    }
    shapes.push_back(row.finish());
  }
  if (shapes.empty()) fail(file, 1, "no shapes");
  reject_duplicates(shapes, file);
  return shapes;
}

std::vector<Shape> load_shape_list(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot open shape list", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const bool yaml = path.ends_with(".yaml") || path.ends_with(".yml");
  return yaml ? parse_shape_yaml(buffer.str(), path) : parse_shape_csv(buffer.str(), path);
}

}  // namespace sgt
