//go:build inject

package parallelsaw

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"sardonics/dense"
	"sardonics/internal/rbmtest"
)

// lockstepRun is probedRun's walks on the 12 x 8 stress RBM at P = 2
// with both threads active, the coordinator held at hookStepSeen (it has
// seen every line of a step and not read them) for up to 100 us now and
// then, so that the worker, free to go on, writes its next step.
func lockstepRun(t *testing.T, walks int) ([][]int32, [][2]float64, []float64, error) {
	// The worker is held too, but not with the broken lines: a worker
	// that reads a line overwritten may stop its walk early, and the
	// coordinator would then wait for it for ever (a hang, not a catch).
	holdWorker := !brokenLines
	m := stressModel{name: "rbm", rbm: rbmtest.RandomRBM(t, 12, 8, 0.5, 6)}
	n, w := 0, 0
	var pr *probe
	pr = &probe{P: 2, chaos: allActive, pause: func(h hookPoint, p int, s uint64) {
		switch {
		case h == hookExec && p == 0:
			// The worker (up to 2 ms) takes its section: a walk the
			// coordinator runs whole tests nothing.
			sh := pr.sh.Load()
			for t0 := time.Now(); sh != nil && sh.slots[1].claim.seq.Load() < s && time.Since(t0) < 2*time.Millisecond; {
				runtime.Gosched()
			}
		case h == hookStepSeen && p == 0:
			if n++; n%3 == 0 {
				time.Sleep(time.Duration(5+n%50) * time.Microsecond)
			}
		case h == hookStepSeen && p == 1 && holdWorker:
			// The worker, held before its next step.
			if w++; w%4 == 0 {
				time.Sleep(time.Duration(5+w%30) * time.Microsecond)
			}
		case h == hookCatchUp && p == 1 && holdWorker:
			// The worker, held before its share of a walk's catch-ups.
			if w++; w%2 == 0 {
				time.Sleep(time.Duration(20+w%30) * time.Microsecond)
			}
		}
	}}
	hook = pr.hook
	defer func(f func() int, c func(uint64, int) int) { numCPU, chaos, hook = f, c, nil }(numCPU, chaos)
	numCPU, chaos = func() int { return MaxP }, pr.chaos
	e, sh := m.build(t, 2)
	defer e.Close() // also after a panic of the broken engine
	hook = nil
	pr.sh.Store(sh)
	paths, lfs, es := oversubscribedRun(e, walks)
	if p := pr.err.Load(); p != nil {
		return paths, lfs, es, *p
	}
	return paths, lfs, es, nil
}

// TestLockstepWalks: lockstep walks, with the coordinator and the worker
// held between seeing a step's lines and reading them, are bit for bit
// the walks a step at a time (stepWalks) and those of one thread; and two
// broken variants give other walks or energies: sections that write
// every step on the same line (a fast executor then overwrites the line a
// slow one is about to read), and, with compact sections, executors that
// deal a walk's catch-ups differently (brokenCatchUp: some are done twice,
// some never). The checks can fail.
func TestLockstepWalks(t *testing.T) {
	if testing.Short() {
		t.Skip("the lockstep hand-off proof under delays, with its broken variants in child processes: the full suite runs it")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const walks = 400
	ref := func() ([][]int32, [][2]float64, []float64) { return lockstepRef(t, walks) }
	var rp [][]int32
	var rl [][2]float64
	var re []float64
	same := func(p [][]int32, l [][2]float64, e []float64) bool {
		for i := range p {
			if !slices.Equal(p[i], rp[i]) || l[i] != rl[i] || e[i] != re[i] {
				return false
			}
		}
		return true
	}
	if dense.CompactFrom > 0 {
		// The broken catch-up, with compact sections (whose visible
		// fields are caught up at a walk's end).
		func() {
			defer func(c int) { dense.CompactFrom = c }(dense.CompactFrom)
			dense.CompactFrom = 0
			rp, rl, re = ref()
			p, l, e, err := lockstepRun(t, walks)
			if err != nil || !same(p, l, e) {
				t.Fatalf("compact lockstep walks differ from the walks a step at a time (%v)", err)
			}
			if raceEnabled {
				return // the broken variant races on the fields by design
			}
			defer func(b bool) { brokenCatchUp = b }(brokenCatchUp)
			brokenCatchUp = true
			if p, l, e, err = lockstepRun(t, walks); err == nil && same(p, l, e) {
				t.Fatal("the broken deal of the catch-ups gave the same walks: the check cannot fail")
			}
		}()
	}
	rp, rl, re = ref()
	p, l, e, err := lockstepRun(t, walks)
	if err != nil {
		t.Fatal(err)
	}
	if !same(p, l, e) {
		t.Fatal("lockstep walks differ from the walks a step at a time")
	}
	if raceEnabled {
		return // the broken variant races on its lines by design
	}
	// The broken lines run in a child process: their executors, reading
	// lines overwritten, may also panic on a worker's thread or wait for
	// each other for ever, which only a process of their own survives. A
	// crash, a hang (killed after 20 s) or other walks are all caught.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLockstepBrokenLinesChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "SARDONICS_BROKEN_LINES=1")
	out, err := cmd.CombinedOutput()
	if err == nil && bytes.Contains(out, []byte(sameWalks)) {
		t.Fatalf("the broken lines (one per section) gave the same walks: the check cannot fail\n%s", out)
	}
	t.Logf("caught: %v", err)
}

// sameWalks is what TestLockstepBrokenLinesChild says when the broken
// lines gave the walks a step at a time.
const sameWalks = "the broken lines gave the same walks"

// TestLockstepBrokenLinesChild is TestLockstepWalks' broken variant with
// one line per section (brokenLines), in the child process it starts
// (SARDONICS_BROKEN_LINES set); skipped otherwise.
func TestLockstepBrokenLinesChild(t *testing.T) {
	if os.Getenv("SARDONICS_BROKEN_LINES") == "" {
		t.Skip("the child process of TestLockstepWalks")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	rp, rl, re := lockstepRef(t, 400)
	defer func(b bool) { brokenLines = b }(brokenLines)
	brokenLines = true
	p, l, e, err := lockstepRun(t, 400)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p {
		if !slices.Equal(p[i], rp[i]) || l[i] != rl[i] || e[i] != re[i] {
			t.Fatalf("walk %d differs", i)
		}
	}
	t.Log(sameWalks)
}

// lockstepRef is the walks of lockstepRun made a step at a time
// (stepWalks) by one thread.
func lockstepRef(t *testing.T, walks int) ([][]int32, [][2]float64, []float64) {
	defer func(s bool) { stepWalks = s }(stepWalks)
	stepWalks = true
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	m := stressModel{name: "rbm", rbm: rbmtest.RandomRBM(t, 12, 8, 0.5, 6)}
	p, l, e, err := probedRun(t, m, 2, &probe{P: 2, chaos: allActive}, walks)
	if err != nil {
		t.Fatal(err)
	}
	return p, l, e
}
