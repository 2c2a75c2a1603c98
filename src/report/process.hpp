// Child processes of the report verbs (gnuplot, Nsight Compute): fork/exec with the output
// captured to a file, and the end of that file for error messages.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sgt::report {

// Runs argv (argv[0] looked up on $PATH unless it holds a '/') in working_dir (this process's
// when empty) with standard output and error appended to output_file. Returns the exit status:
// 127 when it could not be started, 126 when working_dir is unusable, 128 + N when killed by
// signal N.
int run_command(const std::vector<std::string>& argv, const std::string& output_file,
                const std::string& working_dir = "");

// The last max_chars characters of a file ("..." in front when cut), "" when it is unreadable.
std::string read_tail(const std::string& path, std::size_t max_chars);

}  // namespace sgt::report
