// A fungible token, the Go twin of packages/contract-sdk-cpp/examples/token.cpp. Balances live in this
// contract's metadata under "balance:<address>".
//
//	init     {"method":"init","params":{"supply":"1000000"}}   the creator holds the supply
//	issue    {"method":"issue","params":{"amount":"500"}}       only the creator; adds to its balance
//	transfer {"method":"transfer","params":{"to":"did:bid:...","amount":"10"}}
//	balance  {"method":"balance","params":{"owner":"did:bid:..."}} (a query) returns the balance
//
// Build: chainsim-go build . -o token.wasm (docs/contracts-go.md).
package main

import (
	"chainsim.dev/contract-sdk-go/chain"
	"chainsim.dev/contract-sdk-go/utils"
)

// Entry points: apply's code (docs/wasm-abi.md §2).
const (
	codeInit  = 0
	codeMain  = 1
	codeQuery = 2
)

// positive tells whether s is a canonical int64 > 0 (or ≥ 0 with zeroOK).
func positive(s string, zeroOK bool) bool {
	return utils.StoI64Check(s) && s[0] != '-' && (zeroOK || s != "0")
}

func get(key string) string {
	if v, ok := chain.Load(key); ok {
		return v
	}
	return "0"
}

func balanceOf(owner string) string { return get("balance:" + owner) }

func setBalance(owner, amount string) { chain.Store("balance:"+owner, amount) }

func initToken() {
	supply := chain.GetArgsString("supply")
	chain.Assert(positive(supply, true), "supply must not be negative")
	creator := chain.MsgSender()
	chain.Store("creator", creator)
	chain.Store("supply", supply)
	setBalance(creator, supply)
}

func issue() {
	amount := chain.GetArgsString("amount")
	chain.Assert(positive(amount, false), "amount must be positive")
	sender := chain.MsgSender()
	creator, _ := chain.Load("creator")
	chain.Assert(sender == creator, "only the creator can issue")
	chain.Store("supply", utils.Int64Add(get("supply"), amount))
	setBalance(sender, utils.Int64Add(balanceOf(sender), amount))
}

func transfer() {
	to, amount := chain.GetArgsString("to"), chain.GetArgsString("amount")
	// Constant messages: a concatenated one would be built (and paid for) on every run.
	chain.Assert(utils.AddressCheck(to), "invalid address")
	chain.Assert(positive(amount, false), "amount must be positive")
	from := chain.MsgSender()
	have := balanceOf(from)
	chain.Assert(utils.Int64Compare(have, amount) >= 0, "insufficient balance")
	setBalance(from, utils.Int64Sub(have, amount))
	setBalance(to, utils.Int64Add(balanceOf(to), amount))
	chain.Tlog("transfer", from, to, amount)
}

// is tells whether action is the name of method (docs/wasm-abi.md §4).
func is(action uint64, method string) bool {
	n, err := utils.StringToName(method)
	return err == nil && n == action
}

//go:wasmexport apply
func apply(receiver, code, action uint64) {
	defer chain.RecoverPanic() // a Go panic fails the run with its text (docs/contracts-go.md §7)
	switch {
	case code == codeInit: // creation runs only init, whatever the method
		initToken()
	case code == codeMain && is(action, "issue"):
		issue()
	case code == codeMain && is(action, "transfer"):
		transfer()
	case code == codeQuery && is(action, "balance"):
		chain.Return(balanceOf(chain.GetArgsString("owner")))
	default:
		chain.AssertFatal(`unknown action "` + chain.Method() + `"`)
	}
}

// main is required by -buildmode=c-shared and never runs on the chain.
func main() {}
