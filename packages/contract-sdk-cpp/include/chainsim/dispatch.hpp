// Support for the apply() that chainsim-cpp generates: which action runs, and its arguments from the
// input's "args" (packed tuple, base64) or "params" (by name) (docs/wasm-abi.md §2).
#pragma once
#include <cstdint>
#include <string>

#include "contract.hpp"

namespace chainsim::dispatch {

class run {
 public:
  // `action` 0 means the input names no method: run the entry point's own action (init, main, query),
  // as an empty input does. init runs only at creation, and creation runs only init.
  run(uint64_t code, uint64_t action) : code_(code) {
    static constexpr uint64_t names[3] = {string_to_name("init"), string_to_name("main"), string_to_name("query")};
    if (code > 2) fail("apply: unknown entry point code " + u64_to_string(code));
    action_ = action ? action : names[code];
    if (code == 0 && action_ != names[0]) fail("only the action init runs when the contract is created, not " + method());
    if (code != 0 && action_ == names[0]) fail("the action init runs only when the contract is created");
    json::value root;
    if (!json::parse(chain::input(), root)) return;
    json::value a;
    if (json::member(root, "args", a) && a.type == json::kind::string) {
      if (!decode_base64(a.text, bytes_)) fail("the input's args is not base64");
      packed_ = true;
      reader_ = packing::reader{bytes_.data(), bytes_.data() + bytes_.size()};
    } else {
      json::member(root, "params", params_);
    }
  }

  uint64_t action() const { return action_; }
  bool creating() const { return code_ == 0; }

  template <class T>
  void get(const char* name, T& out) {
    if (packed_) {
      packing::get(reader_, out);
      return;
    }
    json::value v;
    if (!json::member(params_, name, v)) fail(std::string("missing param \"") + name + "\" of action " + method());
    if (!convert(v, out)) fail(std::string("param \"") + name + "\" of action " + method() + " is not " + type_name(out));
  }

  [[noreturn]] void unknown() { fail("unknown action " + method()); }

  // The method named by the input, quoted, for messages; the entry point's name when it names none.
  std::string method() const {
    json::value root, m;
    std::string s;
    if (json::parse(chain::input(), root) && json::member(root, "method", m) && m.type == json::kind::string) s = m.text;
    else s = code_ == 0 ? "init" : code_ == 1 ? "main" : "query";
    std::string q;
    append_json_string(q, s);
    return q;
  }

 private:
  static bool convert(const json::value& v, std::string& out) { return json::as_text(v, out); }
  static bool convert(const json::value& v, int64_t& out) { return json::as_int64(v, out); }
  static bool convert(const json::value& v, uint64_t& out) {
    return (v.type == json::kind::number || v.type == json::kind::string) && parse_uint64(v.text, out);
  }
  static bool convert(const json::value& v, int32_t& out) {
    int64_t n;
    if (!json::as_int64(v, n) || n < INT32_MIN || n > INT32_MAX) return false;
    out = int32_t(n);
    return true;
  }
  static bool convert(const json::value& v, bool& out) {
    if (v.type == json::kind::boolean) { out = v.b; return true; }
    if (v.type != json::kind::number && v.type != json::kind::string) return false;
    if (v.text == "true" || v.text == "1") { out = true; return true; }
    if (v.text == "false" || v.text == "0") { out = false; return true; }
    return false;
  }
  static const char* type_name(const std::string&) { return "a string"; }
  static const char* type_name(int64_t) { return "an int64"; }
  static const char* type_name(uint64_t) { return "a uint64"; }
  static const char* type_name(int32_t) { return "an int32"; }
  static const char* type_name(bool) { return "a bool"; }

  uint64_t code_;
  uint64_t action_ = 0;
  bool packed_ = false;
  std::string bytes_;
  packing::reader reader_{nullptr, nullptr};
  json::value params_;
};

// The `return` control call: what a query returns and what contractCall / delegateCall get.
inline void send(std::string_view value) { call("return", json::array{}.str(value)); }
inline void send(const std::string& value) { send(std::string_view(value)); }
inline void send(bool value) { call("return", json::array{}.boolean(value)); }

}  // namespace chainsim::dispatch
