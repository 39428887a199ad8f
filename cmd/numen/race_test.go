//go:build race

package main

// raceDetector is true under the race detector, which slows the tests
// that push megabytes through numen find: they push less then.
const raceDetector = true
