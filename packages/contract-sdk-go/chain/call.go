// Package chain is what a Go contract asks of the chain: storage, payments, nested calls, the
// environment and the run's result. Every function is one `call` of docs/wasm-abi.md §3 with the
// arguments and results of JavaScript's Chain.* (docs/contracts.md §7, §9).
//
// Errors: a read that finds nothing gives ok == false; a write the chain refuses ends the run
// (docs/wasm-abi.md §3, Failures), so write functions return nothing to check.
package chain

import (
	"chainsim.dev/contract-sdk-go/internal/host"
	"chainsim.dev/contract-sdk-go/internal/jsonx"
)

// Result is a built-in's JSON result, kept as its raw text.
type Result string

// IsString tells whether the result is a JSON string.
func (r Result) IsString() bool { return jsonx.IsString(string(r)) }

// String is the result as text: a string decoded, true/false/numbers as their JSON text.
func (r Result) String() string { return jsonx.Text(string(r)) }

// Bool is true only for the JSON value true.
func (r Result) Bool() bool { return r == "true" }

// Field is the member key of an object result.
func (r Result) Field(key string) (Result, bool) {
	v, ok := jsonx.Field(string(r), key)
	return Result(v), ok
}

// Call runs any built-in by name with args already encoded as a JSON array (e.g. `["k"]`),
// for built-ins this package has no function for.
func Call(name, argsJSON string) Result { return Result(host.Call(name, []byte(argsJSON))) }

func strings(args []string) []byte {
	var w jsonx.Writer
	w.Begin()
	for _, a := range args {
		w.String(a)
	}
	return w.End()
}

// call keeps the whole result; exec ignores it (writes answer true or end the run); str wants a
// string, with ok == false for anything else (`false`: nothing found). str and exec copy less.
func call(name string, args ...string) Result { return Result(host.Call(name, strings(args))) }

func exec(name string, args ...string) { host.Call(name, strings(args)) }

func str(name string, args ...string) (string, bool) {
	return jsonx.TextBytes(host.Call(name, strings(args)))
}

func number[T string | Result | []byte](r T) int64 {
	var n int64
	neg := false
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '-' && i == 0 {
			neg = true
		} else if c >= '0' && c <= '9' {
			n = n*10 + int64(c-'0')
		} else {
			break
		}
	}
	if neg {
		return -n
	}
	return n
}
