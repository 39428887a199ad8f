package webhook_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/webhook"
)

// A receiver checks each delivery with its API key and secret before it
// trusts the results.
func ExampleVerify() {
	body := `{"type":"NT","results":[]}`
	req := httptest.NewRequest(http.MethodPost, "/numen-results", strings.NewReader(body))
	req.Header.Set("X-Signatures", auth.WebhookSignatures("acme", []string{"acme-secret"}, []byte(body)))

	got, err := webhook.Verify(req, "acme", []string{"acme-secret"}, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(got))
	// Output: {"type":"NT","results":[]}
}
