package jsonx

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestField(t *testing.T) {
	in := ` {"method":"transfer","params":{"to":"did:bid:x","amount":10,"ok":true,"n":null,"o":{"a":[1,"}"]}},"args":"AQ=="}`
	p, ok := Field(in, "params")
	if !ok {
		t.Fatal("params")
	}
	for k, want := range map[string]string{"to": "did:bid:x", "amount": "10", "ok": "true", "n": "", "o": `{"a":[1,"}"]}`} {
		v, ok := Field(p, k)
		if !ok || Text(v) != want {
			t.Errorf("%s: %q %v", k, Text(v), ok)
		}
	}
	if _, ok := Field(p, "missing"); ok {
		t.Error("missing found")
	}
	if m, _ := Field(in, "method"); Text(m) != "transfer" {
		t.Error("method")
	}
	if _, ok := Field("not json", "a"); ok {
		t.Error("not json")
	}
}

func TestStrings(t *testing.T) {
	for _, s := range []string{"", "a\"b\\c\n\t\x01", "héllo 😀", "\u2028"} {
		got, ok := Unquote(Quote(s))
		if !ok || got != s {
			t.Errorf("%q -> %q", s, got)
		}
	}
	if s, _ := Unquote(`"\ud83d\ude00\u00e9\/"`); s != "😀é/" {
		t.Errorf("escapes: %q", s)
	}
	var w Writer
	w.Begin()
	w.String("k")
	w.Int(-5)
	w.Bool(true)
	w.Raw(`{"a":1}`)
	if got := string(w.End()); got != `["k",-5,true,{"a":1}]` {
		t.Error(got)
	}
}

// FuzzField: no input makes the reader panic (a panic in a contract is a failed run), and on valid
// JSON objects it agrees with encoding/json.
func FuzzField(f *testing.F) {
	f.Add(`{"method":"transfer","params":{"to":"x","amount":10}}`, "params")
	f.Add(`{"a\u0062":[1,{"c":"\""}],"b":null}`, "ab")
	f.Fuzz(func(t *testing.T, obj, key string) {
		v, ok := Field(obj, key)
		Text(v)
		Unquote(obj)
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(obj), &m) != nil || !utf8.ValidString(obj) {
			return
		}
		want, wok := m[key]
		if ok != wok {
			t.Fatalf("%q %q: found %v, encoding/json %v", obj, key, ok, wok)
		}
		if ok && IsString(v) {
			var ws string
			json.Unmarshal(want, &ws)
			if got := Text(v); got != ws {
				t.Fatalf("%q: %q, encoding/json %q", obj, got, ws)
			}
		}
	})
}
