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
// both layouts meet every check, bit for bit. Benchmarks choose their
// layout themselves and run once.
func TestMain(m *testing.M) {
	code := m.Run()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		os.Exit(code)
	}
	dense.CompactFrom = 0
	if c := m.Run(); code == 0 {
		code = c
	}
	os.Exit(code)
}
