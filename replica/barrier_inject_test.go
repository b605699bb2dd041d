//go:build inject

package replica_test

import (
	"math"
	"testing"

	"sardonics/replica"
)

// TestBrokenBarrierCaught shows that the check of
// TestBarrierAgreesWithEnumeration can fail: summing the acceptances
// instead of the rejections is caught by a wide margin.
func TestBrokenBarrierCaught(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	defer replica.SetBrokenBarrier(true)()
	mean, se, exact := barrierAgreement(t)
	z := (mean - exact) / se
	t.Logf("broken: barrier %.4f +- %.4f, exact %.4f (z = %.2f)", mean, se, exact, z)
	if math.Abs(z) < 8 {
		t.Errorf("the broken barrier was not caught (z = %.2f)", z)
	}
}
