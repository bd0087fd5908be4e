// The built-ins a contract calls: names and semantics of docs/contracts.md §7-§9, reached through
// env.call with JSON arguments (docs/wasm-abi.md §3). A built-in that would throw in JavaScript ends
// the run instead (151), so the functions here only return on success or for a "not found".
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "host.hpp"
#include "json.hpp"

namespace chainsim {

// Calls a built-in and parses its JSON result; an unreadable result ends the run.
inline json::value call(std::string_view name, const json::array& args) {
  std::string raw = call_raw(name, args.done());
  json::value v;
  if (!json::parse(raw, v)) fail(std::string("built-in ") + std::string(name) + " gave a result that is not JSON");
  return v;
}

namespace detail {
inline json::value env(std::string_view name) { return call(name, json::array{}); }
inline void env_string(std::string_view name, std::string& out) {
  json::value v = env(name);
  if (!json::as_text(v, out)) out.clear();
}
// A number, or a decimal string (tx.gasPrice, msg.coinAmount); null (msg.coinAmount in a query) is 0.
inline int64_t env_int64(std::string_view name) {
  json::value v = env(name);
  int64_t n = 0;
  if (v.type != json::kind::null && !json::as_int64(v, n)) fail(std::string(name) + " is not an int64");
  return n;
}
// string -> out, true; true -> "true", true; false or anything else -> "", false.
inline bool string_or_bool(const json::value& v, std::string& out) {
  out.clear();
  if (v.type == json::kind::string) { out = v.text; return true; }
  if (v.type == json::kind::boolean && v.b) { out = "true"; return true; }
  return false;
}
// {result: value} -> value as text, true; {error: true} -> false.
inline bool query_result(const json::value& v, std::string& out) {
  out.clear();
  json::value r;
  if (!json::member(v, "result", r)) return false;
  json::as_text(r, out);
  return true;
}
inline void check_address(std::string_view who, std::string_view address) {
  if (address.empty() || address.size() > 1024)
    fail(std::string(who) + ": the address must have 1 to 1024 bytes");
}
inline void check_amount(std::string_view who, int64_t amount) {
  if (amount < 0) fail(std::string(who) + ": the amount must be in [0, INT64_MAX]");
}
}  // namespace detail

namespace chain {

// ---- the run's input ----

// The input string of this run, read once (docs/wasm-abi.md §2).
inline const std::string& input() {
  static std::string in;
  static bool read = false;
  if (!read) {
    detail::env_string("input", in);
    read = true;
  }
  return in;
}

// Named param `name` of the input's "params" object, as text (a number as its digits, a boolean as
// "true"/"false"). False when the input has no such param.
inline bool getParam(std::string_view name, std::string& out) {
  json::value root, params, v;
  out.clear();
  return json::parse(input(), root) && json::member(root, "params", params) &&
         json::member(params, name, v) && json::as_text(v, out);
}

// ---- storage (metadata of this contract) ----

// Returns 0; a bad key or value (empty key, key > 1024 bytes, value > 262144 bytes) ends the run.
inline int32_t store(std::string_view key, std::string_view value) {
  call("store", json::array{}.str(key).str(value));
  return 0;
}

// True and the value when the key exists (this transaction's own writes included).
inline bool load(std::string_view key, std::string& out) {
  json::value v = call("load", json::array{}.str(key));
  if (v.type == json::kind::string) { out = v.text; return true; }
  out.clear();
  return false;
}

// Returns 0; deleting a key that does not exist fails the transaction (4).
inline int32_t del(std::string_view key) {
  call("del", json::array{}.str(key));
  return 0;
}

// ---- accounts and ledgers (read) ----

inline bool getAccountMetadata(std::string_view address, std::string_view key, std::string& out) {
  json::value v = call("getAccountMetadata", json::array{}.str(address).str(key));
  if (v.type == json::kind::string) { out = v.text; return true; }
  out.clear();
  return false;
}

// The balance, or -1 for an invalid address ("0" for a valid address nobody holds).
inline int64_t getBalance(std::string_view address) {
  json::value v = call("getBalance", json::array{}.str(address));
  int64_t n;
  return v.type == json::kind::string && parse_int64(v.text, n) ? n : -1;
}

// Hex hash of ledger block.number - 1 - offset; false when offset is outside [0, 1024) or too old.
inline bool getBlockHash(int64_t offset, std::string& out) {
  json::value v = call("getBlockHash", json::array{}.number(offset));
  if (v.type == json::kind::string) { out = v.text; return true; }
  out.clear();
  return false;
}

// ---- logs ----

// tlog(topic, d1 [, d2 ... d5]): 1 to 5 data strings; returns 0.
template <class... D>
int32_t tlog(std::string_view topic, const D&... data) {
  static_assert(sizeof...(D) >= 1 && sizeof...(D) <= 5, "chain::tlog takes a topic and 1 to 5 data");
  json::array a;
  a.str(topic);
  (a.str(std::string_view(data)), ...);
  call("tlog", a);
  return 0;
}

// ---- payments and calls (write) ----

// Pays `amount` coins with no input. Returns 0.
inline int32_t payCoin(std::string_view address, int64_t amount) {
  detail::check_address("chain::payCoin", address);
  detail::check_amount("chain::payCoin", amount);
  call("payCoin", json::array{}.str(address).str(i64_to_string(amount)));
  return 0;
}

// Pays `amount` coins and runs the payee's action `method` with packed `abicode` (base64 of
// ::pack(...)): the input is {"method":method,"args":abicode} (docs/wasm-abi.md §2). Returns 0;
// a bad address or amount ends the run, a failed payment fails the transaction.
inline int32_t payCoin(std::string_view address, int64_t amount, std::string_view method,
                       std::string_view abicode, std::string_view metadata) {
  detail::check_address("chain::payCoin", address);
  detail::check_amount("chain::payCoin", amount);
  std::string in = "{\"method\":";
  append_json_string(in, method);
  in += ",\"args\":";
  append_json_string(in, abicode);
  in += '}';
  call("payCoin", json::array{}.str(address).str(i64_to_string(amount)).str(in).str(metadata));
  return 0;
}

// Issues `amount` (>= 1) of asset `code` (1 to 64 characters) to this contract. Returns 0.
inline int32_t issueAsset(std::string_view code, int64_t amount) {
  call("issueAsset", json::array{}.str(code).str(i64_to_string(amount)));
  return 0;
}

// Pays `amount` (>= 1) of asset {issuer, code}, with an input for a contract payee. Returns 0.
inline int32_t payAsset(std::string_view address, std::string_view issuer, std::string_view code,
                        int64_t amount, std::string_view input = "", std::string_view metadata = "") {
  call("payAsset", json::array{}.str(address).str(issuer).str(code).str(i64_to_string(amount)).str(input).str(metadata));
  return 0;
}

// Pays `amount` coins and runs the callee's main with `input`. True with the callee's result (a string,
// or "true"); false when it returned false or nothing. Its failure fails the transaction.
inline bool contractCall(std::string_view address, int64_t amount, std::string_view input, std::string& result) {
  json::value v = call("contractCall", json::array{}.str(address).boolean(true).str(i64_to_string(amount)).str(input));
  return detail::string_or_bool(v, result);
}

// The same, paying `amount` of asset {issuer, code} instead of coins.
inline bool contractCall(std::string_view address, std::string_view issuer, std::string_view code,
                         int64_t amount, std::string_view input, std::string& result) {
  std::string asset = "{\"issuer\":";
  append_json_string(asset, issuer);
  asset += ",\"code\":";
  append_json_string(asset, code);
  asset += '}';
  json::array a;
  a.str(address).raw(asset).str(i64_to_string(amount)).str(input);
  return detail::string_or_bool(call("contractCall", a), result);
}

// Runs the other contract's query with `input`. True with its result as text ("true"/"false" for a
// boolean); false when it failed or has no code.
inline bool contractQuery(std::string_view address, std::string_view input, std::string& result) {
  return detail::query_result(call("contractQuery", json::array{}.str(address).str(input)), result);
}

// Runs the other contract's main on this contract's storage. Result as contractCall.
inline bool delegateCall(std::string_view address, std::string_view input, std::string& result) {
  return detail::string_or_bool(call("delegateCall", json::array{}.str(address).str(input)), result);
}

// Runs the other contract's query on this contract's storage. Result as contractQuery.
inline bool delegateQuery(std::string_view address, std::string_view input, std::string& result) {
  return detail::query_result(call("delegateQuery", json::array{}.str(address).str(input)), result);
}

// ---- who is calling (docs/contracts.md §9) ----

inline void thisAddress(std::string& out) { detail::env_string("thisAddress", out); }

namespace block {
inline int64_t timestamp() { return detail::env_int64("block.timestamp"); }
inline int64_t number() { return detail::env_int64("block.number"); }
}  // namespace block

namespace tx {
inline void initiator(std::string& out) { detail::env_string("tx.initiator", out); }
inline void sender(std::string& out) { detail::env_string("tx.sender", out); }
inline void hash(std::string& out) { detail::env_string("tx.hash", out); }
inline int64_t gasPrice() { return detail::env_int64("tx.gasPrice"); }
inline int64_t feeLimit() { return detail::env_int64("tx.feeLimit"); }
}  // namespace tx

namespace msg {
inline void initiator(std::string& out) { detail::env_string("msg.initiator", out); }
inline void sender(std::string& out) { detail::env_string("msg.sender", out); }
// Coins of this payment; 0 in a query.
inline int64_t coinAmount() { return detail::env_int64("msg.coinAmount"); }
inline int64_t nonce() { return detail::env_int64("msg.nonce"); }
inline int64_t operationIndex() { return detail::env_int64("msg.operationIndex"); }
// For an asset payment: true with its issuer, code and amount; false for a coin payment or a query.
inline bool asset(std::string& issuer, std::string& code, int64_t& amount) {
  json::value v = detail::env("msg.asset"), key, x;
  if (!json::member(v, "key", key)) return false;
  if (!json::member(key, "issuer", x) || !json::as_text(x, issuer)) return false;
  if (!json::member(key, "code", x) || !json::as_text(x, code)) return false;
  return json::member(v, "amount", x) && json::as_int64(x, amount);
}
}  // namespace msg

}  // namespace chain

namespace utils {

// Text to callContract's logs (in a query) or the node's log.
inline void log(std::string_view info) { call("log", json::array{}.str(info)); }

// 1: goes on. 0: fails the transaction with `message`. Anything else fails too (as Utils.assert).
inline void check(int64_t cond, std::string_view message) {
  if (cond == 1) return;
  if (cond == 0) fail(message);
  fail("Assertion exception occurred,parameter 0 should be boolean");
}

// 0 for a valid address, -1 otherwise.
inline int32_t addressCheck(std::string_view address) {
  if (address.empty() || address.size() > 1024) return -1;
  json::value v = call("addressCheck", json::array{}.str(address));
  return v.type == json::kind::boolean && v.b ? 0 : -1;
}

// 64-bit arithmetic inside the module, with the messages of Utils.int64* (docs/contracts.md §8).
inline int64_t int64Add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail("Contract execution error, int64Add, parameter 0 + parameter 1 overflowed");
  return r;
}
inline int64_t int64Sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) fail("Contract execution error, int64Sub, parameter 0 - parameter 1 overflowed");
  return r;
}
inline int64_t int64Mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail("Contract execution error, int64Mul, parameter 0 * parameter 1 overflowed");
  return r;
}
inline int64_t int64Div(int64_t a, int64_t b) {
  if (a < 0 || b <= 0) fail("Parameter arg <= 0");
  return a / b;
}
inline int64_t int64Mod(int64_t a, int64_t b) {
  if (a < 0 || b <= 0) fail("Parameter arg <= 0");
  return a % b;
}

// SHA-256 of the bytes of `data` as lowercase hex; false for empty data. The bytes go as hex
// (type 0), so any byte string hashes exactly.
inline bool sha256(std::string_view data, std::string& out) {
  static const char hex[] = "0123456789abcdef";
  std::string h;
  h.reserve(data.size() * 2);
  for (unsigned char c : data) {
    h += hex[c >> 4];
    h += hex[c & 15];
  }
  json::value v = call("sha256", json::array{}.str(h).number(0));
  if (v.type == json::kind::string) { out = v.text; return true; }
  out.clear();
  return false;
}

}  // namespace utils
}  // namespace chainsim
