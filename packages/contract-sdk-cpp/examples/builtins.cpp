// One action per group of built-ins, each returning (or storing) what a test can check.
// Inputs are {"method":"<action>","params":{...}} or {"method":"<action>","args":"<base64 of ::pack>"}.
#include <chainsim/contract.hpp>

using chainsim::i64_to_string;

class CHAINSIM_CONTRACT builtins : public chainsim::contract {
 public:
  CHAINSIM_ACTION void init() { chain::store("created", "yes"); }

  // store, load: returns what load read back.
  CHAINSIM_ACTION std::string kv(std::string key, std::string value) {
    chain::store(key, value);
    std::string out;
    utils::check(chain::load(key, out), "load after store found nothing");
    return out;
  }

  // del: returns true when the key is gone afterwards.
  CHAINSIM_ACTION bool remove(std::string key) {
    chain::del(key);
    std::string out;
    return !chain::load(key, out);
  }

  // block, tx, msg, thisAddress: one line of name=value pairs.
  CHAINSIM_ACTION std::string whoami() {
    std::string s, v;
    s += "block.timestamp=" + i64_to_string(chain::block::timestamp());
    s += ";block.number=" + i64_to_string(chain::block::number());
    chain::tx::initiator(v), s += ";tx.initiator=" + v;
    chain::tx::sender(v), s += ";tx.sender=" + v;
    chain::tx::hash(v), s += ";tx.hash=" + v;
    s += ";tx.gasPrice=" + i64_to_string(chain::tx::gasPrice());
    s += ";tx.feeLimit=" + i64_to_string(chain::tx::feeLimit());
    chain::msg::initiator(v), s += ";msg.initiator=" + v;
    chain::msg::sender(v), s += ";msg.sender=" + v;
    s += ";msg.coinAmount=" + i64_to_string(chain::msg::coinAmount());
    s += ";msg.nonce=" + i64_to_string(chain::msg::nonce());
    s += ";msg.operationIndex=" + i64_to_string(chain::msg::operationIndex());
    chain::thisAddress(v), s += ";thisAddress=" + v;
    return s;
  }

  // getBalance, getAccountMetadata: "<balance>|<value or (none)>".
  CHAINSIM_ACTION std::string account(std::string address, std::string key) {
    std::string meta;
    if (!chain::getAccountMetadata(address, key, meta)) meta = "(none)";
    return i64_to_string(chain::getBalance(address)) + "|" + meta;
  }

  // getBlockHash: the hash, or "(none)".
  CHAINSIM_ACTION std::string blockhash(int64_t offset) {
    std::string h;
    return chain::getBlockHash(offset, h) ? h : "(none)";
  }

  // tlog with one and with five data, and utils::log.
  CHAINSIM_ACTION bool logs(std::string topic, std::string data) {
    chain::tlog(topic, data);
    chain::tlog(topic, data, "2", "3", "4", "5");
    utils::log(data);
    return true;
  }

  // int64Add/Sub/Mul/Div/Mod: "a+b,a-b,a*b,a/b,a%b".
  CHAINSIM_ACTION std::string math(int64_t a, int64_t b) {
    return i64_to_string(utils::int64Add(a, b)) + "," + i64_to_string(utils::int64Sub(a, b)) + "," +
           i64_to_string(utils::int64Mul(a, b)) + "," + i64_to_string(utils::int64Div(a, b)) + "," +
           i64_to_string(utils::int64Mod(a, b));
  }

  // utils::check: 1 passes and returns "passed"; 0 fails with the message; anything else fails too.
  CHAINSIM_ACTION std::string check(int64_t cond, std::string message) {
    utils::check(cond, message);
    return "passed";
  }

  // utils::addressCheck: true for a valid address.
  CHAINSIM_ACTION bool addr(std::string address) { return utils::addressCheck(address) == 0; }

  // utils::sha256 of the bytes of data, hex.
  CHAINSIM_ACTION std::string hash(std::string data) {
    std::string h;
    return utils::sha256(data, h) ? h : "(none)";
  }

  // ::pack / ::unpack and base64 round trip; returns the base64 of the packed tuple.
  CHAINSIM_ACTION std::string codec(std::string text, int64_t n, bool flag) {
    std::string b64 = encode_base64(::pack(std::make_tuple(text, n, flag, std::vector<uint32_t>{1, 2})));
    auto t = ::unpack<std::tuple<std::string, int64_t, bool, std::vector<uint32_t>>>(decode_base64(b64));
    utils::check(std::get<0>(t) == text && std::get<1>(t) == n && std::get<2>(t) == flag && std::get<3>(t).size() == 2,
                 "pack/unpack round trip differs");
    return b64;
  }

  // The param named by `name`, read from the input's params (chain::getParam).
  CHAINSIM_ACTION std::string param(std::string name) {
    std::string v;
    return chain::getParam(name, v) ? v : "(none)";
  }

  // Every parameter type.
  CHAINSIM_ACTION std::string types(std::string s, int64_t i, uint64_t u, int32_t n, bool b) {
    return s + "," + i64_to_string(i) + "," + chainsim::u64_to_string(u) + "," + i64_to_string(n) + "," + (b ? "true" : "false");
  }

  // contractCall and contractQuery into `target`: "call=<result>;query=<result>".
  CHAINSIM_ACTION std::string nested(std::string target, std::string input) {
    std::string c, q;
    bool called = chain::contractCall(target, 0, input, c);
    bool queried = chain::contractQuery(target, input, q);
    return "call=" + (called ? c : "(false)") + ";query=" + (queried ? q : "(error)");
  }

  // delegateCall and delegateQuery into `target`, run on this contract's storage.
  CHAINSIM_ACTION std::string delegate(std::string target, std::string input) {
    std::string c, q;
    bool called = chain::delegateCall(target, input, c);
    bool queried = chain::delegateQuery(target, input, q);
    return "call=" + (called ? c : "(false)") + ";query=" + (queried ? q : "(error)");
  }

  // payCoin with a method and packed args: `target` (another builtins contract) runs receive("hello", 7).
  CHAINSIM_ACTION bool pay(std::string target, int64_t amount) {
    std::string abicode = encode_base64(::pack(std::string("hello"), int64_t(7)));
    return chain::payCoin(target, amount, "receive", abicode, "from builtins") == 0;
  }

  // What pay() runs on the payee: stores what it got and who paid.
  CHAINSIM_ACTION void receive(std::string note, int64_t n) {
    std::string sender;
    chain::msg::sender(sender);
    chain::store("received", note + "," + i64_to_string(n) + "," + i64_to_string(chain::msg::coinAmount()) + "," + sender);
  }

  // msg::asset: "issuer,code,amount" of an asset payment, "(coin)" otherwise.
  CHAINSIM_ACTION std::string gotasset() {
    std::string issuer, code;
    int64_t amount = 0;
    if (!chain::msg::asset(issuer, code, amount)) return "(coin)";
    return issuer + "," + code + "," + i64_to_string(amount);
  }

  // issueAsset, then payAsset of 1 to `to`.
  CHAINSIM_ACTION bool asset(std::string code, int64_t amount, std::string to) {
    std::string me;
    chain::thisAddress(me);
    chain::issueAsset(code, amount);
    return chain::payAsset(to, me, code, 1) == 0;
  }
};
