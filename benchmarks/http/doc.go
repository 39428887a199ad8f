// Package httpbench measures the lookup API over HTTP: POST /api/v2/nt-lookup
// with digest authentication through the sidecar's handler stack, against a
// bare net/http server answering "hello". See benchmarks/README.md, section
// "HTTP sidecar (numen serve)".
//
// Two tools, one question:
//
//   - run.sh drives the real `numen serve` binary and the bare server
//     (./bare) with wrk on loopback: the figures of the README.
//   - BenchmarkSidecar (sidecar_test.go) runs the same handler stack in
//     process (engine, engine/httpapi, engine/store/sqlitestore behind an
//     httptest server on a real loopback listener, a raw keep-alive HTTP/1.1
//     client), with parts switched off one at a time (store, logging), so
//     that a CPU profile (-cpuprofile) and the differences between variants
//     say where a request's time goes. numen serve itself is not changed.
//
// The package has no exported API; it exists for its benchmark.
package httpbench
