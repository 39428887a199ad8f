package httpapi

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3.1 document of the API, served at
// /api/v2/openapi.json; a test checks it against the handlers.
//
//go:embed openapi.json
var OpenAPI []byte

func (h *Handler) openapi(w http.ResponseWriter, r *request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPI)
}
