//go:build inject

package replica_test

import (
	"math/rand/v2"
	"testing"

	"sardonics/replica"
)

// TestTunerBrokenScoreCaught: TestTunerPaysWhereMetropolisIsFrozen's
// check of the cold rung's choice catches, on every seed, a tuner that
// prefers the lower score.
func TestTunerBrokenScoreCaught(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("one thread, 10 s with the race detector: the plain run checks it")
	}
	m := dimerGlass(t, 6, 10, 1)
	defer replica.SetBrokenScore(2)()
	for seed := uint64(1); seed <= 3; seed++ {
		if b, _ := tuneDimer(t, m, []float64{0.05, 1}, seed); b.Chosen > 0 && b.Assignments[b.Chosen].Cycles[1][1] > 0 {
			t.Errorf("seed %d: a tuner that prefers the lower score still chose %v", seed, b.Assignments[b.Chosen].Cycles)
		}
	}
}

// TestSlowScoreBrokenCaught: TestSlowScore's ranking of the slow
// observable over the energy catches a tuner that scores by the energy,
// as the 1-second windows did.
func TestSlowScoreBrokenCaught(t *testing.T) {
	x, y := slowAgainstEnergy(rand.New(rand.NewPCG(1, 2)))
	if v, how := replica.Better(y, x); v != 1 {
		t.Fatalf("the fast slow observable ranked %d (%s) against the slow one", v, how)
	}
	defer replica.SetBrokenScore(1)()
	if v, _ := replica.Better(y, x); v == 1 {
		t.Error("a tuner scoring by the energy was not caught")
	}
}
