#include "db/base64.hpp"

namespace sgt {
namespace {

constexpr char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_encode(const std::vector<unsigned char>& data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < data.size(); i += 3) {
    const std::size_t left = data.size() - i;
    const unsigned v =
        (data[i] << 16) | (left > 1 ? data[i + 1] << 8 : 0) | (left > 2 ? data[i + 2] : 0);
    out += base64_alphabet[(v >> 18) & 63];
    out += base64_alphabet[(v >> 12) & 63];
    out += left > 1 ? base64_alphabet[(v >> 6) & 63] : '=';
    out += left > 2 ? base64_alphabet[v & 63] : '=';
  }
  return out;
}

bool base64_decode(std::string_view text, std::vector<unsigned char>& out) {
  if (text.size() % 4 != 0) return false;
  out.clear();
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    unsigned v = 0;
    for (int j = 0; j < 4; ++j) {
      const int d = j >= 4 - pad ? 0 : base64_value(text[i + j]);
      if (d < 0) return false;
      v = (v << 6) | static_cast<unsigned>(d);
    }
    out.push_back(static_cast<unsigned char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<unsigned char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<unsigned char>(v & 0xff));
  }
  return true;
}

}  // namespace sgt
