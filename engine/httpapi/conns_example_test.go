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
	idle := make(chan struct{}, 1)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }),
		ConnState: func(c net.Conn, s http.ConnState) {
			limiter.ConnState(c, s) // how the limiter tells idle connections
			if s == http.StateIdle {
				select {
				case idle <- struct{}{}: // and how this example waits for one
				default:
				}
			}
		},
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
	<-idle
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
