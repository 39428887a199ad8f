// Package jstest is test support for the Go tests and benchmarks that run
// JavaScript: it starts headless Chromium ([Chromium], [Start]), finds
// Node.js ([Node]) and fetches pinned npm packages ([Pin]). It is not part
// of Numen's API: only tests and benchmarks import it, and it may change
// with them.
//
// The programs it needs are installed by .ci/deps (Debian's chromium,
// nodejs and npm). A missing program fails the test that needs it, with a
// message that says so, rather than skipping it: CI must not pass without
// the browser.
//
// # Where it lives
//
// Its users are the report pages' browser test (engine/httpapi), the
// browser package's tests (wasm/build) and the browser benchmarks
// (benchmarks/browser). No internal/ directory is visible to all three
// without one at the top of the module, so the package is exported, under
// wasm/ beside the code most of its tests are about. It imports no package
// of this module, and only test files import it, so engine/httpapi's test
// importing it carries nothing of wasm/ into the engine; engine/deps_test.go
// allows exactly that arrow.
//
// # Thread safety
//
// Every function is safe for concurrent use; each call of [Chromium] or
// [Start] starts its own browser with its own profile.
package jstest
