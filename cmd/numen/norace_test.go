//go:build !race

package main

// raceDetector is true under the race detector (see race_test.go).
const raceDetector = false
