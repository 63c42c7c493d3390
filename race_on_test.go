//go:build race

package pgfed_test

// raceEnabled: the tests run under the race detector (scripts/test.sh),
// which makes single-goroutine work 5-10x slower; see its uses.
const raceEnabled = true
