package utils

import "chainsim.dev/contract-sdk-go/internal/host"

// Packed tuples (docs/wasm-abi.md §5): little-endian integers, bool as one byte, strings and
// vectors prefixed with their length as unsigned LEB128, fields one after another.

// Pack builds a packed tuple: var p utils.Pack; p.String("to").U64(10); p.Base64().
type Pack struct{ b []byte }

func (p *Pack) le(v uint64, n int) *Pack {
	for i := 0; i < n; i++ {
		p.b = append(p.b, byte(v>>(8*i)))
	}
	return p
}

// Bool adds a bool.
func (p *Pack) Bool(v bool) *Pack {
	if v {
		p.b = append(p.b, 1)
	} else {
		p.b = append(p.b, 0)
	}
	return p
}

// U32 adds a uint32.
func (p *Pack) U32(v uint32) *Pack { return p.le(uint64(v), 4) }

// I32 adds an int32.
func (p *Pack) I32(v int32) *Pack { return p.le(uint64(uint32(v)), 4) }

// U64 adds a uint64.
func (p *Pack) U64(v uint64) *Pack { return p.le(v, 8) }

// I64 adds an int64.
func (p *Pack) I64(v int64) *Pack { return p.le(uint64(v), 8) }

// Len adds a length or a vector's count (unsigned LEB128).
func (p *Pack) Len(n uint64) *Pack {
	for n >= 0x80 {
		p.b = append(p.b, byte(n)|0x80)
		n >>= 7
	}
	p.b = append(p.b, byte(n))
	return p
}

// String adds a string (length, then bytes).
func (p *Pack) String(s string) *Pack {
	p.Len(uint64(len(s)))
	p.b = append(p.b, s...)
	return p
}

// Bytes is the packed tuple.
func (p *Pack) Bytes() []byte { return p.b }

// Base64 is the packed tuple as the input's "args" carries it.
func (p *Pack) Base64() string { return EncodeBase64(p.b) }

// Unpacker reads a packed tuple field by field. Reading past the end or a bool other than 0/1
// ends the run, as docs/wasm-abi.md §5 says.
type Unpacker struct {
	b []byte
	i int
}

// Unpack starts reading b.
func Unpack(b []byte) *Unpacker { return &Unpacker{b: b} }

// UnpackBase64 starts reading the base64 text of an input's "args" (chain.Args()).
func UnpackBase64(s string) *Unpacker {
	b, ok := DecodeBase64(s)
	if !ok {
		host.Fail("unpack: args is not base64")
	}
	return Unpack(b)
}

func (u *Unpacker) take(n uint64) []byte {
	if n > uint64(len(u.b)-u.i) {
		host.Fail("unpack: past the end")
	}
	s := u.b[u.i : u.i+int(n)]
	u.i += int(n)
	return s
}

func (u *Unpacker) le(n int) uint64 {
	var v uint64
	for i, c := range u.take(uint64(n)) {
		v |= uint64(c) << (8 * i)
	}
	return v
}

// Bool reads a bool.
func (u *Unpacker) Bool() bool {
	switch u.take(1)[0] {
	case 0:
		return false
	case 1:
		return true
	}
	host.Fail("unpack: bool is not 0 or 1")
	return false
}

// U32 reads a uint32.
func (u *Unpacker) U32() uint32 { return uint32(u.le(4)) }

// I32 reads an int32.
func (u *Unpacker) I32() int32 { return int32(uint32(u.le(4))) }

// U64 reads a uint64.
func (u *Unpacker) U64() uint64 { return u.le(8) }

// I64 reads an int64.
func (u *Unpacker) I64() int64 { return int64(u.le(8)) }

// Len reads a length or a vector's count.
func (u *Unpacker) Len() uint64 {
	var n uint64
	for shift := uint(0); ; shift += 7 {
		c := u.take(1)[0]
		if shift > 63 {
			host.Fail("unpack: length too long")
		}
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
}

// String reads a string.
func (u *Unpacker) String() string { return string(u.take(u.Len())) }

// Rest is the number of bytes not read yet.
func (u *Unpacker) Rest() int { return len(u.b) - u.i }

const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// EncodeBase64 is standard base64 with padding (written here: encoding/base64 builds its tables at init).
func EncodeBase64(b []byte) string {
	out := make([]byte, 0, (len(b)+2)/3*4)
	for i := 0; i < len(b); i += 3 {
		var v uint32
		n := len(b) - i
		if n > 3 {
			n = 3
		}
		for j := 0; j < 3; j++ {
			v <<= 8
			if j < n {
				v |= uint32(b[i+j])
			}
		}
		for j := 0; j < 4; j++ {
			if j <= n {
				out = append(out, b64[(v>>(18-6*j))&63])
			} else {
				out = append(out, '=')
			}
		}
	}
	return string(out)
}

func b64val(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// DecodeBase64 reads standard base64 with padding.
func DecodeBase64(s string) ([]byte, bool) {
	if len(s)%4 != 0 {
		return nil, false
	}
	out := make([]byte, 0, len(s)/4*3)
	for i := 0; i < len(s); i += 4 {
		var v uint32
		pad := 0
		for j := 0; j < 4; j++ {
			c := s[i+j]
			d := b64val(c)
			if c == '=' && i+4 == len(s) && j >= 2 && (j == 3 || s[i+3] == '=') {
				pad++
				d = 0
			} else if d < 0 || pad > 0 {
				return nil, false
			}
			v = v<<6 | uint32(d)
		}
		out = append(out, byte(v>>16), byte(v>>8), byte(v))
		out = out[:len(out)-pad]
	}
	return out, true
}
