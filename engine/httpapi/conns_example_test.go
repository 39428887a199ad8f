package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/numenhq/numen/engine/httpapi"
)

// A server that holds one connection at most: a second client is let in by
// closing the first client's idle keep-alive connection.
func ExampleConnLimiter() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	limiter := httpapi.NewConnLimiter(ln, httpapi.ConnLimits{Max: 1}, nil)
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }),
		ConnState:         limiter.ConnState, // how the limiter tells idle connections
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = srv.Serve(limiter) }()
	defer srv.Close()

	get := func(c net.Conn) string {
		fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: example\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		return resp.Status
	}
	first, _ := net.Dial("tcp", ln.Addr().String())
	defer first.Close()
	fmt.Println("first client:", get(first))
	// The first connection stays open, idle (once net/http has finished
	// the answer), until the second comes.
	for i := 0; i < 1000 && limiter.Counts().Idle == 0; i++ {
		time.Sleep(time.Millisecond)
	}
	second, _ := net.Dial("tcp", ln.Addr().String())
	defer second.Close()
	fmt.Println("second client:", get(second))
	_, err = first.Read(make([]byte, 1))
	fmt.Println("first connection:", err)
	// Output:
	// first client: 200 OK
	// second client: 200 OK
	// first connection: EOF
}
