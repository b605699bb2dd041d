//go:build inject

package denseising

import (
	"testing"

	"sardonics/internal/rbmtest"
	"sardonics/saw"
)

// TestKernelBrokenReverseCaught: TestKernelDetailedBalance's check
// catches a reverse normalizer that leaves out the picked spin's weight.
func TestKernelBrokenReverseCaught(t *testing.T) {
	brokenReverse = true
	defer func() { brokenReverse = false }()
	db, _ := kernelBalance(t, rbmtest.RandomDense(t, 5, 0.7, false, 11), saw.Options{})
	if db < 1e-4 {
		t.Errorf("broken reverse: detailed balance %.3g (expected a violation >= 1e-4)", db)
	}
	t.Logf("broken reverse: detailed balance violated by %.3g", db)
}
