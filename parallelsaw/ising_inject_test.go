//go:build inject

package parallelsaw

import (
	"testing"

	"sardonics/internal/rbmtest"
	"sardonics/saw"
)

// TestDenseKernelBrokenSumsCaught: TestDenseKernelDetailedBalance's check
// catches sums recorded after the release instead of right after the
// flip.
func TestDenseKernelBrokenSumsCaught(t *testing.T) {
	brokenSums = true
	defer func() { brokenSums = false }()
	db, _ := denseKernelBalance(t, rbmtest.RandomDense(t, 5, 0.7, false, 11), saw.Options{})
	if db < 1e-4 {
		t.Errorf("broken sums: detailed balance %.3g (expected a violation >= 1e-4)", db)
	}
	t.Logf("broken sums: detailed balance violated by %.3g", db)
}
