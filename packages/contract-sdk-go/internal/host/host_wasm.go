//go:build wasm

// Package host is the one place that talks to the validator: the two imports of docs/wasm-abi.md §3.
package host

import "unsafe"

//go:wasmimport env call
func hostCall(namePtr, nameLen, argsPtr, argsLen uint32) uint32

//go:wasmimport env result
func hostResult(ptr uint32)

// Results up to this size are copied into a static buffer. Each Go allocation costs thousands of
// metered instructions, the first of a size class tens of thousands (docs/wasm-abi.md §7), so
// the SDK avoids them where it can.
var resultBuf [2048]byte

// Call runs built-in name with args (a JSON array) and returns its JSON result. The bytes are
// valid until the next Call.
func Call(name string, args []byte) []byte {
	var ap uint32
	if len(args) > 0 {
		ap = uint32(uintptr(unsafe.Pointer(&args[0])))
	}
	n := hostCall(uint32(uintptr(unsafe.Pointer(unsafe.StringData(name)))), uint32(len(name)), ap, uint32(len(args)))
	if n == 0 {
		return nil
	}
	out := resultBuf[:]
	if int(n) > len(out) {
		out = make([]byte, n)
	}
	out = out[:n]
	hostResult(uint32(uintptr(unsafe.Pointer(&out[0]))))
	return out
}
