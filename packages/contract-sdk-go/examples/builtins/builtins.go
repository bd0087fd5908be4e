// Every built-in of the Go SDK, the Go twin of packages/contract-sdk-cpp/examples/builtins.cpp: the
// same actions with the same results, then a few Go-only ones. Each action returns (chain.Return) what
// a test can check. Inputs are {"method":"<action>","params":{...}}; receive reads "args".
package main

import (
	"strconv"

	"chainsim.dev/contract-sdk-go/chain"
	"chainsim.dev/contract-sdk-go/utils"
)

func arg(name string) string { return chain.GetArgsString(name) }

func or(v string, ok bool, none string) string {
	if !ok {
		return none
	}
	return v
}

// none gives "(none)" for a read that found nothing.
func none(v string, ok bool) string { return or(v, ok, "(none)") }

func b(v bool) string { return strconv.FormatBool(v) }

func num(n int64) string { return strconv.FormatInt(n, 10) }

// kv: store, load; returns what load read back.
func kv() string {
	chain.Store(arg("key"), arg("value"))
	v, ok := chain.Load(arg("key"))
	chain.Assert(ok, "load after store found nothing")
	return v
}

// remove: del; true when the key is gone afterwards.
func remove() bool {
	chain.Del(arg("key"))
	_, ok := chain.Load(arg("key"))
	return !ok
}

// whoami: block, tx, msg, thisAddress as name=value pairs (coinAmount 0 in a query, as in C++).
func whoami() string {
	coin := orZero(chain.MsgCoinAmount())
	return "block.timestamp=" + num(chain.BlockTimestamp()) + ";block.number=" + num(chain.BlockNumber()) +
		";tx.initiator=" + chain.TxInitiator() + ";tx.sender=" + chain.TxSender() + ";tx.hash=" + chain.TxHash() +
		";tx.gasPrice=" + chain.TxGasPrice() + ";tx.feeLimit=" + chain.TxFeeLimit() +
		";msg.initiator=" + chain.MsgInitiator() + ";msg.sender=" + chain.MsgSender() + ";msg.coinAmount=" + coin +
		";msg.nonce=" + num(chain.MsgNonce()) + ";msg.operationIndex=" + num(chain.MsgOperationIndex()) +
		";thisAddress=" + chain.ThisAddress()
}

func orZero(v string, ok bool) string { return or(v, ok, "0") }

// account: "<balance or -1>|<metadata or (none)>".
func account() string {
	bal, ok := chain.GetBalance(arg("address"))
	meta, mok := chain.GetAccountMetadata(arg("address"), arg("key"))
	return or(bal, ok, "-1") + "|" + or(meta, mok, "(none)")
}

// blockhash: the hash of ledger number-1-offset, or "(none)".
func blockhash() string {
	offset, err := strconv.ParseInt(arg("offset"), 10, 64)
	if err != nil {
		return "(none)"
	}
	h, ok := chain.GetBlockHash(offset)
	return or(h, ok, "(none)")
}

// logs: tlog with one and with five data, and utils.Log.
func logs() bool {
	chain.Tlog(arg("topic"), arg("data"))
	chain.Tlog(arg("topic"), arg("data"), "2", "3", "4", "5")
	utils.Log(arg("data"))
	return true
}

// math: "a+b,a-b,a*b,a/b,a%b".
func math() string {
	a, c := arg("a"), arg("b")
	return utils.Int64Add(a, c) + "," + utils.Int64Sub(a, c) + "," + utils.Int64Mul(a, c) + "," +
		utils.Int64Div(a, c) + "," + utils.Int64Mod(a, c)
}

// check: cond 1 passes and returns "passed"; anything else fails with message.
func check() string {
	chain.Assert(arg("cond") == "1", arg("message"))
	return "passed"
}

// hash: SHA-256 of the bytes of data, hex, or "(none)".
func hash() string {
	h, ok := utils.Sha256(arg("data"), utils.Raw)
	return or(h, ok, "(none)")
}

// codec: pack (text, n, flag, []uint32{1, 2}), unpack it again; returns the base64.
func codec() string {
	n, err := strconv.ParseInt(arg("n"), 10, 64)
	chain.Assert(err == nil, "n must be an integer")
	flag := arg("flag") == "true" || arg("flag") == "1"
	var p utils.Pack
	p.String(arg("text")).I64(n).Bool(flag).Len(2).U32(1).U32(2)
	b64 := p.Base64()
	u := utils.UnpackBase64(b64)
	ok := u.String() == arg("text") && u.I64() == n && u.Bool() == flag && u.Len() == 2 && u.U32() == 1 && u.U32() == 2
	chain.Assert(ok && u.Rest() == 0, "pack/unpack round trip differs")
	return b64
}

// param: the param named by name, or "(none)".
func param() string { return none(chain.LookupArgsString(arg("name"))) }

// types: the params s, i, u, n, b as text.
func types() string {
	return arg("s") + "," + arg("i") + "," + arg("u") + "," + arg("n") + "," + arg("b")
}

func text(r chain.Result, ok bool, none string) string {
	if !ok || (!r.IsString() && !r.Bool()) {
		return none
	}
	return r.String()
}

// nested: contractCall and contractQuery into target: "call=<result>;query=<result>".
func nested() string {
	c := chain.ContractCall(arg("target"), "0", arg("input"))
	q, ok := chain.ContractQuery(arg("target"), arg("input"))
	return "call=" + text(c, true, "(false)") + ";query=" + text(q, ok, "(error)")
}

// delegate: delegateCall and delegateQuery into target, run on this contract's storage.
func delegate() string {
	c := chain.DelegateCall(arg("target"), arg("input"))
	q, ok := chain.DelegateQuery(arg("target"), arg("input"))
	return "call=" + text(c, true, "(false)") + ";query=" + text(q, ok, "(error)")
}

// pay: payCoin with packed args; target (another builtins contract) runs receive("hello", 7).
func pay() bool {
	var p utils.Pack
	p.String("hello").I64(7)
	input := `{"method":"receive","args":"` + p.Base64() + `"}`
	chain.PayCoin(arg("target"), arg("amount"), input, "from builtins")
	return true
}

// receive: what pay runs on the payee; stores "note,n,coinAmount,sender".
func receive() {
	u := utils.UnpackBase64(chain.Args())
	note, n := u.String(), u.I64()
	chain.Store("received", note+","+num(n)+","+orZero(chain.MsgCoinAmount())+","+chain.MsgSender())
}

// gotasset: "issuer,code,amount" of an asset payment, "(coin)" otherwise.
func gotasset() string {
	amount, issuer, code, ok := chain.MsgAsset()
	if !ok {
		return "(coin)"
	}
	return issuer + "," + code + "," + amount
}

// asset: issueAsset, then payAsset of 1 to to.
func asset() bool {
	me := chain.ThisAddress()
	chain.IssueAsset(arg("code"), arg("amount"))
	chain.PayAsset(arg("to"), me, arg("code"), "1", "", "")
	return true
}

// Go-only: the built-ins the C++ example leaves out.

// reads: getAccountAsset, getAccountPrivilege, getContractProperty, toAddress, ecVerify, addressCheck.
func reads() string {
	addr := arg("address")
	typ, length, pok := chain.GetContractProperty(addr)
	return "asset=" + none(chain.GetAccountAsset(addr, arg("issuer"), arg("code"))) +
		";privilege=" + none(chain.GetAccountPrivilege(addr)) +
		";property=" + or(num(typ)+" "+num(length), pok, "(none)") +
		";toAddress=" + none(utils.ToAddress(arg("publicKey"))) +
		";ecVerify=" + b(utils.EcVerify(arg("signature"), arg("publicKey"), arg("data"), utils.Hex)) +
		";addressCheck=" + b(utils.AddressCheck(addr)) +
		";sha256hex=" + none(utils.Sha256("616263", utils.Hex))
}

// callasset: contractCall paying 1 of this contract's asset code.
func callasset() string {
	return text(chain.ContractCallAsset(arg("target"), chain.ThisAddress(), arg("code"), "1", arg("input")), true, "(false)")
}

// create: contractCreate of JavaScript code; returns the new address.
func create() string { return chain.ContractCreate("0", 0, arg("code"), arg("input")) }

// get (query): a stored value, or "(none)".
func get() string { return none(chain.Load(arg("key"))) }

func is(action uint64, method string) bool {
	n, err := utils.StringToName(method)
	return err == nil && n == action
}

//go:wasmexport apply
func apply(receiver, code, action uint64) {
	if code == 0 { // init, whatever the input
		chain.Store("created", "yes")
		return
	}
	switch {
	case is(action, "kv"):
		chain.Return(kv())
	case is(action, "remove"):
		chain.ReturnBool(remove())
	case is(action, "whoami"):
		chain.Return(whoami())
	case is(action, "account"):
		chain.Return(account())
	case is(action, "blockhash"):
		chain.Return(blockhash())
	case is(action, "logs"):
		chain.ReturnBool(logs())
	case is(action, "math"):
		chain.Return(math())
	case is(action, "check"):
		chain.Return(check())
	case is(action, "addr"):
		chain.ReturnBool(utils.AddressCheck(arg("address")))
	case is(action, "hash"):
		chain.Return(hash())
	case is(action, "codec"):
		chain.Return(codec())
	case is(action, "param"):
		chain.Return(param())
	case is(action, "types"):
		chain.Return(types())
	case is(action, "nested"):
		chain.Return(nested())
	case is(action, "delegate"):
		chain.Return(delegate())
	case is(action, "pay"):
		chain.ReturnBool(pay())
	case is(action, "receive"):
		receive()
	case is(action, "gotasset"):
		chain.Return(gotasset())
	case is(action, "asset"):
		chain.ReturnBool(asset())
	case is(action, "reads"):
		chain.Return(reads())
	case is(action, "callasset"):
		chain.Return(callasset())
	case is(action, "create"):
		chain.Return(create())
	case is(action, "get"):
		chain.Return(get())
	case is(action, "fatal"):
		chain.AssertFatal(arg("message"))
	case is(action, "recovered"):
		defer chain.RecoverPanic()
		var m map[string]int
		m[arg("message")] = 1 // a runtime error, recovered: fails with "panic: assignment to entry in nil map"
	case is(action, "panic"):
		panic("boom: " + arg("message")) // not recovered: a trap (docs/contracts-go.md §7)
	default:
		chain.AssertFatal(`unknown action "` + chain.Method() + `"`)
	}
}

func main() {}
