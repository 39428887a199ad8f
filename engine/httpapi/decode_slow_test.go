package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// decodeSlow is the obviously correct decode that FuzzDecode compares
// decode with: the body decoded into v, then again into a map to find the
// required field. It is the decode of before the one-pass version, except
// that data after the object is refused whatever it is (the decoder's
// More, which the old version relied on, ignores a trailing ] or }), and
// that a body of exactly "[]" (PHP's empty parameters) is read as "{}".
func decodeSlow(w http.ResponseWriter, body []byte, v any, required string) bool {
	if string(body) == "[]" {
		body = []byte("{}")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		writeErrors(w, http.StatusBadRequest, fmt.Sprintf("body: want a JSON object with %s; got an empty body", required))
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		writeErrors(w, http.StatusBadRequest, jsonProblem(err, body))
		return false
	}
	var fields map[string]json.RawMessage
	if dec.More() || json.Unmarshal(body, &fields) != nil {
		writeErrors(w, http.StatusBadRequest, "body: data after the JSON object")
		return false
	}
	if raw, ok := fields[required]; !ok || string(raw) == "null" {
		writeErrors(w, http.StatusBadRequest, required+": is required")
		return false
	}
	return true
}
