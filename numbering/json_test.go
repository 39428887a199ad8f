package numbering

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A result names an input that did not parse as given: its JSON escapes it
// as encoding/json does (<, > and & included, DEL as is, invalid UTF-8 as
// U+FFFD), so the object is valid JSON that reads back to the input.
func TestResultJSONEscapesAsEncodingJSON(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, in := range []string{"<b>+49 & co</b>", "+4915123456789\x07", "\x7f\u2028+1", "+49\xff", `"\`} {
		res := p.ClassifyString(in)
		require.True(t, res.Number.IsZero(), "%q parsed", in)
		var back struct {
			Number string `json:"number"`
		}
		b := res.AppendJSON(nil)
		require.True(t, json.Valid(b), "%s", b)
		require.NoError(t, json.Unmarshal(b, &back))
		want, err := json.Marshal(in)
		require.NoError(t, err)
		require.Contains(t, string(b), `{"number":`+string(want)+`,`)
	}
}
