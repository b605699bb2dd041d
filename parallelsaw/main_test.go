package parallelsaw

import (
	"flag"
	"os"
	"testing"

	"sardonics/dense"
)

// TestMain runs the tests twice: with full sections (what the tests' small
// models get), then with compact ones (dense.CompactFrom 0, which also
// makes the serial dense engines they are compared with compact), so that
// both layouts meet every check, bit for bit. The product's policy would
// leave the tests' small models to the coordinator alone (their flips are
// too cheap to pay for a hand-off), so the first run keeps every worker
// active and the second activates and deactivates them at random (chaos);
// the tests of the policy itself set chaos to nil. Benchmarks choose
// their layout themselves, run once and use the product's policy.
func TestMain(m *testing.M) {
	if f := flag.Lookup("test.bench"); f != nil {
		flag.Parse()
		if f.Value.String() != "" {
			os.Exit(m.Run())
		}
	}
	chaos = allActive
	code := m.Run()
	dense.CompactFrom = 0
	chaos = chaotic
	if c := m.Run(); code == 0 {
		code = c
	}
	os.Exit(code)
}

// allActive is a chaos policy that keeps every worker active.
func allActive(_ uint64, w int) int { return w }

// chaotic is a chaos policy: the active count is drawn from 1..w for each
// stretch of 8 commands, and for one command in 8 on its own, so that
// workers are activated and deactivated all the time, often in the middle
// of their spin, and also keep a count long enough to claim commands.
func chaotic(s uint64, w int) int {
	h := (s / 8) * 0x9e3779b97f4a7c15
	if g := s * 0xbf58476d1ce4e5b9; g>>61 == 0 {
		h = g
	}
	return 1 + int((h>>32)%uint64(w))
}
