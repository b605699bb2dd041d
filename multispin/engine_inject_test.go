//go:build inject

package multispin

import "testing"

// TestSharedBitsCorrelate: with one random bit shared among the chains in
// each digit, the 64 chains of one instance that meet stay together, and
// the lanes' test (TestIndependentLanes) fails: a mean |correlation|
// above 0.3 (0.92 measured), against 0.02 for independent lanes.
func TestSharedBitsCorrelate(t *testing.T) {
	brokenShared = true
	defer func() { brokenShared = false }()
	if c := laneCorrelation(t); c < 0.3 {
		t.Errorf("shared random bits: mean |correlation| only %.3f", c)
	}
}
