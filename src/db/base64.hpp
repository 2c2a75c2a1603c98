// Base64 (RFC 4648, standard alphabet, padded) for the cubins in a text dump. Our own: none of
// the libraries sgt_core links has one (yaml-cpp's, in sgt_tuning only, skips bad characters).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sgt {

std::string base64_encode(const std::vector<unsigned char>& data);
// Strict: whole groups of four, padding only at the end, no whitespace. Returns false on
// anything else (out is then unspecified).
bool base64_decode(std::string_view text, std::vector<unsigned char>& out);

}  // namespace sgt
