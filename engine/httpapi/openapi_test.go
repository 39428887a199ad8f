package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/numenhq/numen/engine/store/sqlitestore"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
	"github.com/stretchr/testify/require"
)

// The tests below hold the OpenAPI document (openapi.json) to the handlers
// and to the wire types of package apiv2: the same endpoints, the same
// field names, valid references, examples that fit their schemas, and
// schemas that every live response fits.

// openAPIDoc parses the document, numbers as json.Number.
func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(OpenAPI))
	dec.UseNumber()
	var doc map[string]any
	require.NoError(t, dec.Decode(&doc), "openapi.json is not valid JSON")
	require.False(t, dec.More(), "openapi.json: data after the document")
	return doc
}

// pointer resolves a local JSON pointer ("#/components/schemas/X").
func pointer(doc map[string]any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("%q is not a local reference", ref)
	}
	var cur any = doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not inside an object", ref, tok)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("%s: no %q", ref, tok)
		}
	}
	return cur, nil
}

// deref follows $ref until an object without one.
func deref(t *testing.T, doc map[string]any, v any) map[string]any {
	t.Helper()
	for range 10 {
		m, ok := v.(map[string]any)
		require.True(t, ok, "want an object, have %T", v)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var err error
		v, err = pointer(doc, ref)
		require.NoError(t, err)
	}
	t.Fatal("$ref chain too long")
	return nil
}

// walk calls f for every object of the document with its location.
func walk(v any, at string, f func(at string, m map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(at, v)
		for k, x := range v {
			walk(x, at+"/"+k, f)
		}
	case []any:
		for i, x := range v {
			walk(x, at+"/"+strconv.Itoa(i), f)
		}
	}
}

func docKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// operations returns the document's operations by "METHOD /path".
func operations(t *testing.T, doc map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	paths, ok := doc["paths"].(map[string]any)
	require.True(t, ok, "paths")
	for p, item := range paths {
		for m, o := range item.(map[string]any) {
			require.Contains(t, httpMethods, m, "%s: %q is not an operation (parameters and the like belong in the operations)", p, m)
			out[strings.ToUpper(m)+" "+p] = o.(map[string]any)
		}
	}
	return out
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	require.Equal(t, "3.1.0", doc["openapi"])
	info := doc["info"].(map[string]any)
	require.Equal(t, "Numen lookup API", info["title"])
	require.Equal(t, "2", info["version"])
	for _, want := range []string{"X-Signatures", "webhook-signature", "/healthz", "/metrics", "SYNC-API-NT-", "0.0100", "REJECTED"} {
		require.Contains(t, info["description"], want)
	}
	require.Equal(t, []any{map[string]any{"url": "http://127.0.0.1:8080/api/v2", "description": "A local Numen sidecar (numen serve)."}}, doc["servers"])
	require.ElementsMatch(t, []string{"hlrResults", "ntResults"}, docKeys(doc["webhooks"].(map[string]any)))

	// Pretty-printed with two spaces, so that diffs stay readable.
	var compact, pretty bytes.Buffer
	require.NoError(t, json.Compact(&compact, OpenAPI))
	require.NoError(t, json.Indent(&pretty, compact.Bytes(), "", "  "))
	pretty.WriteByte('\n')
	require.Equal(t, pretty.String(), string(OpenAPI), "openapi.json must be indented with 2 spaces and end with a newline")
}

func TestOpenAPIPathsAreTheEndpoints(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	ops := operations(t, doc)
	require.Equal(t, Endpoints(), docKeys(ops), "documented operations and served endpoints differ")
	for _, p := range docKeys(doc["paths"].(map[string]any)) {
		require.Equal(t, strings.ToLower(p), p, "paths are matched lower-cased")
	}

	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	ids := map[string]bool{}
	for _, e := range endpoints() {
		name := e.method + " " + e.path
		o := ops[name]
		id, _ := o["operationId"].(string)
		require.NotEmpty(t, id, name)
		require.False(t, ids[id], "%s: operationId %s given twice", name, id)
		ids[id] = true
		require.NotEmpty(t, o["summary"], name)
		require.NotEmpty(t, o["description"], name)

		sec, ok := o["security"].([]any)
		require.True(t, ok, "%s: every operation states its security", name)
		if e.public {
			require.Empty(t, sec, "%s is public", name)
		} else {
			require.NotEmpty(t, sec, "%s is protected", name)
			for _, req := range sec {
				require.NotEmpty(t, req, "%s: an empty requirement would make it public", name)
				for s := range req.(map[string]any) {
					require.Contains(t, schemes, s, name)
				}
			}
		}

		responses := o["responses"].(map[string]any)
		want := []string{"200", "405", "413", "500"}
		if !e.public {
			// Public endpoints read no body: none can be unreadable (400),
			// late (408) or wait for memory (503).
			want = append(want, "400", "401", "403", "408", "429", "503")
		}
		for _, code := range want {
			_, ok := responses[code]
			require.True(t, ok, "%s: response %s is not documented", name, code)
		}
		if e.method == http.MethodPost {
			require.NotNil(t, o["requestBody"], "%s: request body", name)
		}
	}
	// The document's default is the protected one.
	require.Equal(t, ops["POST /hlr-lookup"]["security"], doc["security"])
	require.Equal(t, ops["GET /route"]["parameters"], []any{map[string]any{"$ref": "#/components/parameters/MSISDNQuery"}, map[string]any{"$ref": "#/components/parameters/CountryQuery"}})
	for _, bulk := range []string{"POST /hlr-lookups", "POST /nt-lookups"} {
		require.Equal(t, ops[bulk]["parameters"], []any{map[string]any{"$ref": "#/components/parameters/IdempotencyKey"}}, bulk)
		for _, code := range []string{"409", "412", "501", "503"} {
			_, ok := ops[bulk]["responses"].(map[string]any)[code]
			require.True(t, ok, "%s: response %s is not documented", bulk, code)
		}
	}
}

func TestOpenAPIReferencesResolve(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	used := map[string]bool{}
	n := 0
	walk(doc, "#", func(at string, m map[string]any) {
		ref, ok := m["$ref"]
		if !ok {
			return
		}
		s, ok := ref.(string)
		require.True(t, ok, "%s: $ref is not a string", at)
		_, err := pointer(doc, s)
		require.NoError(t, err, "%s: dangling $ref", at)
		used[s] = true
		n++
	})
	require.Greater(t, n, 50)
	// Every component is used: no leftovers of renamed schemas.
	comps := doc["components"].(map[string]any)
	for _, kind := range []string{"schemas", "responses", "parameters", "headers"} {
		for name := range comps[kind].(map[string]any) {
			require.True(t, used["#/components/"+kind+"/"+name], "components/%s/%s is never referenced", kind, name)
		}
	}
}

// jsonKeys returns the keys of v's JSON object: the wire names as the API
// writes them, custom marshallers included.
func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return docKeys(m)
}

// jsonAt returns the JSON value at a path of keys (and array indices) in v.
func jsonAt(t *testing.T, v any, path ...string) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var cur any
	require.NoError(t, json.Unmarshal(b, &cur))
	for _, p := range path {
		if i, err := strconv.Atoi(p); err == nil {
			cur = cur.([]any)[i]
		} else {
			cur = cur.(map[string]any)[p]
		}
	}
	return cur
}

func keysOfValue(v any) []string {
	return docKeys(v.(map[string]any))
}

func TestOpenAPISchemasMatchWireTypes(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	s := "s"
	full := routing.Map{
		DefaultRoute: "GT1", MNPFallback: true,
		MCCMNCs:   []routing.MCCMNCRule{{MCCMNC: "26201", CountryCode: "DE", Route: "DS7", MNO: "x", Confidence: "HIGH", Origin: "SCORE"}},
		Prefixes:  []routing.PrefixRule{{CountryCode: "DE", CNS: "+49151", Route: "DS7", MCCMNC: "26201", MNO: "x"}},
		Countries: []routing.CountryRule{{CountryCode: "DE", Route: "GT1"}},
	}
	var rm apiv2.RoutingMap
	rm.Routing.Map = json.RawMessage(`{}`)
	coverage := routing.Coverage{About: "x", Routes: []routing.Route{{}}, Networks: []routing.Network{{}}, Scores: []routing.Score{{}}}
	mnpCov := apiv2.MNPCoverage{Countries: []apiv2.MNPCountry{{Routes: []apiv2.MNPRoute{{Backends: []apiv2.MNPBackend{{}}}}}}}

	for _, tc := range []struct {
		schema   string
		keys     []string
		required []string // nil: every key
	}{
		// Response objects: every key is always written.
		{"HLRResult", jsonKeys(t, apiv2.HLRResult{}), nil},
		{"MNPResult", jsonKeys(t, apiv2.MNPResult{}), nil},
		{"NTResult", jsonKeys(t, apiv2.NTResult{}), nil},
		{"RouteDecision", jsonKeys(t, apiv2.RouteDecision{}), nil},
		{"Receipt", jsonKeys(t, apiv2.Receipt{}), nil},
		{"SubmittedMSISDN", jsonKeys(t, apiv2.Submitted{}), nil},
		{"SubmittedNumber", jsonKeys(t, apiv2.Submitted{NT: true}), nil},
		{"ErrorBody", jsonKeys(t, apiv2.ErrorBody{}), nil},
		{"Time", jsonKeys(t, apiv2.Time{}), nil},
		{"AuthTest", jsonKeys(t, apiv2.AuthTest{}), nil},
		{"Ping", jsonKeys(t, apiv2.Ping{}), nil},
		{"MCCMNCs", jsonKeys(t, apiv2.MCCMNCs{}), nil},
		{"MCCMNCEntry", jsonKeys(t, apiv2.MCCMNC{}), nil},
		{"MNPCoverage", jsonKeys(t, mnpCov), nil},
		{"MNPCoverage/properties/countries/items", keysOfValue(jsonAt(t, mnpCov, "countries", "0")), nil},
		{"MNPCoverage/properties/countries/items/properties/routes/items", keysOfValue(jsonAt(t, mnpCov, "countries", "0", "routes", "0")), nil},
		{"MNPCoverage/properties/countries/items/properties/routes/items/properties/backends/items", keysOfValue(jsonAt(t, mnpCov, "countries", "0", "routes", "0", "backends", "0")), nil},
		{"Routes", jsonKeys(t, apiv2.Routes{}), nil},
		{"Routes/properties/routes", keysOfValue(jsonAt(t, apiv2.Routes{}, "routes")), nil},
		{"RoutingMapResponse", jsonKeys(t, rm), nil},
		{"RoutingMapResponse/properties/routing", keysOfValue(jsonAt(t, rm, "routing")), nil},
		{"RoutingMap", jsonKeys(t, &full), nil},
		{"MCCMNCRule", keysOfValue(jsonAt(t, &full, "mccmncs", "0")), nil},
		{"PrefixRule", keysOfValue(jsonAt(t, &full, "prefixes", "0")), nil},
		{"CountryRule", keysOfValue(jsonAt(t, &full, "countries", "0")), nil},
		{"Coverage", jsonKeys(t, coverage), []string{"networks", "routes", "scores"}}, // about is omitted when empty
		{"Coverage/properties/routes/items", keysOfValue(jsonAt(t, coverage, "routes", "0")), nil},
		{"Coverage/properties/networks/items", keysOfValue(jsonAt(t, coverage, "networks", "0")), nil},
		{"Coverage/properties/scores/items", keysOfValue(jsonAt(t, coverage, "scores", "0")), nil},
		{"HLRWebhookBatch", jsonKeys(t, apiv2.WebhookBatch{}), nil},
		{"NTWebhookBatch", jsonKeys(t, apiv2.WebhookBatch{}), nil},
		{"Balance", jsonKeys(t, apiv2.Balance{}), nil},
		// Request bodies: the number is required, route and storage not.
		{"HLRLookupRequest", jsonKeys(t, apiv2.HLRLookupRequest{Route: &s, Storage: &s, Country: &s}), []string{"msisdn"}},
		{"MNPLookupRequest", jsonKeys(t, apiv2.MNPLookupRequest{Route: &s, Storage: &s, Country: &s}), []string{"msisdn"}},
		{"NTLookupRequest", jsonKeys(t, apiv2.NTLookupRequest{Route: &s, Storage: &s, Country: &s}), []string{"number"}},
		{"HLRLookupsRequest", jsonKeys(t, apiv2.HLRLookupsRequest{Route: &s, Storage: &s, Country: &s}), []string{"msisdns"}},
		{"NTLookupsRequest", jsonKeys(t, apiv2.NTLookupsRequest{Route: &s, Storage: &s, Country: &s}), []string{"numbers"}},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			at, err := pointer(doc, "#/components/schemas/"+tc.schema)
			require.NoError(t, err)
			sc := deref(t, doc, at)
			props, ok := sc["properties"].(map[string]any)
			require.True(t, ok, "no properties")
			require.Equal(t, tc.keys, docKeys(props), "property names differ from the Go type's JSON names")
			want := tc.required
			if want == nil {
				want = tc.keys
			}
			var req []string
			if r, ok := sc["required"]; ok {
				req = strs(r)
			}
			sort.Strings(req)
			require.Equal(t, want, req, "required")
			if strings.HasSuffix(tc.schema, "Request") {
				// Request bodies are open: unknown members are ignored.
				require.NotContains(t, sc, "additionalProperties", "open object")
			} else {
				require.Equal(t, false, sc["additionalProperties"], "closed object")
			}
		})
	}
	require.Contains(t, schemas, "LegacyNTResult")

	// The enums are the values the engine writes.
	enum := func(ref string) []string {
		v, err := pointer(doc, ref)
		require.NoError(t, err)
		return strs(v)
	}
	var origins []string
	for _, o := range routing.Origins() {
		origins = append(origins, o.String())
	}
	require.Equal(t, origins, enum("#/components/schemas/Origin/enum"))
	require.Equal(t, []string{"LANDLINE", "MOBILE", "MOBILE_OR_LANDLINE", "TOLL_FREE", "PREMIUM_RATE", "SHARED_COST", "VOIP", "PAGER", "UAN", "VOICEMAIL", "UNKNOWN"},
		enum("#/components/schemas/NumberType/enum"))
	for _, c := range []routing.Confidence{routing.Low, routing.Normal, routing.High, routing.MNPFallback} {
		require.Contains(t, enum("#/components/schemas/ConfidenceLevel/enum"), c.String())
	}
	require.Equal(t, []string{engine.LiveHLR, engine.MNPDB}, enum("#/components/schemas/HLRResult/properties/data_source/enum"))
	require.Equal(t, []string{mnp.Completed.String(), mnp.Rejected.String(), mnp.Failed.String()}, enum("#/components/schemas/ProcessingStatus/enum"))
	require.Equal(t, []string{mnp.Connected.String(), mnp.Absent.String(), mnp.InvalidMSISDN.String(), mnp.Undetermined.String()},
		enum("#/components/schemas/HLRResult/properties/connectivity_status/enum"))
	for _, st := range []numbering.Status{numbering.StatusOK, numbering.StatusFailed} {
		require.Contains(t, enum("#/components/schemas/NTResult/properties/query_status/enum"), st.String())
		require.Contains(t, enum("#/components/schemas/MNPResult/properties/query_status/enum"), st.String())
	}
	var types []string
	for _, ty := range numbering.Types() {
		types = append(types, ty.String())
	}
	require.ElementsMatch(t, types, enum("#/components/schemas/NumberType/enum"))
}

func TestOpenAPIErrorCodesDocumented(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	sc := deref(t, doc, doc["components"].(map[string]any)["schemas"].(map[string]any)["ErrorCode"])
	desc := sc["description"].(string)
	codes := mnp.Codes()
	require.NotEmpty(t, codes)
	for _, code := range codes {
		require.Contains(t, desc, fmt.Sprintf("| %d | ", code), "error_code %d is not documented", code)
		require.Regexp(t, fmt.Sprintf(`\| %d \| (COMPLETED|REJECTED|FAILED) \| %s \|`, code, regexp.QuoteMeta(code.Description())), desc)
	}
}

// ---- a small JSON Schema (2020-12) validator for the keywords the document uses

type schemaChecker struct {
	doc map[string]any
}

// annotations are keywords that assert nothing.
var annotations = map[string]bool{
	"description": true, "summary": true, "title": true, "examples": true, "example": true,
	"format": true, "default": true, "deprecated": true, "$comment": true,
}

func (c *schemaChecker) check(schema, v any, at string) error {
	sc, ok := schema.(map[string]any)
	if !ok {
		if b, ok := schema.(bool); ok && !b {
			return fmt.Errorf("%s: not allowed", at)
		}
		return nil
	}
	for _, kw := range docKeys(sc) {
		arg := sc[kw]
		var err error
		switch kw {
		case "$ref":
			var target any
			if target, err = pointer(c.doc, arg.(string)); err == nil {
				err = c.check(target, v, at)
			}
		case "type":
			types, ok := arg.([]any)
			if !ok {
				types = []any{arg}
			}
			if !slices.ContainsFunc(types, func(t any) bool { return hasType(v, t.(string)) }) {
				err = fmt.Errorf("%s: %s is not of type %v", at, short(v), arg)
			}
		case "enum":
			if !slices.ContainsFunc(arg.([]any), func(e any) bool { return reflect.DeepEqual(e, v) }) {
				err = fmt.Errorf("%s: %s is not one of %v", at, short(v), arg)
			}
		case "const":
			if !reflect.DeepEqual(arg, v) {
				err = fmt.Errorf("%s: %s is not %v", at, short(v), arg)
			}
		case "pattern":
			if s, ok := v.(string); ok && !regexp.MustCompile(arg.(string)).MatchString(s) {
				err = fmt.Errorf("%s: %q does not match %s", at, s, arg)
			}
		case "minLength", "maxLength":
			if s, ok := v.(string); ok {
				n, lim := utf8.RuneCountInString(s), intArg(arg)
				if kw == "minLength" && n < lim || kw == "maxLength" && n > lim {
					err = fmt.Errorf("%s: %q: %s %d", at, s, kw, lim)
				}
			}
		case "minItems", "maxItems":
			if a, ok := v.([]any); ok {
				n, lim := len(a), intArg(arg)
				if kw == "minItems" && n < lim || kw == "maxItems" && n > lim {
					err = fmt.Errorf("%s: %d items: %s %d", at, n, kw, lim)
				}
			}
		case "minimum", "maximum":
			if n, ok := v.(json.Number); ok {
				x, _ := new(big.Float).SetString(n.String())
				lim, _ := new(big.Float).SetString(arg.(json.Number).String())
				if kw == "minimum" && x.Cmp(lim) < 0 || kw == "maximum" && x.Cmp(lim) > 0 {
					err = fmt.Errorf("%s: %s: %s %s", at, n, kw, lim)
				}
			}
		case "items":
			if a, ok := v.([]any); ok {
				for i, x := range a {
					if err = c.check(arg, x, at+"/"+strconv.Itoa(i)); err != nil {
						break
					}
				}
			}
		case "properties":
			if m, ok := v.(map[string]any); ok {
				for _, k := range docKeys(arg.(map[string]any)) {
					if x, ok := m[k]; ok {
						if err = c.check(arg.(map[string]any)[k], x, at+"/"+k); err != nil {
							break
						}
					}
				}
			}
		case "required":
			if m, ok := v.(map[string]any); ok {
				for _, k := range strs(arg) {
					if _, ok := m[k]; !ok {
						err = fmt.Errorf("%s: %s is required", at, k)
						break
					}
				}
			}
		case "additionalProperties":
			if m, ok := v.(map[string]any); ok {
				props, _ := sc["properties"].(map[string]any)
				for _, k := range docKeys(m) {
					if _, ok := props[k]; !ok {
						if err = c.check(arg, m[k], at+"/"+k); err != nil {
							break
						}
					}
				}
			}
		case "allOf", "anyOf", "oneOf":
			var errs []error
			for _, sub := range arg.([]any) {
				errs = append(errs, c.check(sub, v, at))
			}
			passed := 0
			for _, e := range errs {
				if e == nil {
					passed++
				}
			}
			switch {
			case kw == "allOf" && passed < len(errs), kw == "anyOf" && passed == 0:
				err = fmt.Errorf("%s: %s: %w", at, kw, errors.Join(errs...))
			case kw == "oneOf" && passed != 1:
				err = fmt.Errorf("%s: oneOf: %d subschemas match: %w", at, passed, errors.Join(errs...))
			}
		default:
			if !annotations[kw] {
				err = fmt.Errorf("%s: keyword %q is not checked by this test; teach schemaChecker or avoid it", at, kw)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func hasType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	case json.Number:
		if t == "number" {
			return true
		}
		f, ok := new(big.Float).SetString(v.String())
		return t == "integer" && ok && f.IsInt()
	}
	return false
}

func intArg(v any) int {
	n, err := strconv.Atoi(v.(json.Number).String())
	if err != nil {
		panic(err)
	}
	return n
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s", b)
	return v
}

func TestOpenAPISchemaChecker(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	c := &schemaChecker{doc: doc}
	hlr := decodeJSON(t, []byte(`{"type": "HLR", "results": []}`))
	require.ErrorContains(t, c.check(map[string]any{"$ref": "#/components/schemas/HLRWebhookBatch"}, hlr, "#"), "minItems")
	require.ErrorContains(t, c.check(map[string]any{"$ref": "#/components/schemas/Time"}, decodeJSON(t, []byte(`{"time": 1.5}`)), "#"), "type")
	require.ErrorContains(t, c.check(map[string]any{"$ref": "#/components/schemas/Time"}, decodeJSON(t, []byte(`{"time": 1, "x": 2}`)), "#"), "not allowed")
	require.ErrorContains(t, c.check(map[string]any{"$ref": "#/components/schemas/AuthTest"}, decodeJSON(t, []byte(`{}`)), "#"), "success is required")
	require.ErrorContains(t, c.check(map[string]any{"$ref": "#/components/schemas/RoutingInstruction"}, "AUTO:DS7:NOPE", "#"), "does not match")
	require.ErrorContains(t, c.check(map[string]any{"uniqueItems": true}, "x", "#"), "not checked")
	require.NoError(t, c.check(map[string]any{"$ref": "#/components/schemas/RoutingInstruction"}, "STATIC:GT1:FAILOVER-2", "#"))
}

func TestOpenAPIExamplesFitSchemas(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	c := &schemaChecker{doc: doc}
	n := 0
	walk(doc, "#", func(at string, m map[string]any) {
		schema, ok := m["schema"].(map[string]any)
		if !ok {
			return
		}
		if e, ok := m["example"]; ok {
			require.NoError(t, c.check(schema, e, at+"/example"))
			n++
		}
		examples, _ := m["examples"].(map[string]any)
		for name, e := range examples {
			ex := deref(t, doc, e)
			v, ok := ex["value"]
			require.True(t, ok, "%s/examples/%s: no value", at, name)
			require.NoError(t, c.check(schema, v, at+"/examples/"+name))
			n++
		}
	})
	require.Greater(t, n, 60)
}

func TestOpenAPIServedOverLoopback(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	status, hdr, b := s.do(t, http.MethodGet, "/api/v2/openapi.json", "", noAuth)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "application/json", hdr.Get("Content-Type"))
	require.True(t, bytes.Equal(OpenAPI, b), "GET /api/v2/openapi.json differs from the embedded document")
}

// receiptBulk is a BulkHandler that answers like a real one: ids for valid
// numbers, rejected invalid ones, idempotency keys, and failures on request.
type receiptBulk struct {
	eng  *engine.Engine
	mu   sync.Mutex
	seen map[string][32]byte
}

func (b *receiptBulk) Submit(ctx context.Context, a *account.Account, s engine.Submission) (*apiv2.Receipt, []byte, error) {
	r, err := b.submit(a, s)
	if err == nil {
		// The account's limits, as the real one checks them.
		cost, _ := engine.ParseMoney(string(r.Cost))
		err = b.eng.CheckBudget(ctx, a.Profile, cost)
	}
	if err != nil {
		return nil, nil, err
	}
	return r, r.AppendJSON(nil), nil
}

func (b *receiptBulk) submit(a *account.Account, s engine.Submission) (*apiv2.Receipt, error) {
	numbers, route, storage, country, idem, body := s.Numbers, s.Route, s.Storage, s.Country, s.IdempotencyKey, s.Body
	switch storage {
	case "not-recorded":
		return nil, fmt.Errorf("%w: disk full", engine.ErrNotRecorded)
	case "boom":
		return nil, errors.New("boom")
	}
	if idem != "" {
		b.mu.Lock()
		prev, ok := b.seen[idem]
		if !ok {
			b.seen[idem] = sha256.Sum256(body)
		}
		b.mu.Unlock()
		if ok && prev != sha256.Sum256(body) {
			return nil, engine.ErrIdempotencyKeyReused
		}
	}
	nt := s.Product == engine.ProductNT
	if route == "" {
		route = map[bool]string{true: "NT1", false: "GT1"}[nt]
	}
	r := &apiv2.Receipt{Accepted: []apiv2.Submitted{}, Rejected: []apiv2.Submitted{}, WebhookURLs: a.WebhookURLs, Route: route}
	for _, n := range numbers {
		res := b.eng.Plan().ClassifyString(n)
		if country != "" {
			var err error
			if res, err = b.eng.Plan().ClassifyIn(n, country); err != nil {
				return nil, &engine.RequestError{Field: "country", Problem: err.Error()}
			}
		}
		if !res.Valid {
			r.Rejected = append(r.Rejected, apiv2.Submitted{Number: n, NT: nt})
			continue
		}
		id, err := b.eng.NewID()
		if err != nil {
			return nil, err
		}
		r.Accepted = append(r.Accepted, apiv2.Submitted{ID: &id, Number: n, NT: nt})
	}
	r.AcceptedCount, r.RejectedCount, r.TotalCount = len(r.Accepted), len(r.Rejected), len(numbers)
	price := engine.DefaultPrices.HLR
	p := routing.HLR
	if nt {
		price, p = engine.DefaultPrices.NT, routing.NT
	}
	r.Cost = apiv2.Decimal((price * engine.Money(len(r.Accepted))).String())
	r.Storage = engine.StorageName(storage, p, true, time.Now())
	return r, nil
}

// oneEach remembers one signature: the same again is a replay, another is
// one too many (and empties the memory for the next path's first request).
type oneEach struct {
	mu   sync.Mutex
	seen map[[32]byte]bool
}

func (g *oneEach) ClaimSignature(_ context.Context, key string, ts int64, sig [32]byte, now time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seen = map[[32]byte]bool{}
	}
	switch {
	case g.seen[sig]:
		return auth.ReplayedSignature(key)
	case len(g.seen) > 0:
		clear(g.seen)
		return &auth.ReplayMemoryFullError{Key: key, Limit: 1, RetryAfter: 30 * time.Second}
	}
	g.seen[sig] = true
	return nil
}

// TestOpenAPIDescribesLiveResponses sends requests that provoke every
// documented outcome and requires each response to be documented for its
// endpoint and status and to fit the documented schema and headers.
func TestOpenAPIDescribesLiveResponses(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	c := &schemaChecker{doc: doc}
	ops := operations(t, doc)
	seen := map[string]bool{} // "METHOD /path status"

	withBulk := func(cfg *Config, a *account.Account) {
		cfg.Bulk = &receiptBulk{eng: cfg.Engine, seen: map[string][32]byte{}}
		a.WebhookURLs = []string{"https://example.com/numen-results"}
	}
	main := newServer(t, withBulk)
	withMap := newServer(t, func(cfg *Config, a *account.Account) {
		m, err := routing.ParseMap([]byte(`{"defaultRoute": "GT1", "mnpFallback": true,
			"mccmncs": [{"mccmnc": "26203", "countrycode": "DE", "route": "GT2", "mno": "Telefónica Germany (O2)"}],
			"prefixes": [{"cns": "+49151", "route": "DS7", "mccmnc": "26201"}, {"cns": "+4917", "route": "REJECT"}],
			"countries": [{"countrycode": "FR", "route": "GT1"}]}`))
		require.NoError(t, err)
		a.Profile, err = cfg.Engine.NewProfile(engine.ProfileOptions{Key: key, Map: m})
		require.NoError(t, err)
	})
	noBulk := newServer(t, nil)
	noWebhook := newServer(t, func(cfg *Config, a *account.Account) { withBulk(cfg, a); a.WebhookURLs = nil })
	small := newServer(t, func(cfg *Config, a *account.Account) { cfg.MaxBodyBytes = 64 })
	fenced := newServer(t, func(cfg *Config, a *account.Account) {
		a.Whitelist = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	})
	digestOnly := newServer(t, func(cfg *Config, a *account.Account) { a.Methods = []string{"digest"} })
	limited := newServer(t, func(cfg *Config, a *account.Account) { a.RateLimit, a.RateBurst = 0.001, 1 })
	unrecorded := newServer(t, nil)
	slowBodies := newServer(t, func(cfg *Config, a *account.Account) { cfg.BodyTimeout = 50 * time.Millisecond })
	busy := newServer(t, func(cfg *Config, a *account.Account) { cfg.MaxBodyMemory = 16 })
	guarded := newServer(t, func(cfg *Config, a *account.Account) { cfg.Replays = &oneEach{} })
	unrecorded.sinkErr.Store(errors.New("disk full"))
	sign := digest(secret, 0)

	verify := func(method, target string, status int, hdr http.Header, b []byte) {
		t.Helper()
		rel := strings.TrimPrefix(target, apiv2.Base)
		rel, _, _ = strings.Cut(rel, "?")
		if strings.HasPrefix(rel, reportPrefix) {
			rel = reportPath // the operation of every report's path
		}
		// The path's operation; a wrong method's 405 is documented there.
		var name string
		var o map[string]any
		for n, op := range ops {
			if strings.HasSuffix(n, " "+strings.ToLower(rel)) {
				name, o = n, op
			}
		}
		if o == nil {
			// Unknown paths are not operations; their body is still
			// an ErrorBody.
			require.NoError(t, c.check(map[string]any{"$ref": "#/components/schemas/ErrorBody"}, decodeJSON(t, b), rel))
			return
		}
		code := strconv.Itoa(status)
		resp, ok := o["responses"].(map[string]any)[code]
		require.True(t, ok, "%s: status %d is not documented; body %s", name, status, b)
		seen[name+" "+code] = true
		r := deref(t, doc, resp)
		media := r["content"].(map[string]any)["application/json"].(map[string]any)
		require.Equal(t, "application/json", hdr.Get("Content-Type"), name)
		require.NoError(t, c.check(media["schema"], decodeJSON(t, b), name+" "+code), "%s", b)
		headers, _ := r["headers"].(map[string]any)
		for h, spec := range headers {
			hs := deref(t, doc, spec)
			v := hdr.Get(h)
			if req, _ := hs["required"].(bool); req || h == "X-Content-Type-Options" {
				require.NotEmpty(t, v, "%s %d: header %s", name, status, h)
			}
			if v == "" {
				continue
			}
			var hv any = v
			if _, err := strconv.Atoi(v); err == nil {
				hv = json.Number(v)
			}
			require.NoError(t, c.check(hs["schema"], hv, name+" header "+h))
		}
	}

	expect := func(s *server, method, target, body string, sg signer, status int) {
		t.Helper()
		got, hdr, b := s.do(t, method, target, body, sg)
		require.Equal(t, status, got, "%s %s %s: %s", method, target, body, b)
		verify(method, target, status, hdr, b)
	}
	// raw sends a request written by hand (with credentials: Basic, which
	// does not cover the body and is checked before the body is read) and
	// requires the status.
	raw := func(s *server, method, target, rest string, status int) {
		t.Helper()
		conn, err := net.Dial("tcp", s.Listener.Addr().String())
		require.NoError(t, err)
		defer conn.Close()
		_, err = fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: numen\r\nAuthorization: %s\r\n%s", method, target, auth.BasicHeader(key, secret), rest)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, status, resp.StatusCode, "%s %s: %s", method, target, b)
		verify(method, target, resp.StatusCode, resp.Header, b)
	}
	// unreadable sends a body in broken chunked encoding.
	unreadable := func(s *server, method, target string) {
		t.Helper()
		raw(s, method, target, "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n\r\n", http.StatusBadRequest)
	}
	// stalled announces a body of 100 bytes and sends one.
	stalled := func(s *server, method, target string) {
		t.Helper()
		raw(s, method, target, "Content-Length: 100\r\n\r\n{", http.StatusRequestTimeout)
	}

	// 200: every endpoint, and the outcomes of the lookups.
	expect(main, "GET", "/api/v2/time", "", noAuth, 200)
	expect(main, "GET", "/api/v2/openapi.json", "", noAuth, 200)
	expect(main, "GET", "/api/v2/auth-test", "", sign, 200)
	expect(main, "GET", "/api/v2/auth-test", "", xBasic, 200)
	expect(main, "GET", "/api/v2/auth-test", "", basic, 200)
	for _, body := range []string{
		`{"msisdn": "+4915123456789"}`,
		`{"msisdn": "+4915123456789", "route": "GT1", "storage": "campaign"}`,
		`{"msisdn": "+4915123456789", "route": "MP1", "storage": null}`,
		`{"msisdn": "+442079460000"}`,
		`{"msisdn": "+491512"}`,
		`{"msisdn": "+881612345678"}`,
		`{"msisdn": "+80012345678"}`,
		`{"msisdn": "0301234567"}`,
		`{"msisdn": "+12423570000"}`,
	} {
		expect(main, "POST", "/api/v2/hlr-lookup", body, sign, 200)
	}
	for _, body := range []string{`{"msisdn": "+4915123456789"}`, `{"msisdn": "+4917612345678"}`, `{"msisdn": "+33612345678"}`} {
		expect(withMap, "POST", "/api/v2/hlr-lookup", body, sign, 200)
	}
	for _, body := range []string{`{"msisdn": "+31612345678"}`, `{"msisdn": "+3161", "route": "MP1"}`, `{"msisdn": "hello"}`} {
		expect(main, "POST", "/api/v2/mnp-lookup", body, sign, 200)
	}
	for _, body := range []string{
		`{"number": "+4915123456789"}`, `{"number": "+442079460000", "storage": "nt"}`, `{"number": "0301234567"}`,
		`{"number": "+1800FLOWERS"}`, `{"number": "+80012345678"}`, `{"number": "+3906698"}`, `{"number": "+12423570000"}`,
	} {
		expect(main, "POST", "/api/v2/nt-lookup", body, sign, 200)
	}
	expect(main, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["+4915123456789", "+491512"]}`, sign, 200)
	expect(main, "POST", "/api/v2/nt-lookups", `{"numbers": ["+4915123456789", "+442079460000"], "route": "NT1", "storage": "bulk"}`, sign, 200)
	for _, n := range []string{"%2B4915123456789", "%2B14155552671", "%2B8816123456", "004915123456789"} {
		expect(main, "GET", "/api/v2/route?msisdn="+n, "", sign, 200)
	}
	for _, n := range []string{"%2B4915123456789", "%2B4917612345678", "%2B4916012345678", "%2B33612345678"} {
		expect(withMap, "GET", "/api/v2/route?msisdn="+n, "", sign, 200)
	}
	expect(main, "GET", "/api/v2/routes", "", sign, 200)
	expect(main, "GET", "/api/v2/routing-map", "", sign, 200)
	expect(withMap, "GET", "/api/v2/routing-map", "", sign, 200)
	expect(main, "GET", "/api/v2/hlr-coverage", "", sign, 200)
	expect(main, "GET", "/api/v2/ping", "", noAuth, 200)
	for _, q := range []string{"", "?country=DE", "?country=gb"} {
		expect(main, "GET", "/api/v2/mccmncs"+q, "", sign, 200)
		expect(main, "GET", "/api/v2/mnp-coverage"+q, "", sign, 200)
	}
	for _, q := range []string{"?country=XY", "?country=DEU", "?country=DE&country=AT", "?mcc=262"} {
		expect(main, "GET", "/api/v2/mccmncs"+q, "", sign, 400)
		expect(main, "GET", "/api/v2/mnp-coverage"+q, "", sign, 400)
	}
	// Numen's extension: numbers in national format with their country.
	expect(main, "POST", "/api/v2/nt-lookup", `{"number": "0151 23456789", "country": "DE"}`, sign, 200)
	expect(main, "POST", "/api/v2/hlr-lookup", `{"msisdn": "(201) 555-0123", "country": "us"}`, sign, 200)
	expect(main, "POST", "/api/v2/mnp-lookup", `{"msisdn": "06 12 34 56 78", "country": "NL"}`, sign, 200)
	expect(main, "POST", "/api/v2/nt-lookups", `{"numbers": ["0151 23456789", "030 1234567"], "country": "DE"}`, sign, 200)
	expect(main, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["(201) 555-0123"], "country": "US", "route": null}`, sign, 200)
	expect(main, "GET", "/api/v2/route?msisdn=0151%2023456789&country=DE", "", sign, 200)
	for _, c := range []string{`"XY"`, `"DEU"`, `5`} {
		expect(main, "POST", "/api/v2/nt-lookup", `{"number": "0151 23456789", "country": `+c+`}`, sign, 400)
		expect(main, "POST", "/api/v2/hlr-lookup", `{"msisdn": "0151 23456789", "country": `+c+`}`, sign, 400)
		expect(main, "POST", "/api/v2/mnp-lookup", `{"msisdn": "0151 23456789", "country": `+c+`}`, sign, 400)
		expect(main, "POST", "/api/v2/nt-lookups", `{"numbers": ["0151 23456789"], "country": `+c+`}`, sign, 400)
		expect(main, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["0151 23456789"], "country": `+c+`}`, sign, 400)
	}
	expect(main, "GET", "/api/v2/route?msisdn=0151%2023456789&country=XY", "", sign, 400)
	expect(main, "GET", "/api/v2/route?msisdn=0&country=DE", "", sign, 400)
	expect(main, "GET", "/api/v2/route?msisdn=0151%2023456789&country=DE&country=AT", "", sign, 400)

	// 400: the endpoints' own validation.
	for _, body := range []string{
		``, `{"msisdn": }`, `{"msisdn": "+49`, `{"msisdn": 4915123456789}`, `{"msisdn": "+4915123456789", "route": 1}`,
		`{"route": "GT1"}`, `{"msisdn": null}`, `["+4915123456789"]`, `{"msisdn": "+4915123456789"} {}`,
		`{"msisdn": "+4915123456789", "route": "XYZ"}`, `{"msisdn": "+4915123456789", "route": "ABCD"}`,
		`{"msisdn": "+4915123456789", "route": "NT1"}`, `{"msisdn": "+4915123456789", "storage": "` + strings.Repeat("x", 101) + `"}`,
	} {
		expect(main, "POST", "/api/v2/hlr-lookup", body, sign, 400)
	}
	expect(main, "POST", "/api/v2/mnp-lookup", `{"msisdn": "+31612345678", "route": "GT1"}`, sign, 400)
	expect(main, "POST", "/api/v2/nt-lookup", `{"number": "+31612345678", "storage": "a\u0001"}`, sign, 400)
	expect(main, "POST", "/api/v2/nt-lookup", `{"number": ""}`, sign, 400)
	long := strings.Repeat("4", 300)
	expect(main, "POST", "/api/v2/nt-lookup", `{"number": "+`+long+`"}`, sign, 400)
	expect(main, "POST", "/api/v2/hlr-lookup", `{"msisdn": "+`+long+`"}`, sign, 400)
	expect(main, "POST", "/api/v2/mnp-lookup", `{"msisdn": "+`+long+`"}`, sign, 400)
	expect(main, "GET", "/api/v2/route?msisdn="+long, "", sign, 400)
	many, err := json.Marshal(map[string][]string{"msisdns": make([]string, 1001)})
	require.NoError(t, err)
	for _, body := range []string{`{"msisdns": []}`, string(many), `{"msisdns": "+4915123456789"}`, `{"numbers": ["+4915123456789"]}`} {
		expect(main, "POST", "/api/v2/hlr-lookups", body, sign, 400)
	}
	expect(main, "POST", "/api/v2/nt-lookups", `{}`, sign, 400)
	for _, q := range []string{"", "?msisdn=abc", "?msisdn=1&msisdn=2", "?number=1"} {
		expect(main, "GET", "/api/v2/route"+q, "", sign, 400)
	}

	// Bulk: idempotency, preconditions and failures.
	idem := func(k string) signer {
		return func(t *testing.T, s *server, req *http.Request, body []byte) {
			req.Header.Set("Idempotency-Key", k)
			sign(t, s, req, body)
		}
	}
	expect(main, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["+4915123456789"]}`, idem("k1"), 200)
	expect(main, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["+4915123456789"]}`, idem("k1"), 200)
	expect(main, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["+4915100000000"]}`, idem("k1"), 409)
	expect(main, "POST", "/api/v2/nt-lookups", `{"numbers": ["+4915123456789"]}`, idem("k2"), 200)
	expect(main, "POST", "/api/v2/nt-lookups", `{"numbers": ["+4915100000000"]}`, idem("k2"), 409)
	expect(main, "POST", "/api/v2/nt-lookups", `{"numbers": ["+4915123456789"], "storage": "not-recorded"}`, sign, 503)
	expect(main, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["+4915123456789"], "storage": "boom"}`, sign, 500)
	for _, p := range []string{"/api/v2/hlr-lookups", "/api/v2/nt-lookups"} {
		field := map[bool]string{true: "msisdns", false: "numbers"}[strings.HasPrefix(p, "/api/v2/hlr")]
		body := `{"` + field + `": ["+4915123456789"]}`
		expect(noWebhook, "POST", p, body, sign, 412)
		expect(noBulk, "POST", p, body, sign, 501)
	}
	for _, p := range []string{"/api/v2/hlr-lookup", "/api/v2/mnp-lookup"} {
		expect(unrecorded, "POST", p, `{"msisdn": "+4915123456789"}`, sign, 503)
	}
	expect(unrecorded, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"}`, sign, 503)

	// Per endpoint: method, size, authentication, access and rate limits.
	limited.do(t, "GET", "/api/v2/auth-test", "", sign) // spends the only token
	for _, e := range endpoints() {
		target := apiv2.Base + e.path
		wrong := map[string]string{"GET": "POST", "POST": "GET"}[e.method]
		expect(main, wrong, target, "", sign, 405)
		expect(small, e.method, target, `{"padding": "`+strings.Repeat("x", 100)+`"}`, sign, 413)
		if e.public {
			// Public endpoints read no body: any is refused at once.
			expect(main, e.method, target, `{}`, noAuth, 413)
			raw(main, e.method, target, "Content-Length: 100\r\n\r\n{", http.StatusRequestEntityTooLarge)
		} else {
			unreadable(main, e.method, target)
			stalled(slowBodies, e.method, target)
			expect(busy, e.method, target, `{"padding": "`+strings.Repeat("x", 5000)+`"}`, basic, 503) // past the first 4 KiB
		}
		if e.public {
			continue
		}
		expect(main, e.method, target, "", noAuth, 401)
		expect(main, e.method, target, "", digest(secret, 31), 401)
		expect(main, e.method, target, "", digest("wrong", 0), 401)
		expect(fenced, e.method, target, "", sign, 403)
		expect(digestOnly, e.method, target, "", xBasic, 403)
		expect(limited, e.method, target, "", sign, 429)
		if e.method == http.MethodPost {
			// A digest signature sent again, and a key whose memory of
			// signatures is full.
			first, _, b := guarded.do(t, e.method, target, "{}", sign)
			require.Equal(t, http.StatusBadRequest, first, "%s", b)
			expect(guarded, e.method, target, "{}", sign, 401)
			expect(guarded, e.method, target, `{ }`, sign, 429)
		}
	}
	expect(main, "GET", "/api/v2/nope", "", sign, 404)

	// Spending limits: GET /balance, and lookups past a cap (402).
	noCap := engine.Money(0)
	capped := newServer(t, func(cfg *Config, a *account.Account) {
		withBulk(cfg, a)
		mem := &memBalances{}
		a.Limits = engine.Limits{MonthlyCap: &noCap}
		p, err := cfg.Engine.NewProfile(engine.ProfileOptions{Key: a.Key, Budget: mem.Budget(a.Key, a.Limits)})
		require.NoError(t, err)
		a.Profile, cfg.Balances = p, mem
	})
	expect(capped, "GET", "/api/v2/balance", "", sign, 200)
	expect(main, "GET", "/api/v2/balance", "", sign, 200)
	expect(capped, "POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456789"}`, sign, 402)
	expect(capped, "POST", "/api/v2/mnp-lookup", `{"msisdn": "+4915123456789"}`, sign, 402)
	expect(capped, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"}`, sign, 402)
	expect(capped, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["+4915123456789"]}`, sign, 402)
	expect(capped, "POST", "/api/v2/nt-lookups", `{"numbers": ["+4915123456789"]}`, sign, 402)

	// The reports: a server without a store has none; one with a store
	// lists and downloads them.
	expect(main, "GET", "/api/v2/reports", "", sign, 404)
	st, err := sqlitestore.Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	defer st.Close()
	stored := newServer(t, func(cfg *Config, a *account.Account) { cfg.Store = st })
	stored.sinkTo.Store(engine.Sink(st))
	expect(stored, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"}`, sign, 200)
	expect(stored, "GET", "/api/v2/reports", "", sign, 200)
	expect(stored, "GET", "/api/v2/reports/SYNC-API-NT-2026-11?format=json&number=%2B49&sort=number", "", sign, 200)
	expect(stored, "GET", "/api/v2/reports/SYNC-API-NT-2026-11?sort=country", "", sign, 400)
	expect(stored, "GET", "/api/v2/reports/NOPE-2026-11", "", sign, 404)

	// Every documented status of every operation was seen, but those that
	// need a panic, a broken routing map or a slow backend.
	unprovoked := map[string]bool{"500": true, "503": true}
	for name, o := range ops {
		for code := range o["responses"].(map[string]any) {
			if !seen[name+" "+code] && !unprovoked[code] {
				t.Errorf("%s: documented status %s was never provoked", name, code)
			}
		}
	}
}
