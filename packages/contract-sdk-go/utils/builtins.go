package utils

import (
	"chainsim.dev/contract-sdk-go/internal/host"
	"chainsim.dev/contract-sdk-go/internal/jsonx"
)

// Built-ins the host answers (docs/wasm-abi.md §3, Utils built-ins). Hashing and signatures run in the
// host so that a module does not link crypto/* (more WASI imports and init, docs/wasm-design.md).

func call(name string, args []string, n ...int64) []byte {
	var w jsonx.Writer
	w.Begin()
	for _, a := range args {
		w.String(a)
	}
	for _, v := range n {
		w.Int(v)
	}
	return host.Call(name, w.End())
}

func text(raw []byte) (string, bool) { return jsonx.TextBytes(raw) }

func isTrue(raw []byte) bool { return string(raw) == "true" }

// Log writes text to callContract's logs in a query, to the node's log in a transaction.
func Log(text string) { call("log", []string{text}) }

// Data types of Sha256 and EcVerify.
const (
	Hex    = 0
	Raw    = 1
	Base64 = 2
)

// Sha256 is the lowercase hex SHA-256 of data decoded as typ (Hex, Raw or Base64); ok is false
// for invalid or empty data.
func Sha256(data string, typ int) (string, bool) {
	return text(call("sha256", []string{data}, int64(typ)))
}

// EcVerify tells whether signature (hex) is publicKey's Ed25519 signature over data decoded as typ.
func EcVerify(signature, publicKey, data string, typ int) bool {
	return isTrue(call("ecVerify", []string{signature, publicKey, data}, int64(typ)))
}

// AddressCheck tells whether address is valid.
func AddressCheck(address string) bool { return isTrue(call("addressCheck", []string{address})) }

// ToAddress is the address of a public key; ok is false for an invalid key.
func ToAddress(publicKey string) (string, bool) { return text(call("toAddress", []string{publicKey})) }
