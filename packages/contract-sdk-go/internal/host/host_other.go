//go:build !wasm

package host

// Handler answers Call outside wasm, so the SDK's pure Go code can be tested with `go test`.
var Handler func(name string, args []byte) string

// Call runs built-in name through Handler.
func Call(name string, args []byte) []byte {
	if Handler == nil {
		panic("chainsim: built-in " + name + " called outside a wasm module")
	}
	return []byte(Handler(name, args))
}
