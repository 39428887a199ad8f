package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
)

// endpoints is the API: every path under /api/v2 with its method.
func endpoints() []*endpoint {
	return []*endpoint{
		{method: http.MethodGet, path: "/time", public: true, serve: (*Handler).time},
		{method: http.MethodGet, path: "/openapi.json", public: true, serve: (*Handler).openapi},
		{method: http.MethodGet, path: "/ping", public: true, serve: (*Handler).ping},
		{method: http.MethodGet, path: "/auth-test", serve: (*Handler).authTest},
		{method: http.MethodPost, path: "/hlr-lookup", serve: (*Handler).hlrLookup},
		{method: http.MethodPost, path: "/mnp-lookup", serve: (*Handler).mnpLookup},
		{method: http.MethodPost, path: "/nt-lookup", serve: (*Handler).ntLookup},
		{method: http.MethodPost, path: "/hlr-lookups", serve: (*Handler).hlrLookups},
		{method: http.MethodPost, path: "/nt-lookups", serve: (*Handler).ntLookups},
		{method: http.MethodGet, path: "/balance", serve: (*Handler).balance},
		{method: http.MethodGet, path: "/route", serve: (*Handler).route},
		{method: http.MethodGet, path: "/routes", serve: (*Handler).routeList},
		{method: http.MethodGet, path: "/routing-map", serve: (*Handler).routingMap},
		{method: http.MethodGet, path: "/hlr-coverage", serve: (*Handler).hlrCoverage},
		{method: http.MethodGet, path: "/mccmncs", serve: (*Handler).mccmncs},
		{method: http.MethodGet, path: "/mnp-coverage", serve: (*Handler).mnpCoverage},
		{method: http.MethodGet, path: "/reports", serve: (*Handler).apiReports},
		{method: http.MethodGet, path: reportPath, serve: (*Handler).apiReport},
	}
}

func (h *Handler) time(w http.ResponseWriter, r *request) {
	writeJSON(w, http.StatusOK, apiv2.Time{Time: h.cfg.Clock().Unix()})
}

func (h *Handler) authTest(w http.ResponseWriter, r *request) {
	writeJSON(w, http.StatusOK, apiv2.AuthTest{Success: true})
}

func (h *Handler) hlrLookup(w http.ResponseWriter, r *request) {
	req, ok := decodeLookup(w, r.body, "msisdn")
	if !ok {
		return
	}
	req.Encode = true
	ans, err := h.cfg.Engine.HLRLookup(r.Context(), r.account.Profile, req)
	if h.lookupError(w, err) {
		return
	}
	h.metrics.observeLookup("HLR", ans.Result.ProcessingStatus)
	writeEncoded(w, http.StatusOK, ans.JSON)
}

func (h *Handler) mnpLookup(w http.ResponseWriter, r *request) {
	req, ok := decodeLookup(w, r.body, "msisdn")
	if !ok {
		return
	}
	req.Encode = true
	ans, err := h.cfg.Engine.MNPLookup(r.Context(), r.account.Profile, req)
	if h.lookupError(w, err) {
		return
	}
	h.metrics.observeLookup("MNP", ans.Result.ProcessingStatus)
	writeEncoded(w, http.StatusOK, ans.JSON)
}

func (h *Handler) ntLookup(w http.ResponseWriter, r *request) {
	req, ok := decodeLookup(w, r.body, "number")
	if !ok {
		return
	}
	req.Encode = true
	ans, err := h.cfg.Engine.NTLookup(r.Context(), r.account.Profile, req)
	if h.lookupError(w, err) {
		return
	}
	h.metrics.observeLookup("NT", ans.Result.QueryStatus)
	writeEncoded(w, http.StatusOK, ans.JSON)
}

// MaxBulkNumbers is the spec's limit of numbers per bulk request.
const MaxBulkNumbers = 1000

func (h *Handler) hlrLookups(w http.ResponseWriter, r *request) {
	var body apiv2.HLRLookupsRequest
	if !decode(w, r.body, &body, "msisdns") {
		return
	}
	h.bulk(w, r, "msisdns", engine.Submission{
		Product: engine.ProductHLR, Numbers: body.MSISDNs,
		Route: apiv2.Deref(body.Route), Storage: apiv2.Deref(body.Storage), Country: apiv2.Deref(body.Country),
	})
}

func (h *Handler) ntLookups(w http.ResponseWriter, r *request) {
	var body apiv2.NTLookupsRequest
	if !decode(w, r.body, &body, "numbers") {
		return
	}
	h.bulk(w, r, "numbers", engine.Submission{
		Product: engine.ProductNT, Numbers: body.Numbers,
		Route: apiv2.Deref(body.Route), Storage: apiv2.Deref(body.Storage), Country: apiv2.Deref(body.Country),
	})
}

// bulk hands a bulk request to the queue; field names its numbers in
// error messages. The submission gets the request's Idempotency-Key and
// body here.
func (h *Handler) bulk(w http.ResponseWriter, r *request, field string, s engine.Submission) {
	numbers := s.Numbers
	switch {
	case h.cfg.Bulk == nil:
		writeErrors(w, http.StatusNotImplemented, "bulk lookups are not enabled on this server")
		return
	case len(numbers) == 0:
		writeErrors(w, http.StatusBadRequest, field+": at least one number is required")
		return
	case len(numbers) > MaxBulkNumbers:
		writeErrors(w, http.StatusBadRequest, fmt.Sprintf("%s: %d numbers; at most %d per request", field, len(numbers), MaxBulkNumbers))
		return
	case len(r.account.WebhookURLs) == 0:
		writeErrors(w, http.StatusPreconditionFailed, "no webhook URL is configured for this API key; bulk results are delivered only by webhook")
		return
	}
	s.IdempotencyKey, s.Body = r.Header.Get("Idempotency-Key"), r.body
	_, encoded, err := h.cfg.Bulk.Submit(r.Context(), r.account, s)
	if h.lookupError(w, err) {
		return
	}
	writeEncoded(w, http.StatusOK, encoded)
}

func (h *Handler) route(w http.ResponseWriter, r *request) {
	q := r.URL.Query()
	for k, v := range q {
		switch {
		case k != "msisdn" && k != "country":
			writeErrors(w, http.StatusBadRequest, fmt.Sprintf("%s: unknown query parameter; GET /route takes msisdn and country only", k))
			return
		case len(v) > 1:
			writeErrors(w, http.StatusBadRequest, k+": given more than once")
			return
		}
	}
	d, err := h.cfg.Engine.Route(r.account.Profile, engine.Request{Number: q.Get("msisdn"), Country: q.Get("country")})
	if h.lookupError(w, err) {
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (h *Handler) routeList(w http.ResponseWriter, r *request) {
	writeJSON(w, http.StatusOK, h.cfg.Engine.Routes())
}

func (h *Handler) routingMap(w http.ResponseWriter, r *request) {
	m, err := h.cfg.Engine.RoutingMap(r.account.Profile)
	if h.lookupError(w, err) {
		return
	}
	writeJSON(w, http.StatusOK, m)
}

func (h *Handler) hlrCoverage(w http.ResponseWriter, r *request) {
	writeJSON(w, http.StatusOK, h.cfg.Engine.Coverage())
}

// lookupError answers an engine error and reports whether there was one.
func (h *Handler) lookupError(w http.ResponseWriter, err error) bool {
	if err == nil {
		return false
	}
	var re *engine.RequestError
	switch {
	case errors.As(err, &re):
		writeErrors(w, http.StatusBadRequest, re.Error())
	case errors.Is(err, engine.ErrLimit):
		// Before any backend was asked; nothing was charged.
		writeErrors(w, http.StatusPaymentRequired, err.Error())
	case errors.Is(err, engine.ErrBudgetUnavailable):
		h.internal.log(h.log, time.Now(), "budget unavailable", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the account's balance could not be checked; nothing was charged, try again")
	case errors.Is(err, engine.ErrIdempotencyKeyReused):
		writeErrors(w, http.StatusConflict, engine.ErrIdempotencyKeyReused.Error())
	case errors.Is(err, context.Canceled):
		// A backend or store gave up on a canceled context of its own
		// (the request's ends only at its timeout); the result may still
		// be committed. Not a store failure.
		h.log.Info("lookup canceled before the answer", "error", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the request was canceled")
	case errors.Is(err, store.ErrDamaged):
		// The reason, fit for a client (the log has the file's).
		h.metrics.notRecorded.add(1)
		h.notRecorded.log(h.log, time.Now(), "result not recorded", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: "+store.ErrDamaged.Error()+"; nothing was charged")
	case errors.Is(err, engine.ErrNotRecorded):
		h.metrics.notRecorded.add(1)
		h.notRecorded.log(h.log, time.Now(), "result not recorded", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the result could not be stored; nothing was charged, try again")
	case errors.Is(err, context.DeadlineExceeded):
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the request took too long")
	default:
		h.internal.log(h.log, time.Now(), "internal error", err)
		writeErrors(w, http.StatusInternalServerError, "internal error")
	}
	return true
}

// logThrottle keeps one error that repeats, such as every lookup failing
// to be stored on a full disk, from writing a line per request: it logs the
// first, counts those of the next logInterval, and then logs the next one
// with how many it did not log. Each request still has its access line.
type logThrottle struct {
	mu         sync.Mutex
	next       time.Time // until then, errors are counted, not logged
	suppressed int
}

// logInterval is the least time between two lines of one logThrottle.
const logInterval = 10 * time.Second

func (t *logThrottle) log(l *slog.Logger, now time.Time, msg string, err error) {
	t.mu.Lock()
	if now.Before(t.next) {
		t.suppressed++
		t.mu.Unlock()
		return
	}
	suppressed := t.suppressed
	t.next, t.suppressed = now.Add(logInterval), 0
	t.mu.Unlock()
	if suppressed > 0 {
		l.Error(msg, "error", err, "not_logged_before", suppressed, "interval_s", logInterval.Seconds())
		return
	}
	l.Error(msg, "error", err)
}

// decodeLookup decodes the body of a single lookup, whose number is the
// member named field ("msisdn" or "number"), as decode does; it answers a
// bad body and returns false.
func decodeLookup(w http.ResponseWriter, body []byte, field string) (engine.Request, bool) {
	if req, ok := decodeLookupFast(body, field); ok {
		return req, true
	}
	var number string
	var route, storage, country *string
	if field == "number" {
		var b apiv2.NTLookupRequest
		if !decode(w, body, &b, field) {
			return engine.Request{}, false
		}
		number, route, storage, country = b.Number, b.Route, b.Storage, b.Country
	} else {
		var b apiv2.HLRLookupRequest
		if !decode(w, body, &b, field) {
			return engine.Request{}, false
		}
		number, route, storage, country = b.MSISDN, b.Route, b.Storage, b.Country
	}
	return engine.Request{Number: number, Route: apiv2.Deref(route), Storage: apiv2.Deref(storage), Country: apiv2.Deref(country)}, true
}

// decodeLookupFast decodes the usual body of a single lookup without
// encoding/json: an object of the members field, "route" and "storage",
// each at most once, named exactly so, with string values of printable
// ASCII without escapes, between JSON's white space, in at most
// maxFastBody bytes; field is required.
// Any other body, valid or not, is left to decode (false), which accepts
// every body this does, with the same values (FuzzDecodeLookup).
func decodeLookupFast(body []byte, field string) (engine.Request, bool) {
	// The values share one copy of the body: only for a short body, so
	// that a value kept long (a cached result's route) keeps little.
	if len(body) > maxFastBody {
		return engine.Request{}, false
	}
	var vals [3]string // field, route, storage
	var seen [3]bool
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return engine.Request{}, false
	}
	i = skipSpace(body, i+1)
	s := string(body) // one allocation for every value
	for {
		next, ok := fastString(body, i)
		if !ok {
			return engine.Request{}, false
		}
		m := -1
		switch s[i+1 : next-1] {
		case field:
			m = 0
		case "route":
			m = 1
		case "storage":
			m = 2
		}
		if m < 0 || seen[m] {
			return engine.Request{}, false
		}
		i = skipSpace(body, next)
		if i >= len(body) || body[i] != ':' {
			return engine.Request{}, false
		}
		start := skipSpace(body, i+1)
		next, ok = fastString(body, start)
		if !ok {
			return engine.Request{}, false
		}
		vals[m], seen[m] = s[start+1:next-1], true
		i = skipSpace(body, next)
		if i >= len(body) {
			return engine.Request{}, false
		}
		if body[i] == '}' {
			break
		}
		if body[i] != ',' {
			return engine.Request{}, false
		}
		i = skipSpace(body, i+1)
	}
	if skipSpace(body, i+1) != len(body) || !seen[0] {
		return engine.Request{}, false
	}
	return engine.Request{Number: vals[0], Route: vals[1], Storage: vals[2]}, true
}

// maxFastBody is the longest body decodeLookupFast reads.
const maxFastBody = 512

// fastString reads the JSON string at body[i:] when it is printable ASCII
// without escapes, and returns the index after its closing quote.
func fastString(body []byte, i int) (next int, ok bool) {
	if i >= len(body) || body[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(body); j++ {
		switch c := body[j]; {
		case c == '"':
			return j + 1, true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return 0, false
		}
	}
	return 0, false
}

// decode reads a JSON object into v: no trailing data, types as
// documented; required names the field that must be present, and not null,
// under exactly that name. Members v does not know are ignored, so that code
// written for the hosted service, which may send fields Numen does not know,
// keeps working. It answers 400 itself,
// naming the field, and returns false. The body is decoded once; the
// required field is found by hasMember's scan of the decoded bytes.
//
// A body of exactly "[]" is read as "{}": it is PHP's json_encode(array()),
// what the official PHP client sends for a call without parameters (PHP has
// one type for lists and maps), so that such a call is answered for the
// field it lacks.
func decode(w http.ResponseWriter, body []byte, v any, required string) bool {
	if string(body) == "[]" {
		body = emptyObject
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
	end := int(dec.InputOffset())
	if skipSpace(body, end) < len(body) {
		writeErrors(w, http.StatusBadRequest, "body: data after the JSON object")
		return false
	}
	if !hasMember(body[:end], required) {
		writeErrors(w, http.StatusBadRequest, required+": is required")
		return false
	}
	return true
}

// hasMember reports whether obj, a JSON object (or null) that the decoder
// has read without error, has a member named name whose value is not null.
// It matches as json.Unmarshal into a map does: the name after unescaping,
// exactly (the decoder of a struct also takes "MSISDN" for "msisdn"; this
// does not), and the last member of a repeated name decides.
func hasMember(obj []byte, name string) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	found := false
	for i = skipSpace(obj, i+1); i < len(obj) && obj[i] == '"'; {
		end := stringEnd(obj, i)
		match := keyIs(obj[i:end], name)
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1) // the colon
		if match {
			found = i < len(obj) && obj[i] != 'n' // n is null
		}
		i = skipSpace(obj, valueEnd(obj, i))
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return found
}

// keyIs reports whether the quoted JSON string key reads name.
func keyIs(key []byte, name string) bool {
	if len(key) < 2 {
		return false
	}
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key[1:len(key)-1]) == name
	}
	var s string
	return json.Unmarshal(key, &s) == nil && s == name
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace, or len(b).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index after the JSON value that starts at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// jsonProblem turns a decoding error into a message that names the field.
func jsonProblem(err error, body []byte) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field == "" {
			return fmt.Sprintf("body: want a JSON object, got %s", te.Value)
		}
		return fmt.Sprintf("%s: want %s, got %s", te.Field, typeName(te.Type.String()), te.Value)
	case errors.As(err, &se):
		line, col := position(body, se.Offset)
		return fmt.Sprintf("body: malformed JSON at line %d, column %d: %v", line, col, se)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "body: the JSON object is cut short"
	}
	return "body: " + err.Error()
}

func typeName(t string) string {
	switch t {
	case "string", "*string":
		return "a string"
	case "[]string":
		return "an array of strings"
	}
	return t
}

func position(body []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset-1 && i < int64(len(body)); i++ {
		if body[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// writeJSON writes v as the response body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeErrors(w, http.StatusInternalServerError, "internal error: encoding the response")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeEncoded writes body, a JSON value encoded by json.Marshal, as the
// response body: what writeJSON writes for the value, without encoding it
// again. body is not modified (the engine's sink may hold it too).
func writeEncoded(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(status)
	_, _ = w.Write(body)
	_, _ = w.Write(newline)
}

var newline = []byte{'\n'}

// emptyObject is the JSON object without members.
var emptyObject = []byte("{}")

// jsonContentType is the Content-Type header's value of JSON answers, one
// slice for all (Header.Set would allocate one per answer): net/http only
// reads it, and copies it when the header is written.
var jsonContentType = []string{"application/json"}

// writeErrors writes {"errors": [...]}.
func writeErrors(w http.ResponseWriter, status int, msgs ...string) {
	b, _ := json.Marshal(apiv2.ErrorBody{Errors: msgs})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// errBodyMemory: the bodies being read have reached MaxBodyMemory.
var errBodyMemory = errors.New("request bodies at their memory limit")

// readAll reads a body of known (length >= 0) or unknown length. The buffer
// starts at the announced length when that is small, and otherwise grows
// with the bytes that arrive, so that a client that announces a megabyte and
// sends a byte costs 4 KiB, not a megabyte. Every buffer it allocates past
// the first 4 KiB is first reserved in h.bodyBytes and added to *reserved,
// which the caller gives back when done with the body; errBodyMemory when
// MaxBodyMemory would be passed.
func (h *Handler) readAll(r io.Reader, length int64, reserved *int64) ([]byte, error) {
	const first = 4 << 10
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if length >= 0 && int64(len(buf)) == length && buf != nil {
				// A body longer than announced is the server's to refuse.
				var one [1]byte
				if n, _ := r.Read(one[:]); n > 0 {
					return nil, errors.New("body longer than its Content-Length")
				}
				return buf, nil
			}
			grow := max(int64(cap(buf)), first)
			if length >= 0 {
				grow = min(grow, length-int64(len(buf)))
			}
			// The first block is not counted: max_connections bounds
			// those, and so small requests go on while large bodies hold
			// the memory.
			if cap(buf) > 0 {
				if h.bodyBytes.Add(grow) > h.cfg.MaxBodyMemory {
					h.bodyBytes.Add(-grow)
					return nil, errBodyMemory
				}
				*reserved += grow
			}
			// make, not append or slices.Grow, whose capacity would be
			// rounded up past what was reserved.
			next := make([]byte, len(buf), int64(cap(buf))+grow)
			copy(next, buf)
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if length >= 0 && int64(len(buf)) < length {
				return nil, io.ErrUnexpectedEOF
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
