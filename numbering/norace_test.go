//go:build !race

package numbering

// raceDetector is true under the race detector (see race_test.go).
const raceDetector = false
