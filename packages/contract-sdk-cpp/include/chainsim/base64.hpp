// Standard base64 with padding: the encoding of `args` (docs/wasm-abi.md §2) and of payloads.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "host.hpp"

namespace chainsim {

inline std::string encode_base64(std::string_view in) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    out += tab[v >> 18];
    out += tab[(v >> 12) & 63];
    out += tab[(v >> 6) & 63];
    out += tab[v & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out += tab[v >> 18];
    out += tab[(v >> 12) & 63];
    out += i + 1 < in.size() ? tab[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Accepts padded or unpadded input; false on anything else (other characters, a bad length).
inline bool decode_base64(std::string_view in, std::string& out) {
  if (!in.empty() && in.size() % 4 == 0) {  // strip at most two '=' of padded input
    if (in.back() == '=') in.remove_suffix(1);
    if (in.back() == '=') in.remove_suffix(1);
  }
  if (in.size() % 4 == 1) return false;
  out.clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26
          : c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' ? 62 : c == '/' ? 63 : -1;
    if (v < 0) return false;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  return true;
}

// The decoded bytes; invalid base64 ends the run (151).
inline std::string decode_base64(std::string_view in) {
  std::string out;
  if (!decode_base64(in, out)) fail("decode_base64: invalid base64");
  return out;
}

}  // namespace chainsim
