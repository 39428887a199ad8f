package main

import (
	"os"
	"testing"
)

// FuzzParseConfig: any file is a config or an error, never a panic, and a
// config it accepts is accepted again after a round trip through its checks.
func FuzzParseConfig(f *testing.F) {
	if b, err := os.ReadFile("numen.example.json"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		`{}`, `{"routes": [{"route": "GT1", "backends": [{"type": "simnet"}]}]}`,
		`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "routing_map": null}]}`,
		`{"request_timeout": "-1s"}`, `{"prices": {"HLR": "1.2.3"}}`, `[`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := parseConfig(b)
		if err != nil {
			if cfg != nil {
				t.Fatal("a config with an error")
			}
			return
		}
		for _, a := range cfg.Accounts {
			if a.Key == "" || len(a.Secrets)+len(a.SecretsEnv) == 0 {
				t.Fatalf("accepted an account without key or secret: %+v", a)
			}
		}
	})
}
