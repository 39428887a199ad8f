package routing

import (
	"strconv"

	"github.com/numenhq/numen/numbering/textfmt/jsonpos"
)

// The routing maps and coverage are read with jsonpos rather than
// encoding/json, whose reflection would add about 270 KB (gzip) to the
// browser module (wasm/): it keeps every value's place, so that every error
// names its line and column.

// jsonKindNames name the kinds of JSON values in messages.
var jsonKindNames = [...]string{jsonpos.Null: "null", jsonpos.Bool: "a boolean", jsonpos.Number: "a number", jsonpos.String: "a string", jsonpos.Array: "an array", jsonpos.Object: "an object"}

// jsonError is a value's error at an offset of the input.
type jsonError struct {
	line, col int
	msg       string
}

func (e *jsonError) Error() string {
	return "line " + strconv.Itoa(e.line) + ", column " + strconv.Itoa(e.col) + ": " + e.msg
}

// errorAt returns an error at offset off of data.
func errorAt(data []byte, off int, msg string) error {
	line, col := jsonpos.Position(data, off)
	return &jsonError{line: line, col: col, msg: msg}
}
