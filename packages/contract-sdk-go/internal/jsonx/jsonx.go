// Package jsonx is a small JSON writer and reader for the built-ins' arguments and results
// (docs/wasm-abi.md §3). It replaces encoding/json, whose package initialisation and reflection
// would add to every run's metered `_initialize` (docs/wasm-abi.md §2, §7).
// Values are kept as their raw JSON text and decoded only when asked.
package jsonx

import (
	"strconv"
	"unicode/utf8"
)

// Writer builds a JSON array of arguments.
type Writer struct{ b []byte }

// argsBuf holds the arguments being built: one static buffer instead of a growing slice per call,
// because each Go allocation is metered (docs/wasm-abi.md §7). The host copies the arguments during
// the call and a module never runs two calls at once, so one buffer is enough.
var argsBuf [2048]byte

// Begin starts the array (in the shared buffer: finish it before beginning another).
func (w *Writer) Begin() { w.b = append(argsBuf[:0], '[') }

func (w *Writer) sep() {
	if len(w.b) > 1 {
		w.b = append(w.b, ',')
	}
}

// String adds a JSON string.
func (w *Writer) String(s string) {
	w.sep()
	w.b = AppendString(w.b, s)
}

// Int adds a JSON number.
func (w *Writer) Int(n int64) {
	w.sep()
	w.b = strconv.AppendInt(w.b, n, 10)
}

// Bool adds true or false.
func (w *Writer) Bool(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

// Raw adds text that is already JSON.
func (w *Writer) Raw(s string) {
	w.sep()
	w.b = append(w.b, s...)
}

// End closes the array and returns it.
func (w *Writer) End() []byte { return append(w.b, ']') }

const hex = "0123456789abcdef"

// plain tells whether s needs no escaping. Loops are kept in small functions: Go's wasm code jumps
// through a dispatch table as long as the function, and each of those instructions is metered.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// AppendString appends s as a JSON string literal.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	if plain(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c) // UTF-8 passes through; the host turns invalid bytes into U+FFFD
		}
	}
	return append(b, '"')
}

// Quote returns s as a JSON string literal.
func Quote(s string) string { return string(AppendString(nil, s)) }

func ws(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skip returns the index just after the value starting at s[i] (after white space), or -1.
func skip(s string, i int) int {
	i = ws(s, i)
	if i >= len(s) {
		return -1
	}
	switch c := s[i]; {
	case c == '"':
		return stringEnd(s, i+1)
	case c == '{' || c == '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		i = ws(s, i+1)
		if i < len(s) && s[i] == close {
			return i + 1
		}
		for {
			if c == '{' {
				if i = skip(s, i); i < 0 {
					return -1
				}
				if i = ws(s, i); i >= len(s) || s[i] != ':' {
					return -1
				}
				i++
			}
			if i = skip(s, i); i < 0 {
				return -1
			}
			if i = ws(s, i); i >= len(s) {
				return -1
			}
			if s[i] == close {
				return i + 1
			}
			if s[i] != ',' {
				return -1
			}
			i++
		}
	default: // number, true, false, null
		j := wordEnd(s, i)
		if j == i {
			return -1
		}
		return j
	}
}

// stringEnd is the index after the closing quote of a string whose body starts at s[i], or -1.
func stringEnd(s string, i int) int {
	for ; i < len(s); i++ {
		if c := s[i]; c == '"' {
			return i + 1
		} else if c == '\\' {
			i++
		}
	}
	return -1
}

func wordEnd(s string, j int) int {
	for j < len(s) && (s[j] == '-' || s[j] == '+' || s[j] == '.' || (s[j] >= '0' && s[j] <= '9') ||
		(s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')) {
		j++
	}
	return j
}

// Field returns the raw JSON of obj's member key (the last one when repeated, as JSON.parse does).
func Field(obj, key string) (string, bool) {
	i := ws(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return "", false
	}
	i = ws(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return "", false
	}
	found, val := false, ""
	for {
		ks := ws(obj, i)
		ke := skip(obj, ks)
		if ke < 0 || obj[ks] != '"' {
			return "", false
		}
		i = ws(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return "", false
		}
		vs := ws(obj, i+1)
		ve := skip(obj, vs)
		if ve < 0 {
			return "", false
		}
		if k := obj[ks+1 : ke-1]; k == key || (hasEscape(k) && unquoteIs(obj[ks:ke], key)) {
			found, val = true, obj[vs:ve]
		}
		i = ws(obj, ve)
		if i >= len(obj) {
			return "", false
		}
		if obj[i] == '}' {
			return val, found
		}
		if obj[i] != ',' {
			return "", false
		}
		i++
	}
}

// TextBytes is Text of a result still in the host's buffer, copied once; isString tells whether it
// was a JSON string.
func TextBytes(raw []byte) (text string, isString bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if !hasEscapeBytes(raw) {
			return string(raw[1 : len(raw)-1]), true
		}
		s, ok := Unquote(string(raw))
		return s, ok
	}
	return Text(string(raw)), false
}

func hasEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			return true
		}
	}
	return false
}

func hasEscapeBytes(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

func unquoteIs(raw, key string) bool {
	k, ok := Unquote(raw)
	return ok && k == key
}

// IsString tells whether raw is a JSON string literal.
func IsString(raw string) bool {
	raw = raw[ws(raw, 0):]
	return len(raw) > 0 && raw[0] == '"'
}

// Text gives a raw value as text: a string decoded, null as "", anything else as its JSON text.
func Text(raw string) string {
	raw = raw[ws(raw, 0):]
	if s, ok := Unquote(raw); ok {
		return s
	}
	if raw == "null" {
		return ""
	}
	return raw
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

func u4(s string) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for i := 0; i < 4; i++ {
		h := hexVal(s[i])
		if h < 0 {
			return -1
		}
		r = r<<4 | h
	}
	return r
}

// Unquote decodes a JSON string literal.
func Unquote(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !hasEscape(body) {
		return body, true
	}
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			b = append(b, body[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := u4(body[i+1:])
			if r < 0 {
				return "", false
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
				if lo := u4(body[i+3:]); lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			b = utf8.AppendRune(b, r) // a lone surrogate becomes U+FFFD
		default:
			return "", false
		}
	}
	return string(b), true
}
