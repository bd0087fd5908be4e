package chain

import (
	"chainsim.dev/contract-sdk-go/internal/host"
	"chainsim.dev/contract-sdk-go/internal/jsonx"
)

// Assert ends the run with message when condition is false (docs/wasm-abi.md §3: `fail`, code 151).
func Assert(condition bool, message string) {
	if !condition {
		host.Fail(message)
	}
}

// AssertFatal ends the run with message.
func AssertFatal(message string) { host.Fail(message) }

// Return sets the run's result: what a query answers, or what contractCall into this contract returns.
// The last call wins.
func Return(value string) { exec("return", value) }

// ReturnBool sets a boolean result.
func ReturnBool(value bool) {
	var w jsonx.Writer
	w.Begin()
	w.Bool(value)
	host.Call("return", w.End())
}
