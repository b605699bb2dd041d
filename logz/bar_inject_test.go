//go:build inject

package logz

import (
	"math/rand/v2"
	"testing"
)

// TestLadderBARBrokenCaught: reverse works given the forward works' sign
// fail TestLadderBARCalibrated's check.
func TestLadderBARBrokenCaught(t *testing.T) {
	brokenBAR = true
	defer func() { brokenBAR = false }()
	if frac, meanZ := ladderCoverage(t, rand.New(rand.NewPCG(1, 2)), 20); calibrated(frac, meanZ) {
		t.Errorf("reverse works of the wrong sign pass: %.3f within 2 errors, mean error %.3f errors", frac, meanZ)
	}
}
