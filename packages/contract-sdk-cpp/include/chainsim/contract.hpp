// What a contract source includes: the contract base class, the marks that chainsim-cpp reads,
// and the built-ins under the names of the chain family's node API (chain::, utils::, ::pack).
#pragma once
#include <cstdint>
#include <string>

#include "base64.hpp"
#include "chain.hpp"
#include "host.hpp"
#include "json.hpp"
#include "pack.hpp"

// chainsim-cpp finds contracts and actions by these annotations in clang's AST
// (class CHAINSIM_CONTRACT token : public chainsim::contract { CHAINSIM_ACTION void f(...); };).
#define CHAINSIM_CONTRACT __attribute__((annotate("chainsim::contract")))
#define CHAINSIM_ACTION __attribute__((annotate("chainsim::action")))

namespace chainsim {

// The entry point of a run (docs/wasm-abi.md §2: apply's `code`).
enum class entry : uint64_t { init = 0, main = 1, query = 2 };

// Base class of every contract. The generated dispatcher default-constructs the contract once per
// run (each run is a fresh instance, so nothing survives in members) and calls one action.
class contract {
 public:
  contract() = default;
  entry get_entry() const { return entry_; }  // init, main or query
  uint64_t get_action() const { return action_; }  // StringToName of the action being run
  const std::string& get_input() const { return chain::input(); }

  // Called by the generated dispatcher before the action.
  void chainsim_bind(uint64_t code, uint64_t action) {
    entry_ = entry(code);
    action_ = action;
  }

 private:
  entry entry_ = entry::main;
  uint64_t action_ = 0;
};

// StringToName (docs/wasm-abi.md §4); 0 for a string that is not a name.
constexpr uint64_t string_to_name(std::string_view s) {
  if (s.size() > 13) return 0;
  uint64_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    uint64_t v = c == '.' ? 0 : (c >= '1' && c <= '5') ? uint64_t(c - '1' + 1)
               : (c >= 'a' && c <= 'z') ? uint64_t(c - 'a' + 6) : 99;
    if (v == 99 || (i == 12 && v > 15)) return 0;
    n |= i < 12 ? (v & 31) << (64 - 5 * (i + 1)) : (v & 15);
  }
  return n;
}
static_assert(string_to_name("transfer") == 14829575313431724032ull, "docs/wasm-abi.md §4");
static_assert(string_to_name("init") == 8421045207927095296ull, "docs/wasm-abi.md §4");
static_assert(string_to_name("a") == 3458764513820540928ull, "docs/wasm-abi.md §4");

}  // namespace chainsim

// The family's spellings at global scope. Define CHAINSIM_NO_GLOBAL_NAMES to keep only chainsim::.
#ifndef CHAINSIM_NO_GLOBAL_NAMES
namespace chain = chainsim::chain;
namespace utils = chainsim::utils;
using chainsim::decode_base64;
using chainsim::encode_base64;
using chainsim::pack;
using chainsim::unpack;
#endif
