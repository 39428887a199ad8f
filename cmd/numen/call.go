package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/auth"
)

const callUsage = `Usage: numen call [--url URL] [--key KEY] [--secret SECRET] METHOD PATH [BODY]

Sends one signed request to a Numen sidecar (or any /api/v2 service) and
prints the response body. PATH is relative to the API, such as /hlr-lookup
or "/route?msisdn=%2B4915123456789"; BODY is the JSON to send ("-" reads it
from standard input). The request is signed with digest authentication.
Without a key and secret the request is sent unsigned, as the public
endpoints (GET /time, GET /openapi.json) take it: numen call GET /time.

  --url      the API's base URL (default $NUMEN_URL, else http://127.0.0.1:8080/api/v2)
  --key      API key (default $NUMEN_KEY)
  --secret   API secret (default $NUMEN_SECRET; prefer the variable, which
             stays out of the shell's history)
  --timeout  how long to wait for the answer (default 30s)

Exit status 0 for a 2xx answer, 1 otherwise (the body, {"errors": [...]},
is printed either way), 2 for usage errors.
`

func (c *cli) call(args []string) int {
	fs := newFlagSet("call")
	base := fs.String("url", envOr("NUMEN_URL", "http://127.0.0.1:8080/api/v2"), "")
	key := fs.String("key", os.Getenv("NUMEN_KEY"), "")
	secret := fs.String("secret", os.Getenv("NUMEN_SECRET"), "")
	timeout := fs.Duration("timeout", 30*time.Second, "")
	rest, code, ok := c.parseInterleaved(fs, "call", callUsage, args)
	if !ok {
		return code
	}
	switch {
	case len(rest) < 2 || len(rest) > 3:
		return c.usageError("call", "want METHOD PATH [BODY]")
	case (*key == "") != (*secret == ""):
		return c.usageError("call", "give --key and --secret together (or $NUMEN_KEY and $NUMEN_SECRET), or neither for a public endpoint")
	case !strings.HasPrefix(rest[1], "/"):
		return c.usageError("call", "PATH %q must start with /", rest[1])
	}
	method := strings.ToUpper(rest[0])
	var body []byte
	if len(rest) == 3 {
		if rest[2] == "-" {
			var err error
			if body, err = io.ReadAll(c.stdin); err != nil {
				fmt.Fprintf(c.stderr, "numen call: reading the body: %v\n", err)
				return exitError
			}
		} else {
			body = []byte(rest[2])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var resp *http.Response
	// A digest signature is accepted once: a request identical to one sent
	// in the same second (by this command run just before, or another
	// client) is refused before anything is done, and signed again with
	// the next second.
	for ahead := time.Duration(0); ; ahead += time.Second {
		req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(*base, "/")+rest[1], bytes.NewReader(body))
		if err != nil {
			return c.usageError("call", "%v", err)
		}
		if len(body) > 0 {
			req.Header.Set("Content-Type", "application/json")
		}
		signed := *key != ""
		if signed {
			if err := auth.SignRequest(req, *key, *secret, time.Now().Add(ahead), body); err != nil {
				return c.usageError("call", "%v", err)
			}
		}
		if resp, err = http.DefaultClient.Do(req); err != nil {
			fmt.Fprintf(c.stderr, "numen call: %v\n", err)
			return exitError
		}
		if resp.StatusCode != http.StatusUnauthorized || !signed || ahead >= 5*time.Second {
			break
		}
		answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err != nil {
			fmt.Fprintf(c.stderr, "numen call: reading the answer: %v\n", err)
			return exitError
		}
		if !bytes.Contains(answer, []byte(auth.MessageSignatureUsed)) {
			_, _ = c.stdout.Write(answer)
			fmt.Fprintf(c.stderr, "numen call: %s\n", resp.Status)
			return exitError
		}
	}
	defer resp.Body.Close()
	if _, err := io.Copy(c.stdout, resp.Body); err != nil {
		fmt.Fprintf(c.stderr, "numen call: reading the answer: %v\n", err)
		return exitError
	}
	if resp.StatusCode/100 != 2 {
		fmt.Fprintf(c.stderr, "numen call: %s\n", resp.Status)
		if resp.StatusCode == http.StatusUnauthorized && *key == "" {
			fmt.Fprintln(c.stderr, "numen call: sent without a key: this endpoint needs one; give --key and --secret (or $NUMEN_KEY and $NUMEN_SECRET)")
		}
		return exitError
	}
	return exitOK
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
