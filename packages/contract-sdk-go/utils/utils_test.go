package utils

import (
	"encoding/base64"
	"testing"

	"chainsim.dev/contract-sdk-go/internal/host"
)

func TestStringToName(t *testing.T) {
	for s, want := range map[string]uint64{"transfer": 14829575313431724032, "init": 8421045207927095296, "a": 3458764513820540928} {
		if got, err := StringToName(s); err != nil || got != want {
			t.Errorf("%s: %d %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Transfer", "abcdefghijklmn", "aaaaaaaaaaaaz", "a-b"} {
		if _, err := StringToName(s); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
	if _, err := StringToName("aaaaaaaaaaaaj"); err != nil {
		t.Error(err)
	}
}

func failMessage(f func()) (msg string) {
	host.Handler = func(name string, args []byte) string { panic(string(args)) }
	defer func() { msg, _ = recover().(string) }()
	f()
	return ""
}

func TestInt64(t *testing.T) {
	if Int64Add("9007199254740993", "1") != "9007199254740994" || Int64Sub("1", "10") != "-9" ||
		Int64Div("7", "2") != "3" || Int64Mod("7", "2") != "1" || Int64Mul("-3", "4") != "-12" ||
		Int64Compare("10", "9") != 1 || Int64Compare("-1", "-1") != 0 {
		t.Error("arithmetic")
	}
	for _, c := range []struct {
		want string
		f    func()
	}{
		{`["Contract execution error, int64Add, parameter 0 + parameter 1 overflowed"]`, func() { Int64Add("9223372036854775807", "1") }},
		{`["Contract execution error, int64Add, parameter 0 illegal, maybe exceed the limit value of int64."]`, func() { Int64Add("05", "1") }},
		{`["Contract execution error, int64Mul, parameter 0 * parameter 1 overflowed"]`, func() { Int64Mul("3037000500", "3037000500") }},
		{`["Contract execution error, int64Mul, parameter 0 * parameter 1 overflowed"]`, func() { Int64Mul("-1", "-9223372036854775808") }},
		{`["Contract execution error, int64Sub, parameter 0 - parameter 1 overflowed"]`, func() { Int64Sub("-9223372036854775808", "1") }},
		{`["Contract execution error, int64Sub, parameter 1 illegal, maybe exceed the limit value of int64."]`, func() { Int64Sub("1", "-0") }},
		{`["Parameter arg <= 0"]`, func() { Int64Div("7", "0") }},
	} {
		if got := failMessage(c.f); got != c.want {
			t.Errorf("got %s want %s", got, c.want)
		}
	}
	if got := failMessage(func() { Int64Mod("-7", "2") }); got != `["Parameter arg <= 0"]` {
		t.Error(got)
	}
}

func TestPackBase64(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "abcd", "\x00\xff\x10"} {
		e := EncodeBase64([]byte(s))
		if e != base64.StdEncoding.EncodeToString([]byte(s)) {
			t.Errorf("encode %q: %s", s, e)
		}
		if d, ok := DecodeBase64(e); !ok || string(d) != s {
			t.Errorf("decode %s", e)
		}
	}
	for _, bad := range []string{"a", "a===", "ab=c", "AB*D"} {
		if _, ok := DecodeBase64(bad); ok {
			t.Errorf("accepted %s", bad)
		}
	}
	var p Pack
	p.Bool(true).U32(7).I64(-2).String("hé").Len(300).U64(1 << 40)
	u := UnpackBase64(p.Base64())
	if !u.Bool() || u.U32() != 7 || u.I64() != -2 || u.String() != "hé" || u.Len() != 300 || u.U64() != 1<<40 || u.Rest() != 0 {
		t.Error("roundtrip")
	}
	if got := failMessage(func() { u.U32() }); got != `["unpack: past the end"]` {
		t.Error(got)
	}
	if got := failMessage(func() { Unpack([]byte{2}).Bool() }); got != `["unpack: bool is not 0 or 1"]` {
		t.Error(got)
	}
}
