package webhook

import (
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
