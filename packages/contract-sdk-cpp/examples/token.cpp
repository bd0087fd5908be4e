// A fungible token. Balances live in this contract's metadata under "balance:<address>".
//   init     {"method":"init","params":{"supply":"1000000"}}   the creator holds the supply
//   issue    {"method":"issue","params":{"amount":"500"}}       only the creator; adds to its balance
//   transfer {"method":"transfer","params":{"to":"did:bid:...","amount":"10"}}
//   balance  {"method":"balance","params":{"owner":"did:bid:..."}} (a query) returns the balance
#include <chainsim/contract.hpp>

class CHAINSIM_CONTRACT token : public chainsim::contract {
 public:
  CHAINSIM_ACTION void init(int64_t supply) {
    utils::check(supply >= 0, "supply must not be negative");
    std::string creator;
    chain::msg::sender(creator);
    chain::store("creator", creator);
    chain::store("supply", chainsim::i64_to_string(supply));
    set_balance(creator, supply);
  }

  CHAINSIM_ACTION void issue(int64_t amount) {
    utils::check(amount > 0, "amount must be positive");
    std::string sender, creator;
    chain::msg::sender(sender);
    chain::load("creator", creator);
    utils::check(sender == creator, "only the creator can issue");
    chain::store("supply", chainsim::i64_to_string(utils::int64Add(get("supply"), amount)));
    set_balance(sender, utils::int64Add(balance_of(sender), amount));
  }

  CHAINSIM_ACTION void transfer(std::string to, int64_t amount) {
    utils::check(utils::addressCheck(to) == 0, "invalid address");
    utils::check(amount > 0, "amount must be positive");
    std::string from;
    chain::msg::sender(from);
    int64_t have = balance_of(from);
    utils::check(have >= amount, "insufficient balance");
    set_balance(from, utils::int64Sub(have, amount));
    set_balance(to, utils::int64Add(balance_of(to), amount));
    chain::tlog("transfer", from, to, chainsim::i64_to_string(amount));
  }

  CHAINSIM_ACTION std::string balance(std::string owner) { return chainsim::i64_to_string(balance_of(owner)); }

 private:
  static int64_t get(const std::string& key) {
    std::string v;
    int64_t n = 0;
    if (chain::load(key, v)) utils::check(chainsim::parse_int64(v, n), "corrupt number");
    return n;
  }
  static int64_t balance_of(const std::string& owner) { return get("balance:" + owner); }
  static void set_balance(const std::string& owner, int64_t amount) {
    chain::store("balance:" + owner, chainsim::i64_to_string(amount));
  }
};
