// The two imports of docs/wasm-abi.md §3 and the control calls built on them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

extern "C" {
// Runs built-in `name` with a JSON array of arguments; returns the byte length of the JSON result.
__attribute__((import_module("env"), import_name("call"))) int32_t chainsim_env_call(
    const char* name, int32_t name_len, const char* args, int32_t args_len);
// Copies the result kept by the last chainsim_env_call to `ptr`.
__attribute__((import_module("env"), import_name("result"))) void chainsim_env_result(char* ptr);
}

namespace chainsim {

// Calls built-in `name` with `args_json` (a JSON array) and returns its JSON result as text.
inline std::string call_raw(std::string_view name, std::string_view args_json) {
  int32_t n = chainsim_env_call(name.data(), int32_t(name.size()), args_json.data(),
                                int32_t(args_json.size()));
  std::string out;
  if (n > 0) {
    out.resize(size_t(n));
    chainsim_env_result(out.data());
  }
  return out;
}

// JSON string literal of `s` (quotes included). Bytes >= 0x80 pass through: the host reads UTF-8.
inline void append_json_string(std::string& out, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  out += '"';
}

// Ends the run: 151 with `message` as the exception (docs/wasm-abi.md §3, control `fail`).
[[noreturn]] inline void fail(std::string_view message) {
  std::string args = "[";
  append_json_string(args, message);
  args += ']';
  call_raw("fail", args);
  __builtin_trap();  // the host never returns from `fail`; trap if it does
}

}  // namespace chainsim
