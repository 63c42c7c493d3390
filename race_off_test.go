//go:build !race

package pgfed_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
