// Shape lists: CSV with a header m,n,k[,transa,transb,lda,ldb,ldc,alpha,beta] (plus optional
// label columns class and name, and calls as written by the dispatcher's miss log), or YAML
// (a `shapes:` sequence of maps with the same keys).
#pragma once

#include <string>
#include <vector>

#include "space/problem.hpp"

namespace sgt {

struct Shape {
  Problem problem;      // leading dimensions filled in (minimal where not given)
  std::string label;    // the class or name column, if any
  long long calls = 0;  // the calls column of a dispatcher miss log, if any
  int line = 0;         // where it came from
};

// Parses a shape list; errors are sgt::Error(invalid_value) "FILE:LINE: reason".
std::vector<Shape> load_shape_list(const std::string& path);
std::vector<Shape> parse_shape_csv(const std::string& text, const std::string& file_name);
std::vector<Shape> parse_shape_yaml(const std::string& text, const std::string& file_name);

}  // namespace sgt
