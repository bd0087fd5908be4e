// A small JSON writer and reader: built-in arguments and results are JSON (docs/wasm-abi.md §3).
// No exceptions (-fno-exceptions, docs/wasm-design.md): readers answer false on bad input.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "host.hpp"

namespace chainsim {

// Decimal text of an int64, with no dependence on libc formatting.
inline std::string i64_to_string(int64_t v) {
  char buf[24];
  char* p = buf + sizeof buf;
  uint64_t u = v < 0 ? 0 - uint64_t(v) : uint64_t(v);
  do {
    *--p = char('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) *--p = '-';
  return std::string(p, size_t(buf + sizeof buf - p));
}

inline std::string u64_to_string(uint64_t u) {
  char buf[24];
  char* p = buf + sizeof buf;
  do {
    *--p = char('0' + u % 10);
    u /= 10;
  } while (u);
  return std::string(p, size_t(buf + sizeof buf - p));
}

// Canonical decimal only ("-5", "0"; not "+5", "05", "-0", "5.0"), as Utils.stoI64Check.
inline bool parse_uint64(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 20 || (s[0] == '0' && s.size() > 1)) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, uint64_t(10), &v) || __builtin_add_overflow(v, uint64_t(c - '0'), &v))
      return false;
  }
  out = v;
  return true;
}

inline bool parse_int64(std::string_view s, int64_t& out) {
  bool neg = !s.empty() && s[0] == '-';
  uint64_t u;
  if (!parse_uint64(neg ? s.substr(1) : s, u)) return false;
  if (neg) {
    if (u == 0 || u > uint64_t(INT64_MAX) + 1) return false;
    out = int64_t(0 - u);
  } else {
    if (u > uint64_t(INT64_MAX)) return false;
    out = int64_t(u);
  }
  return true;
}

namespace json {

// Builds the JSON array of a built-in's arguments.
struct array {
  std::string text = "[";
  array& str(std::string_view s) {
    sep();
    append_json_string(text, s);
    return *this;
  }
  array& boolean(bool b) {
    sep();
    text += b ? "true" : "false";
    return *this;
  }
  array& number(int64_t n) {
    sep();
    text += i64_to_string(n);
    return *this;
  }
  // An argument that is already JSON (an object such as {"issuer":…,"code":…}).
  array& raw(std::string_view json_text) {
    sep();
    text += json_text;
    return *this;
  }
  std::string done() const { return text + "]"; }

 private:
  void sep() {
    if (text.size() > 1) text += ',';
  }
};

enum class kind : uint8_t { invalid, null, boolean, number, string, object, array };

// A parsed value. `text` is the decoded string for a string, and the raw JSON for a number,
// an object or an array (read members with json::member).
struct value {
  kind type = kind::invalid;
  bool b = false;
  std::string text;
};

namespace detail {

struct cursor {
  const char* p;
  const char* e;
  void ws() {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  }
  bool lit(std::string_view w) {
    if (size_t(e - p) < w.size() || std::string_view(p, w.size()) != w) return false;
    p += w.size();
    return true;
  }
  static void utf8(std::string& o, uint32_t cp) {
    if (cp < 0x80) {
      o += char(cp);
    } else if (cp < 0x800) {
      o += char(0xC0 | (cp >> 6));
      o += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      o += char(0xE0 | (cp >> 12));
      o += char(0x80 | ((cp >> 6) & 0x3F));
      o += char(0x80 | (cp & 0x3F));
    } else {
      o += char(0xF0 | (cp >> 18));
      o += char(0x80 | ((cp >> 12) & 0x3F));
      o += char(0x80 | ((cp >> 6) & 0x3F));
      o += char(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(uint32_t& v) {
    if (e - p < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else return false;
    }
    return true;
  }
  // At the opening quote; decodes into *out when out is not null.
  bool string(std::string* out) {
    ++p;
    while (p < e) {
      char c = *p++;
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        if (out) *out += c;
        continue;
      }
      if (p >= e) return false;
      char x = *p++;
      char plain = x == '"' ? '"' : x == '\\' ? '\\' : x == '/' ? '/' : x == 'b' ? '\b'
                 : x == 'f' ? '\f' : x == 'n' ? '\n' : x == 'r' ? '\r' : x == 't' ? '\t' : 0;
      if (plain) {
        if (out) *out += plain;
        continue;
      }
      if (x != 'u') return false;
      uint32_t cp;
      if (!hex4(cp)) return false;
      if (cp >= 0xD800 && cp < 0xDC00 && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
        const char* save = p;
        p += 2;
        uint32_t lo;
        if (hex4(lo) && lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        else p = save;
      }
      if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;  // a lone surrogate, as the host's decoder does
      if (out) utf8(*out, cp);
    }
    return false;
  }
  bool digits() {
    const char* s = p;
    while (p < e && *p >= '0' && *p <= '9') ++p;
    return p > s;
  }
  bool number() {
    if (p < e && *p == '-') ++p;
    if (p < e && *p == '0') ++p;
    else if (!digits()) return false;
    if (p < e && *p == '.') {
      ++p;
      if (!digits()) return false;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < e && (*p == '+' || *p == '-')) ++p;
      if (!digits()) return false;
    }
    return true;
  }
  // One value; fills *out when out is not null. Depth is bounded to keep the stack small.
  bool parse(value* out, int depth) {
    ws();
    if (p >= e || depth > 64) return false;
    const char* start = p;
    kind k;
    char c = *p;
    if (c == '"') {
      if (out) out->text.clear();
      if (!string(out ? &out->text : nullptr)) return false;
      if (out) out->type = kind::string;
      return true;
    } else if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      k = c == '{' ? kind::object : kind::array;
      ++p;
      ws();
      if (p < e && *p == close) {
        ++p;
      } else {
        for (;;) {
          if (k == kind::object) {
            ws();
            if (p >= e || *p != '"' || !string(nullptr)) return false;
            ws();
            if (p >= e || *p++ != ':') return false;
          }
          if (!parse(nullptr, depth + 1)) return false;
          ws();
          if (p >= e) return false;
          if (*p == ',') { ++p; continue; }
          if (*p++ != close) return false;
          break;
        }
      }
    } else if (lit("true") || lit("false")) {
      if (out) { out->type = kind::boolean; out->b = start[0] == 't'; }
      return true;
    } else if (lit("null")) {
      if (out) out->type = kind::null;
      return true;
    } else if (number()) {
      k = kind::number;
    } else {
      return false;
    }
    if (out) {
      out->type = k;
      out->text.assign(start, size_t(p - start));
    }
    return true;
  }
};

}  // namespace detail

// Parses `in`, which must hold exactly one JSON value.
inline bool parse(std::string_view in, value& out) {
  detail::cursor c{in.data(), in.data() + in.size()};
  out = value{};
  if (!c.parse(&out, 0)) return false;
  c.ws();
  return c.p == c.e;
}

// Member `key` of an object value (the first one when repeated).
inline bool member(const value& obj, std::string_view key, value& out) {
  if (obj.type != kind::object) return false;
  detail::cursor c{obj.text.data() + 1, obj.text.data() + obj.text.size()};
  std::string k;
  for (;;) {
    c.ws();
    if (c.p >= c.e || *c.p != '"') return false;
    k.clear();
    if (!c.string(&k)) return false;
    c.ws();
    if (c.p >= c.e || *c.p++ != ':') return false;
    bool hit = k == key;
    if (hit) out = value{};
    if (!c.parse(hit ? &out : nullptr, 1)) return false;
    if (hit) return true;
    c.ws();
    if (c.p >= c.e || *c.p++ != ',') return false;
  }
}

// A string, a number or a boolean as text: how params and results reach a std::string.
inline bool as_text(const value& v, std::string& out) {
  switch (v.type) {
    case kind::string:
    case kind::number: out = v.text; return true;
    case kind::boolean: out = v.b ? "true" : "false"; return true;
    default: return false;
  }
}

// An integer given as a JSON number or a decimal string, in canonical form.
inline bool as_int64(const value& v, int64_t& out) {
  return (v.type == kind::number || v.type == kind::string) && parse_int64(v.text, out);
}

}  // namespace json
}  // namespace chainsim
