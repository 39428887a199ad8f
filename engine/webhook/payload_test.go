package webhook

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestPayloadAllocations: a callback's body is made in one allocation of
// its size (and two for the encoded type, by encoding/json), however many
// results it has.
// Not parallel: AllocsPerRun counts the whole process's allocations.
func TestPayloadAllocations(t *testing.T) {
	results := make([]json.RawMessage, MaxResults)
	for i := range results {
		results[i] = fmt.Appendf(nil, `{"id":"%d","number":"+4915%09d"}`, i, i)
	}
	var body []byte
	allocs := testing.AllocsPerRun(20, func() { body, _ = Payload("NT", results) })
	if allocs > 3 {
		t.Errorf("Payload of %d results: %.0f allocations; want at most 3", len(results), allocs)
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
