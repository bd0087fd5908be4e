package chain

import "chainsim.dev/contract-sdk-go/internal/host"

// RecoverPanic, deferred first thing in apply, turns a Go panic into a failed run whose message is
// the panic's text: `defer chain.RecoverPanic()`.
//
// Why: in a -buildmode=c-shared module Go's runtime ends a panic with a trap, not proc_exit, and
// before printing the panic it sleeps through WASI poll_oneoff, which docs/wasm-abi.md §6 answers
// with ENOSYS; the runtime then dies with "fatal error: wasi_snapshot_preview1.poll_oneoff" and the
// panic's own text never reaches fd 2. Recovering here reports it through `fail` instead.
func RecoverPanic() {
	v := recover()
	if v == nil {
		return
	}
	msg := "panic"
	switch e := v.(type) {
	case string:
		msg = "panic: " + e
	case error:
		msg = "panic: " + e.Error()
	}
	host.Fail(msg)
}
