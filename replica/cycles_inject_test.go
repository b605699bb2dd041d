//go:build inject

package replica_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/model"
	"sardonics/replica"
)

// TestWorkClockBrokenSwapCaught shows that the check of
// TestWorkClockAgreesWithEnumeration can fail on the work clock: with the
// swap rule missing its temperature difference, hybrid members with a
// cycle per rung are caught by a wide margin.
func TestWorkClockBrokenSwapCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	defer replica.SetBrokenSwap(true)()
	for _, wc := range workCases[:2] {
		zE, zP := agreeWith(t, wc.spec, 16, 3000, func(m *model.Model, r *rand.PCG, init []int8) *replica.Chain {
			return wc.chain(t, m, r, init, 1)
		})
		t.Logf("%s: z(mean E) = %.2f, z(P(E_min)) = %.2f", wc.name, zE, zP)
		if math.Abs(zE) < 8 && math.Abs(zP) < 8 {
			t.Errorf("%s: the broken swap rule was not caught on the work clock (z = %.2f, %.2f)", wc.name, zE, zP)
		}
	}
}

// TestTuneChainBrokenDropCaught: TestTuneChainPicksTheObviousCycle's
// check of the hot choice catches a halving that drops the best
// candidate, for each of its 3 seeds.
func TestTuneChainBrokenDropCaught(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	m := dimerGlass(t, 6, 10, 1)
	defer replica.SetBrokenDrop()()
	for seed := uint64(1); seed <= 3; seed++ {
		if b, _ := tuneDimerChain(t, m, seed, 0.05); b.Rungs[0].Cycle == [2]int{1, 0} {
			t.Errorf("seed %d: a halving that drops the best still chose 1:0 hot", seed)
		}
	}
}
