// The kernel templates embedded at build time (kernel_templates/*.cu, *.cuh, *.h) and their hashes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sgt {

// Contents of kernel_templates/<file_name>; throws sgt::Error(invalid_value) if there is none.
std::string_view template_source(std::string_view file_name);
// Names of the headers (*.cuh, *.h) every compilation may include.
std::vector<std::string> template_header_names();
// Hash of a template together with every header it may include: part of every database key.
std::string template_hash(std::string_view file_name);
// Adds a kernel template (not a header) beside the embedded ones, for a family a program
// registers itself (register_family). Returns true, for use in a static initializer.
bool register_template(std::string file_name, std::string_view source);

}  // namespace sgt
