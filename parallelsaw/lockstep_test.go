package parallelsaw

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"sardonics/internal/rbmtest"
)

// lockstepRun is probedRun's walks on the 12 x 8 stress RBM at P = 2
// with both threads active, the coordinator held at hookStepSeen (it has
// seen every line of a step and not read them) for up to 100 us now and
// then, so that the worker, free to go on, writes its next step.
func lockstepRun(t *testing.T, walks int) ([][]int32, [][2]float64, []float64, error) {
	m := stressModel{name: "rbm", rbm: rbmtest.RandomRBM(t, 12, 8, 0.5, 6)}
	n := 0
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

// TestLockstepWalks: lockstep walks, with the coordinator held between
// seeing a step's lines and reading them, are bit for bit the walks a
// step at a time (stepWalks) and those of one thread; and a broken
// variant whose sections write every step on the same line (a fast
// executor then overwrites the line a slow one is about to read) gives
// other walks: the check can fail.
func TestLockstepWalks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const walks = 400
	ref := func() ([][]int32, [][2]float64, []float64) {
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
	rp, rl, re := ref()
	same := func(p [][]int32, l [][2]float64, e []float64) bool {
		for i := range p {
			if !slices.Equal(p[i], rp[i]) || l[i] != rl[i] || e[i] != re[i] {
				return false
			}
		}
		return true
	}
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
	defer func(b bool) { brokenLines = b }(brokenLines)
	brokenLines = true
	// The broken engine's coordinator may also fail on its own (its
	// picks and its sections' flips disagree): that is caught too.
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		p, l, e, err = lockstepRun(t, walks)
	}()
	if panicked == nil && err == nil && same(p, l, e) {
		t.Fatal("the broken lines (one per section) gave the same walks: the check cannot fail")
	}
	t.Logf("caught: panic %v, probe %v", panicked, err)
}
