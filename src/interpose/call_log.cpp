// The interposer's call counts. One mutex: the log is a diagnostic, on only when asked for.
#include "interpose/call_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace sgt::interpose {
namespace {

using Row = std::tuple<std::string, bool, std::string, int, int, int, int, int, int, int, int>;

struct Counts {
  std::mutex mutex;
  std::map<Row, std::uint64_t> calls;
};

Counts& counts() {
  static Counts* c = new Counts;  // never destroyed: calls may come while the process exits
  return *c;
}

const char* log_path() {
  static const char* path = [] {
    const char* p = std::getenv("SGEMM_CUBLAS_LOG");
    return p && *p ? p : nullptr;
  }();
  return path;
}

char op_name(int op) { return op == 0 ? 'N' : op == 1 ? 'T' : 'C'; }

}  // namespace

bool call_log_on() { return log_path() != nullptr; }

void log_call(const LoggedCall& c) {
  Counts& all = counts();
  const Row row{c.entry,  c.served, c.reason, c.m,   c.n,  c.k,
                c.transa, c.transb, c.lda,    c.ldb, c.ldc};
  std::lock_guard lock(all.mutex);
  ++all.calls[row];
}

std::string call_log_csv(const std::string& cublas_library, const std::string& note) {
  std::vector<std::pair<Row, std::uint64_t>> rows;
  {
    Counts& all = counts();
    std::lock_guard lock(all.mutex);
    rows.assign(all.calls.begin(), all.calls.end());
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (std::get<1>(a.first) != std::get<1>(b.first)) return std::get<1>(a.first);
    return a.second > b.second;
  });
  std::string out = fmt::format("# cuBLAS: {}{}\n", cublas_library.empty() ? "-" : cublas_library,
                                note.empty() ? "" : "; " + note);
  out += "entry,action,reason,m,n,k,transa,transb,lda,ldb,ldc,calls\n";
  for (const auto& [row, calls] : rows) {
    const auto& [entry, served, reason, m, n, k, ta, tb, lda, ldb, ldc] = row;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", entry, served ? "served" : "passed",
                       reason, m, n, k, op_name(ta), op_name(tb), lda, ldb, ldc, calls);
  }
  return out;
}

bool write_call_log(const std::string& cublas_library, const std::string& note) {
  const char* path = log_path();
  if (!path) return true;
  const std::string text = call_log_csv(cublas_library, note);
  std::FILE* f = std::fopen(path, "wb");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace sgt::interpose
