// Packed tuples, the byte format of `args` and of ::pack / ::unpack<T> (docs/wasm-abi.md §5):
// little-endian integers, bool as one byte, strings and vectors prefixed by an unsigned LEB128 count.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "host.hpp"

namespace chainsim {

namespace packing {

inline void put_le(std::string& o, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) o += char((v >> (8 * i)) & 0xFF);
}
inline void put_leb(std::string& o, uint64_t v) {
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    o += char(v ? b | 0x80 : b);
  } while (v);
}

inline void put(std::string& o, bool v) { o += char(v ? 1 : 0); }
inline void put(std::string& o, char v) { o += v; }
inline void put(std::string& o, signed char v) { o += char(v); }
inline void put(std::string& o, unsigned char v) { o += char(v); }
inline void put(std::string& o, int32_t v) { put_le(o, uint32_t(v), 4); }
inline void put(std::string& o, uint32_t v) { put_le(o, v, 4); }
inline void put(std::string& o, int64_t v) { put_le(o, uint64_t(v), 8); }
inline void put(std::string& o, uint64_t v) { put_le(o, v, 8); }
inline void put(std::string& o, std::string_view v) {
  put_leb(o, v.size());
  o.append(v.data(), v.size());
}
inline void put(std::string& o, const std::string& v) { put(o, std::string_view(v)); }
inline void put(std::string& o, const char* v) { put(o, std::string_view(v)); }
template <class T>
void put(std::string& o, const std::vector<T>& v);
template <class... T>
void put(std::string& o, const std::tuple<T...>& v);

template <class T>
void put(std::string& o, const std::vector<T>& v) {
  put_leb(o, v.size());
  for (const auto& x : v) put(o, x);
}
template <class... T>
void put(std::string& o, const std::tuple<T...>& v) {
  std::apply([&o](const auto&... x) { (put(o, x), ...); }, v);
}

// Reads from a byte range; any error ends the run (151), as the ABI says.
struct reader {
  const char* p;
  const char* e;
  uint8_t byte() {
    if (p >= e) fail("unpack: read past the end of the packed data");
    return uint8_t(*p++);
  }
  uint64_t le(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(byte()) << (8 * i);
    return v;
  }
  uint64_t leb() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b = byte();
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("unpack: LEB128 length longer than 64 bits");
  }
  size_t count() {
    uint64_t n = leb();
    if (n > uint64_t(e - p)) fail("unpack: read past the end of the packed data");
    return size_t(n);
  }
};

inline void get(reader& r, bool& v) {
  uint8_t b = r.byte();
  if (b > 1) fail("unpack: a bool must be 0 or 1");
  v = b == 1;
}
inline void get(reader& r, char& v) { v = char(r.byte()); }
inline void get(reader& r, signed char& v) { v = static_cast<signed char>(r.byte()); }
inline void get(reader& r, unsigned char& v) { v = r.byte(); }
inline void get(reader& r, int32_t& v) { v = int32_t(uint32_t(r.le(4))); }
inline void get(reader& r, uint32_t& v) { v = uint32_t(r.le(4)); }
inline void get(reader& r, int64_t& v) { v = int64_t(r.le(8)); }
inline void get(reader& r, uint64_t& v) { v = r.le(8); }
inline void get(reader& r, std::string& v) {
  size_t n = r.count();
  v.assign(r.p, n);
  r.p += n;
}
template <class T>
void get(reader& r, std::vector<T>& v);
template <class... T>
void get(reader& r, std::tuple<T...>& v);

template <class T>
void get(reader& r, std::vector<T>& v) {
  size_t n = r.count();  // every element takes at least one byte, so n is bounded by what is left
  v.clear();
  v.resize(n);
  for (auto& x : v) get(r, x);
}
template <class... T>
void get(reader& r, std::tuple<T...>& v) {
  std::apply([&r](auto&... x) { (get(r, x), ...); }, v);
}

}  // namespace packing

// pack(a, b, c) gives the same bytes as pack(std::make_tuple(a, b, c)).
template <class... T>
std::string pack(const T&... v) {
  std::string o;
  (packing::put(o, v), ...);
  return o;
}

// Bytes left after T are ignored (the ABI does not say; this matches the family's readers).
template <class T>
T unpack(const char* data, size_t size) {
  packing::reader r{data, data + size};
  T v{};
  packing::get(r, v);
  return v;
}
template <class T>
T unpack(std::string_view bytes) {
  return unpack<T>(bytes.data(), bytes.size());
}
template <class T>
T unpack(const std::vector<char>& bytes) {
  return unpack<T>(bytes.data(), bytes.size());
}

}  // namespace chainsim
