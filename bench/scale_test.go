package bench

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestPeakRSS: the high-water mark grows by a buffer that is touched and
// falls back after a reset once the buffer is returned to the system.
func TestPeakRSS(t *testing.T) {
	if _, ok := peakRSS(); !ok {
		t.Skip("no /proc/self/status VmHWM here")
	}
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	before, _ := peakRSS()
	buf := make([]byte, 256<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	grown, _ := peakRSS()
	runtime.KeepAlive(buf)
	if grown-before < 200<<20 {
		t.Fatalf("peak RSS %d -> %d after touching 256 MiB", before, grown)
	}
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	after, _ := peakRSS()
	if after > grown-200<<20 {
		t.Errorf("peak RSS after a reset %d (the buffer's peak was %d)", after, grown)
	}
}

// TestScaleGroup runs the scale group on small models swapped in: every
// line a positive figure with its peak RSS, each large line with its
// ratio to its small one.
func TestScaleGroup(t *testing.T) {
	saved, moves := scaleLines, scaleMoves
	defer func() { scaleLines, scaleMoves = saved, moves }()
	scaleMoves = 2000
	scaleLines = []scaleLine{
		{"sardonics bucket", "frustrated2d:L=6,seed=1", "frustrated2d:L=12,seed=1", 1, "sardonics", "bucket"},
		{"metropolis", "frustrated2d:L=6,seed=1", "frustrated2d:L=12,seed=1", 1, "metropolis", ""},
	}
	var out strings.Builder
	rep, err := Run(Config{Budget: 10 * time.Millisecond, Only: "scale", Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lines) != 4 {
		t.Fatalf("%d lines (expected 4):\n%s", len(rep.Lines), out.String())
	}
	_, rss := peakRSS()
	for i, l := range rep.Lines {
		large := i%2 == 1
		if !(l.Value > 0) || (l.PeakRSS > 0) != rss || strings.Contains(l.Note, "x frustrated2d:L=6") != large {
			t.Errorf("line %d: %+v", i, l)
		}
		want := "ns/flip"
		if i >= 2 {
			want = "ns/update"
		}
		if l.Unit != want {
			t.Errorf("line %d: unit %s (expected %s)", i, l.Unit, want)
		}
	}
}
