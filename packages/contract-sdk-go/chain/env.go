package chain

import (
	"chainsim.dev/contract-sdk-go/internal/host"
	"chainsim.dev/contract-sdk-go/internal/jsonx"
)

// The environment of the run (docs/contracts.md §9). Each value is asked of the host when read;
// nothing is computed at package initialisation, which every run pays for (docs/wasm-abi.md §2).

func env(name string) string {
	s, _ := str(name)
	return s
}

// The input and its params, read once per run (an instance serves one run, docs/wasm-abi.md §2).
var (
	input, params string
	inputRead     bool
)

// Input is the run's whole input string.
func Input() string {
	if !inputRead {
		input, _ = str("input")
		params, _ = jsonx.Field(input, "params")
		inputRead = true
	}
	return input
}

// Method is the input's "method", or "" when the input names none (an empty input runs the entry point
// itself: apply's code says which).
func Method() string {
	v, _ := jsonx.Field(Input(), "method")
	return jsonx.Text(v)
}

// GetArgsString is the input's params[name]: a string as is, a number or boolean as its JSON text,
// an object or array as its JSON text, and "" when missing or null.
func GetArgsString(name string) string {
	v, _ := LookupArgsString(name)
	return v
}

// LookupArgsString is GetArgsString with ok == false when the param is missing or null.
func LookupArgsString(name string) (string, bool) {
	Input()
	v, ok := jsonx.Field(params, name)
	if !ok || v == "null" {
		return "", false
	}
	return jsonx.Text(v), true
}

// Args is the input's "args": a packed tuple in base64 (docs/wasm-abi.md §5); utils.Unpack reads it.
func Args() string {
	v, _ := jsonx.Field(Input(), "args")
	return jsonx.Text(v)
}

// ThisAddress is the contract whose storage this run uses (the caller's in a delegateCall).
func ThisAddress() string { return env("thisAddress") }

// BlockTimestamp is the ledger's close time in microseconds.
func BlockTimestamp() int64 { return number(host.Call("block.timestamp", strings(nil))) }

// BlockNumber is the ledger being built.
func BlockNumber() int64 { return number(host.Call("block.number", strings(nil))) }

// TxInitiator is the source of the user's transaction.
func TxInitiator() string { return env("tx.initiator") }

// TxSender is the source of the user's operation being applied.
func TxSender() string { return env("tx.sender") }

// TxHash is the user transaction's hash ("" in a query).
func TxHash() string { return env("tx.hash") }

// TxGasPrice is the user transaction's gas price, decimal ("0" in a query).
func TxGasPrice() string { return env("tx.gasPrice") }

// TxFeeLimit is the user transaction's fee limit, decimal ("0" in a query).
func TxFeeLimit() string { return env("tx.feeLimit") }

// MsgInitiator: see docs/contracts.md §9.
func MsgInitiator() string { return env("msg.initiator") }

// MsgSender is who sent this message: the operation's source, or the calling contract.
func MsgSender() string { return env("msg.sender") }

// MsgCoinAmount is the coins of this payment; ok is false in a query.
func MsgCoinAmount() (string, bool) { return str("msg.coinAmount") }

// MsgNonce: see docs/contracts.md §9.
func MsgNonce() int64 { return number(host.Call("msg.nonce", strings(nil))) }

// MsgOperationIndex is the index of the user's operation (0 in a nested call).
func MsgOperationIndex() int64 { return number(host.Call("msg.operationIndex", strings(nil))) }

// MsgAsset is the asset of an asset payment; ok is false otherwise.
func MsgAsset() (amount, issuer, code string, ok bool) {
	r := call("msg.asset")
	a, ok1 := r.Field("amount")
	k, ok2 := r.Field("key")
	if !ok1 || !ok2 {
		return "", "", "", false
	}
	i, _ := k.Field("issuer")
	c, _ := k.Field("code")
	return a.String(), i.String(), c.String(), true
}
