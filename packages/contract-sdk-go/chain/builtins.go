package chain

import (
	"chainsim.dev/contract-sdk-go/internal/host"
	"chainsim.dev/contract-sdk-go/internal/jsonx"
)

// Storage, accounts and payments: JavaScript's Chain.* of docs/contracts.md §7, same arguments.

// Load reads key of this contract's storage; ok is false when it is missing.
func Load(key string) (string, bool) { return str("load", key) }

// Store writes key. A bad key or value ends the run.
func Store(key, value string) { exec("store", key, value) }

// Del deletes key. A missing key fails the transaction (code 4).
func Del(key string) { exec("del", key) }

// GetBalance is the coin balance of address ("0" for nobody's); ok is false for an invalid address.
func GetBalance(address string) (string, bool) { return str("getBalance", address) }

// GetAccountMetadata reads another account's storage.
func GetAccountMetadata(address, key string) (string, bool) {
	return str("getAccountMetadata", address, key)
}

// GetAccountAsset is how much of asset (issuer, code) address holds.
func GetAccountAsset(address, issuer, code string) (string, bool) {
	var w jsonx.Writer
	w.Begin()
	w.String(address)
	w.Raw(assetKey(issuer, code))
	return jsonx.TextBytes(host.Call("getAccountAsset", w.End()))
}

// GetAccountPrivilege is the privilege of address as a JSON string.
func GetAccountPrivilege(address string) (string, bool) {
	return str("getAccountPrivilege", address)
}

// GetContractProperty gives the contract type (-1 without code) and code length of address.
func GetContractProperty(address string) (typ, length int64, ok bool) {
	r := call("getContractProperty", address)
	t, ok1 := r.Field("type")
	l, ok2 := r.Field("length")
	return number(t), number(l), ok1 && ok2
}

// GetBlockHash is the hash of ledger BlockNumber()-1-offset, offset in [0, 1024).
func GetBlockHash(offset int64) (string, bool) {
	var w jsonx.Writer
	w.Begin()
	w.Int(offset)
	return jsonx.TextBytes(host.Call("getBlockHash", w.End()))
}

// Tlog records a log with a topic and one to five data.
func Tlog(topic string, data ...string) { exec("tlog", append([]string{topic}, data...)...) }

// optional drops trailing empty input/metadata the way JavaScript callers leave them out
// (metadata needs input, docs/contracts.md §7).
func optional(args []string, input, metadata string) []string {
	if metadata != "" {
		return append(args, input, metadata)
	}
	if input != "" {
		return append(args, input)
	}
	return args
}

// PayCoin pays amount coins (decimal) to address; input is what a contract there receives.
func PayCoin(address, amount, input, metadata string) {
	exec("payCoin", optional([]string{address, amount}, input, metadata)...)
}

// PayAsset pays amount of asset (issuer, code) to address.
func PayAsset(address, issuer, code, amount, input, metadata string) {
	exec("payAsset", optional([]string{address, issuer, code, amount}, input, metadata)...)
}

// IssueAsset issues amount of this contract's asset code.
func IssueAsset(code, amount string) { exec("issueAsset", code, amount) }

func assetKey(issuer, code string) string {
	return `{"issuer":` + jsonx.Quote(issuer) + `,"code":` + jsonx.Quote(code) + `}`
}

func contractCall(address, asset, amount, input string) Result {
	var w jsonx.Writer
	w.Begin()
	w.String(address)
	w.Raw(asset)
	w.String(amount)
	w.String(input)
	return Result(host.Call("contractCall", w.End()))
}

// ContractCall pays amount coins to address with input and returns what its main returned
// (a string or boolean; true for an account without code, false when main returned nothing).
func ContractCall(address, amount, input string) Result {
	return contractCall(address, "true", amount, input)
}

// ContractCallAsset is ContractCall paying amount of asset (issuer, code).
func ContractCallAsset(address, issuer, code, amount, input string) Result {
	return contractCall(address, assetKey(issuer, code), amount, input)
}

// queryResult turns {result: value} into (value, true) and {error: true} into ("", false).
func queryResult(r Result) (Result, bool) {
	if v, ok := r.Field("result"); ok {
		return v, true
	}
	return "", false
}

// ContractQuery runs address's query with input; ok is false when it failed.
func ContractQuery(address, input string) (Result, bool) {
	return queryResult(call("contractQuery", address, input))
}

// DelegateCall runs address's main on this contract's storage and returns its result.
func DelegateCall(address, input string) Result { return call("delegateCall", address, input) }

// DelegateQuery runs address's query on this contract's storage.
func DelegateQuery(address, input string) (Result, bool) {
	return queryResult(call("delegateQuery", address, input))
}

// ContractCreate creates a contract of type typ (docs/contracts.md §7: 0, JavaScript) with code,
// balance coins and init input; it returns the new address.
func ContractCreate(balance string, typ int64, code, input string) string {
	var w jsonx.Writer
	w.Begin()
	w.String(balance)
	w.Int(typ)
	w.String(code)
	w.String(input)
	s, _ := jsonx.TextBytes(host.Call("contractCreate", w.End()))
	return s
}
