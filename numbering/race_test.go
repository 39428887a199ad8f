//go:build race

package numbering

// raceDetector is true under the race detector, which makes the
// differential tests against phonenumbers' regular expressions several
// times slower: they compare a smaller sample then.
const raceDetector = true
