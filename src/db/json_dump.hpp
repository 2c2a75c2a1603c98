// The text dump of a tuning database, the format of tuner_db/*.json: the records it holds and
// their JSON text. TuningStore fills a Dump from its rows and writes a Dump's records back; this
// unit knows no SQL and the store no JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/records.hpp"

namespace sgt {

// Records refer to GPUs, software and runs by position in the dump: ids differ between
// databases, so none is written (the records' id, run_id and candidate_id are not used).
struct DumpRun {
  RunRecord run;
  std::size_t gpu = 0, software = 0;
};

struct DumpCandidate {
  CandidateRecord candidate;
  std::size_t gpu = 0, software = 0;
  std::optional<std::size_t> run;  // none: recorded outside a run
};

// winner.gpu and winner.software are those at the positions (read_dump_json copies them).
struct DumpWinner {
  WinnerRecord winner;
  std::size_t gpu = 0, software = 0;
};

struct Dump {
  std::vector<GpuRecord> gpus;
  std::vector<SoftwareRecord> software;
  std::vector<DumpRun> runs;
  std::vector<DumpCandidate> candidates;
  std::vector<DumpWinner> winners;
};

// One record per line, in the vectors' order, so dumps diff well. with_candidates false leaves
// the "runs" and "candidates" arrays out (a winners-only dump); a winner's cubin is written as
// base64 when it is not empty. schema_version only informs the reader.
std::string write_dump_json(const Dump& dump, int schema_version, bool with_candidates);

// Parses and checks a whole dump: malformed input throws Error(invalid_value) naming the record
// and field ("import: candidates[3].problem: lda=2 ..."), before anything is written anywhere.
Dump read_dump_json(std::string_view text);

}  // namespace sgt
