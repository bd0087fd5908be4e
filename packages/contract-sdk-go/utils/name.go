// Package utils holds JavaScript's Utils.* for Go contracts (docs/contracts.md §8), action names
// (docs/wasm-abi.md §4) and packed tuples (docs/wasm-abi.md §5).
package utils

import "errors"

// StringToName is the 64-bit name of an action (docs/wasm-abi.md §4): at most 13 characters from
// ".12345abcdefghijklmnopqrstuvwxyz", the thirteenth only from ".12345abcdefghij". Anything else
// (also "") is an error: the host then sends action 0.
func StringToName(s string) (uint64, error) {
	if len(s) == 0 || len(s) > 13 {
		return 0, errors.New("a name has 1 to 13 characters: " + s)
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v uint64
		switch {
		case c == '.':
			v = 0
		case c >= '1' && c <= '5':
			v = uint64(c-'1') + 1
		case c >= 'a' && c <= 'z':
			v = uint64(c-'a') + 6
		default:
			return 0, errors.New("invalid character in name: " + s)
		}
		if i < 12 {
			n |= v << (64 - 5*uint(i+1))
		} else {
			if v > 15 {
				return 0, errors.New("invalid thirteenth character in name: " + s)
			}
			n |= v
		}
	}
	return n, nil
}

// N is StringToName for a name known to be valid; it panics otherwise.
func N(s string) uint64 {
	n, err := StringToName(s)
	if err != nil {
		panic(err.Error())
	}
	return n
}
