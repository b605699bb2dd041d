package dense

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the tests twice: with full engines (what the tests' small
// models get), then with compact ones (CompactFrom 0), so that both
// layouts meet every check, bit for bit. Benchmarks choose their layout
// themselves and run once.
func TestMain(m *testing.M) {
	code := m.Run()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		os.Exit(code)
	}
	CompactFrom = 0
	if c := m.Run(); code == 0 {
		code = c
	}
	os.Exit(code)
}
