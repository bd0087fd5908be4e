package host

import "chainsim.dev/contract-sdk-go/internal/jsonx"

// Fail ends the run with message (docs/wasm-abi.md §3, Control: `fail`). The host does not return.
func Fail(message string) {
	var w jsonx.Writer
	w.Begin()
	w.String(message)
	Call("fail", w.End())
	// Not reached on a validator; outside one, make sure the caller does not go on.
	panic("chainsim: fail: " + message)
}
