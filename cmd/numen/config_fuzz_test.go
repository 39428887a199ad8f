package main

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"testing"
)

// goWords are encoding/json's ways of naming what it wanted.
var goWords = regexp.MustCompile(`main\.[a-z]+Config|json: |Go (struct )?(value|field)|\[\](string|int|main)`)

// FuzzParseConfig: any file is a config or an error, never a panic; a
// config it accepts has its accounts' keys and secrets, and encoding/json
// (the slow reference, which stops at the first problem) reads it as the
// same config.
func FuzzParseConfig(f *testing.F) {
	if b, err := os.ReadFile("numen.example.json"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		`{}`, `{"routes": [{"route": "GT1", "backends": [{"type": "simnet"}]}]}`,
		`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "routing_map": null}]}`,
		`{"request_timeout": "-1s"}`, `{"prices": {"HLR": "1.2.3"}}`, `[`, `null`,
		`{"addr": "x", "addr": "y"}`, `{"routes": [{"route": "GT1", "backends": [{"type": "simnet", "seed": 18446744073709551615}]}]}`,
		`{"max_connections": 1e3}`, `{"enum": {"listen": "127.0.0.1:53", "rn": {"26201": "D001"}}}`, "{\"addr\": \"\\u00e9\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := parseConfig(b)
		if err != nil {
			if cfg != nil {
				t.Fatal("a config with an error")
			}
			// Every problem has its place, and is said in words: no Go
			// type, no encoding/json message.
			ce, ok := err.(*configError)
			if !ok || len(ce.Problems) == 0 {
				t.Fatalf("not a *configError with problems: %#v", err)
			}
			for _, p := range ce.Problems {
				if p.Line < 1 || p.Col < 1 || p.Msg == "" {
					t.Fatalf("a problem without its place: %+v", p)
				}
				if goWords.MatchString(p.Msg) {
					t.Fatalf("a problem in Go's words: %q", p.Msg)
				}
			}
			return
		}
		for _, a := range cfg.Accounts {
			if a.Key == "" || len(a.Secrets)+len(a.SecretsEnv) == 0 {
				t.Fatalf("accepted an account without key or secret: %+v", a)
			}
		}
		var ref serveConfig
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ref); err != nil {
			t.Fatalf("accepted a config encoding/json refuses: %v", err)
		}
		for i := range ref.Accounts {
			if string(ref.Accounts[i].RoutingMap) == "null" {
				ref.Accounts[i].RoutingMap = nil // null is as if absent
			}
		}
		if !reflect.DeepEqual(&ref, cfg) {
			t.Fatalf("read otherwise than encoding/json reads it:\n%+v\n%+v", cfg, &ref)
		}
	})
}
