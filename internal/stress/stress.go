// Package stress holds what the hand-off stress tests of replica,
// parallelsaw and runner share: how many rounds to run.
package stress

import (
	"os"
	"strconv"
	"testing"
)

// Rounds is the number of rounds (hand-offs, commands, trials) of each
// stress configuration: SARDONICS_STRESS_ROUNDS when set (100000 is the
// full proof, minutes per configuration on 2 busy cores), else def, a
// bounded count that keeps go test -tags inject ./... (the stress tests
// inject their schedules, so they are built only under that tag) and
// CI's race run short.
func Rounds(t testing.TB, def int) int {
	s := os.Getenv("SARDONICS_STRESS_ROUNDS")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("SARDONICS_STRESS_ROUNDS=%q (expected a positive count)", s)
	}
	return n
}
