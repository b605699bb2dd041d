package bench

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A real output of bench/cref/metropolis.c.
const crefOutput = `# C Metropolis yardstick: gcc -O3 -march=native, xoshiro256**, int8 spins, CPU time
#   ferro2d:L=60     nb/branch        6.101 ns/update (select: median of 5 x 0.20s)
#   ferro2d:L=60     nb/nobranch      5.170 ns/update (select: median of 5 x 0.20s)
C ferro2d:L=60     beta=0.4405  nb/nobranch      5.170 ns/update  acc=0.1187  E/N=-1.4127  (median of 5 x 1.0s CPU)
#   spinglass3d:L=9  nb/branch        8.532 ns/update (select: median of 5 x 0.20s)
C spinglass3d:L=9  beta=1.0000  wrap/nobranch    7.890 ns/update  acc=0.2016  E/N=-1.5544  (median of 5 x 1.0s CPU)
`

func TestParseCRef(t *testing.T) {
	lines, err := ParseCRef(strings.NewReader(crefOutput))
	if err != nil {
		t.Fatal(err)
	}
	want := []CLine{
		{Lattice: "ferro2d:L=60", Beta: 0.4405, Variant: "nb/nobranch", NsPerUpdate: 5.17, Acceptance: 0.1187},
		{Lattice: "spinglass3d:L=9", Beta: 1, Variant: "wrap/nobranch", NsPerUpdate: 7.89, Acceptance: 0.2016},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %+v", lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, lines[i], want[i])
		}
	}
	ref := &CRef{Status: "ok", Lines: lines}
	if y, ok := ref.Yardstick(); !ok || y.NsPerUpdate != 5.17 {
		t.Errorf("yardstick %+v %v (expected the ferro2d line)", y, ok)
	}
	if _, ok := (&CRef{Status: "n/a (no gcc)"}).Yardstick(); ok {
		t.Error("a yardstick that did not run gave a figure")
	}
	for _, bad := range []string{
		"",
		"# only comments\n",
		"C ferro2d:L=60 beta=0.44 nb/nobranch 5.17 ns/sweep acc=0.1 E/N=-1\n",
		"C ferro2d:L=60 beta=x nb/nobranch 5.17 ns/update acc=0.1 E/N=-1\n",
		"C ferro2d:L=60 beta=0.44 nb/nobranch -5 ns/update acc=0.1 E/N=-1\n",
		"C ferro2d:L=60 beta=0.44 nb/nobranch NaN ns/update acc=0.1 E/N=-1\n",
		"C ferro2d:L=60 beta=0.44 nb/nobranch 5.17 ns/update acc=1.5 E/N=-1\n",
		"C ferro2d:L=60 beta=0.44 nb/nobranch 5.17 ns/update\n",
		"C\n",
	} {
		if l, err := ParseCRef(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed as %+v", bad, l)
		}
	}
}

func TestCRefWithoutCompiler(t *testing.T) {
	ref := runCRef("sardonics-no-such-cc", t.TempDir(), time.Millisecond, 1)
	if ref.Status != "n/a (no sardonics-no-such-cc)" || len(ref.Lines) != 0 {
		t.Fatalf("got %+v", ref)
	}
	if ref := runCRef("none", t.TempDir(), time.Millisecond, 1); ref.Status != "n/a (disabled)" {
		t.Fatalf("got %+v", ref)
	}
}

// TestCRefCompilesOnce compiles and runs the yardstick for a few
// milliseconds when gcc is here; a second run reuses the binary.
func TestCRefCompilesOnce(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	ref := runCRef("gcc", dir, 5*time.Millisecond, 1)
	if ref.Status != "ok" || len(ref.Lines) != 2 {
		t.Fatalf("got %+v", ref)
	}
	if _, ok := ref.Yardstick(); !ok {
		t.Fatalf("no %s line in %+v", CRefLattice, ref)
	}
	before, _ := os.ReadDir(dir)
	if len(before) != 1 {
		t.Fatalf("the cache holds %v (expected the binary alone)", before)
	}
	st0, _ := before[0].Info()
	if ref := runCRef("gcc", dir, 5*time.Millisecond, 1); ref.Status != "ok" {
		t.Fatalf("second run: %+v", ref)
	}
	after, _ := os.ReadDir(dir)
	if len(after) != 1 {
		t.Fatalf("the cache holds %v after a second run", after)
	}
	if st1, _ := after[0].Info(); after[0].Name() != before[0].Name() || !st1.ModTime().Equal(st0.ModTime()) {
		t.Errorf("the second run compiled again")
	}
}

// TestTrialGroup runs the trial group on small models (swapped in for the
// issue's) with the yardstick skipped and, where gcc is, with it: every
// line is a positive ns per flip from whole trials, with its ratio to C
// exactly when C ran. Each trial lasts long enough for thread CPU time,
// which can tick in milliseconds, to see it.
func TestTrialGroup(t *testing.T) {
	saved := trialLines
	defer func() { trialLines = saved }()
	trialLines = []trialLine{
		{"sardonics bucket, whole trial", "frustrated2d:L=10,seed=1", 1, "sardonics", "bucket"},
		{"metropolis, whole trial", "frustrated2d:L=10,seed=1", 1, "metropolis", ""},
	}
	ccs := []string{"none"}
	if _, err := exec.LookPath("gcc"); err == nil {
		ccs = append(ccs, "gcc")
	}
	for _, cc := range ccs {
		var out strings.Builder
		rep, err := Run(Config{Budget: 100 * time.Millisecond, Only: "trial", CC: cc, CacheDir: t.TempDir(), Out: &out})
		if err != nil {
			t.Fatal(err)
		}
		ran := cc != "none"
		if (rep.CRef.Status == "ok") != ran {
			t.Fatalf("cc %s: yardstick %+v", cc, rep.CRef)
		}
		if !ran && !strings.Contains(out.String(), "C yardstick: n/a (disabled)") {
			t.Errorf("cc %s: output does not say the yardstick is n/a:\n%s", cc, out.String())
		}
		n := 0
		for _, l := range rep.Lines {
			if l.Unit == "ns/update" {
				continue // the yardstick's own lines
			}
			n++
			if !(l.Value > 0) || l.Steps < trialRounds*minTrialSteps || l.Steps%(trialRounds*minTrialSteps) != 0 || l.CPUSec <= 0 {
				t.Errorf("cc %s: %+v", cc, l)
			}
			if (l.RatioC > 0) != ran {
				t.Errorf("cc %s: %s has ratio %v", cc, l.Name, l.RatioC)
			}
		}
		if n != len(trialLines) {
			t.Errorf("cc %s: %d trial lines (expected %d)", cc, n, len(trialLines))
		}
	}
}
