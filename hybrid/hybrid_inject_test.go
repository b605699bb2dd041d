//go:build inject

package hybrid_test

import (
	"math"
	"testing"

	"sardonics/hybrid"
)

// TestBrokenBetaCaught shows that the checks of
// TestSetBetaAgreesWithEnumeration and TestReplicaAgreesWithEnumeration
// can fail: with SetBeta leaving the Metropolis sweeps at the old
// temperature, the cycle is caught by a wide margin, alone (built at 0.5,
// moved to 3) and inside replica exchange.
func TestBrokenBetaCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run against exact enumeration: the full suite runs it")
	}
	statistical(t)
	defer hybrid.SetBrokenBeta(true)()
	caught := func(what string, zE, zP float64) {
		t.Logf("%s: z(mean E) = %.2f, z(P(E_min)) = %.2f", what, zE, zP)
		if math.Abs(zE) < 8 && math.Abs(zP) < 8 {
			t.Errorf("%s: the broken SetBeta was not caught (z = %.2f, %.2f)", what, zE, zP)
		}
	}
	kc := aloneCases[5]
	zE, zP := alone(t, kc, 0.5, 10000)
	caught("alone "+kc.name, zE, zP)
	for _, kc := range exchangedCases {
		zE, zP := exchanged(t, kc, 3000)
		caught("replica exchange of "+kc.name, zE, zP)
	}
}
