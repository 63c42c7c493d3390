//go:build !race

package executor

// raceEnabled: see race_on_test.go.
const raceEnabled = false
