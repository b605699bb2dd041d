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
// too cheap to pay for a hand-off), so under the tag inject (schedule,
// main_inject_test.go) the first run keeps every worker active and the
// second activates and deactivates them at random (chaos); the tests of
// the policy itself set chaos to nil. Without the tag both runs have the
// product's policy. Benchmarks choose their layout themselves, run once
// and use the product's policy. Under -short only the first run is made.
func TestMain(m *testing.M) {
	if f := flag.Lookup("test.bench"); f != nil {
		flag.Parse()
		if f.Value.String() != "" {
			os.Exit(m.Run())
		}
	}
	if schedule != nil {
		schedule(0)
	}
	code := m.Run()
	if testing.Short() { // the fast layer: the full sections only
		os.Exit(code)
	}
	dense.CompactFrom = 0
	if schedule != nil {
		schedule(1)
	}
	if c := m.Run(); code == 0 {
		code = c
	}
	os.Exit(code)
}

// schedule, set under the tag inject, sets the workers' schedule of
// TestMain's run 0 or 1.
var schedule func(run int)
