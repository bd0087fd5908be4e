package utils

import (
	"strconv"

	"chainsim.dev/contract-sdk-go/internal/host"
)

// 64-bit arithmetic on canonical decimal strings, done inside the module (docs/wasm-abi.md §3) with
// the ranges and failure messages of JavaScript's Utils.int64* (docs/contracts.md §8). A failure ends
// the run with that message.

// StoI64Check tells whether s is a canonical int64: "-5", "0"; not "+5", "05", "-0", "5.0".
func StoI64Check(s string) bool {
	_, ok := parse(s)
	return ok
}

func parse(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != s {
		return 0, false
	}
	return n, true
}

func operands(op, a, b string) (int64, int64) {
	x, ok := parse(a)
	if !ok {
		host.Fail("Contract execution error, " + op + ", parameter 0 illegal, maybe exceed the limit value of int64.")
	}
	y, ok := parse(b)
	if !ok {
		host.Fail("Contract execution error, " + op + ", parameter 1 illegal, maybe exceed the limit value of int64.")
	}
	return x, y
}

func overflow(op, sign string) {
	host.Fail("Contract execution error, " + op + ", parameter 0 " + sign + " parameter 1 overflowed")
}

// Int64Add is a + b.
func Int64Add(a, b string) string {
	x, y := operands("int64Add", a, b)
	r := x + y
	if (y > 0 && r < x) || (y < 0 && r > x) {
		overflow("int64Add", "+")
	}
	return strconv.FormatInt(r, 10)
}

// Int64Sub is a - b.
func Int64Sub(a, b string) string {
	x, y := operands("int64Sub", a, b)
	r := x - y
	if (y > 0 && r > x) || (y < 0 && r < x) {
		overflow("int64Sub", "-")
	}
	return strconv.FormatInt(r, 10)
}

// Int64Mul is a * b.
func Int64Mul(a, b string) string {
	x, y := operands("int64Mul", a, b)
	r := x * y
	if x != 0 && (r/x != y || (x == -1 && y == -1<<63) || (y == -1 && x == -1<<63)) {
		overflow("int64Mul", "*")
	}
	return strconv.FormatInt(r, 10)
}

func divisible(op, a, b string) (int64, int64) {
	x, y := operands(op, a, b)
	if y <= 0 || x < 0 {
		host.Fail("Parameter arg <= 0")
	}
	return x, y
}

// Int64Div is a / b for a ≥ 0, b > 0.
func Int64Div(a, b string) string {
	x, y := divisible("int64Div", a, b)
	return strconv.FormatInt(x/y, 10)
}

// Int64Mod is a % b for a ≥ 0, b > 0.
func Int64Mod(a, b string) string {
	x, y := divisible("int64Mod", a, b)
	return strconv.FormatInt(x%y, 10)
}

// Int64Compare is 1, 0 or -1.
func Int64Compare(a, b string) int {
	x, y := operands("int64Compare", a, b)
	switch {
	case x > y:
		return 1
	case x < y:
		return -1
	}
	return 0
}
