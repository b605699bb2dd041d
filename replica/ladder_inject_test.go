//go:build inject

package replica_test

import (
	"math"
	"testing"

	"sardonics/replica"
)

// TestBrokenVarianceLadderCaught shows that the check of
// TestVarianceLadderAgreesWithEnumeration can fail: a ladder spaced by L/R
// instead of L/(R-1), which puts the target rung short of the target, is
// caught by a wide margin.
func TestBrokenVarianceLadderCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of statistics or comparison: the full suite runs it")
	}
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	defer replica.SetBrokenLadder(true)()
	for _, kc := range []kernelCase{kernelCases[0], kernelCases[3]} {
		zE, zP := agreementWith(t, kc, 16, 3000, varianceLadder)
		t.Logf("%s: z(mean E) = %.2f, z(P(E_min)) = %.2f", kc.name, zE, zP)
		if math.Abs(zE) < 8 && math.Abs(zP) < 8 {
			t.Errorf("%s: the broken ladder was not caught (z = %.2f, %.2f)", kc.name, zE, zP)
		}
	}
}
