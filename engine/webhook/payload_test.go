package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestPayloadAllocations: a callback's body is made in one allocation of
// its size, however many results it has. (The type was encoded with
// encoding/json once, whose pooled state a garbage collection empties: a
// loaded machine saw a fourth allocation.)
// Not parallel: AllocsPerRun counts the whole process's allocations.
func TestPayloadAllocations(t *testing.T) {
	results := make([]json.RawMessage, MaxResults)
	for i := range results {
		results[i] = fmt.Appendf(nil, `{"id":"%d","number":"+4915%09d"}`, i, i)
	}
	var body []byte
	allocs := testing.AllocsPerRun(20, func() { body, _ = Payload("NT", results) })
	if allocs > 1 {
		t.Errorf("Payload of %d results: %.0f allocations; want 1", len(results), allocs)
	}
	if len(body) != cap(body) {
		t.Errorf("Payload: %d bytes in a buffer of %d; want it sized exactly", len(body), cap(body))
	}
	var v struct {
		Type    string
		Results []json.RawMessage
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Type != "NT" || len(v.Results) != MaxResults {
		t.Errorf("Payload: %v, type %q, %d results", err, v.Type, len(v.Results))
	}
}

// FuzzPayload holds Payload to encoding/json byte for byte: any batch type
// and up to 64 results (JSON strings of any text), the body is what
// json.Marshal makes of {"type", "results"}, sized exactly; more than
// MaxResults is an error.
func FuzzPayload(f *testing.F) {
	f.Add("NT", []byte("a\x00b\x00c"), uint8(3))
	f.Add("HLR", []byte(""), uint8(0))
	f.Add("\u2028<&>\"", []byte("\xff\x00\x7f"), uint8(64))
	f.Fuzz(func(t *testing.T, kind string, text []byte, n uint8) {
		parts := bytes.Split(text, []byte{0})
		results := make([]json.RawMessage, 0, int(n)%65)
		for i := range cap(results) {
			r, err := json.Marshal(string(parts[i%len(parts)]))
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, r)
		}
		want, err := json.Marshal(struct {
			Type    string            `json:"type"`
			Results []json.RawMessage `json:"results"`
		}{kind, results})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Payload(kind, results)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("Payload\n got %s\nwant %s", got, want)
		}
		if len(got) != cap(got) {
			t.Fatalf("Payload: %d bytes in a buffer of %d", len(got), cap(got))
		}
	})
}
