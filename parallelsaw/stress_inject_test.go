//go:build inject

package parallelsaw

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"sardonics/dense"
	"sardonics/internal/stress"
)

// stressCommands is the commands of each stress configuration
// (stress.Rounds).
func stressCommands(t *testing.T) int {
	if raceEnabled {
		return stress.Rounds(t, 1_000)
	}
	return stress.Rounds(t, 5_000)
}

// probe checks, from the hook, that every section runs every command
// exactly once and in order, and that each has finished it before the
// coordinator's run returns; pause (if not nil) runs at every point.
type probe struct {
	started, finished [MaxP]atomic.Uint64
	hits              [hookPoints]atomic.Int64
	commands          atomic.Int64
	err               atomic.Pointer[error]
	pause             func(hookPoint, int, uint64)
	chaos             func(uint64, int) int // the engine's active counts (nil: the product's policy)
	holdDouble        bool                  // block forever a thread about to run a command a second time
	P                 int
	sh                atomic.Pointer[hub] // once New returned
}

func (pr *probe) fail(format string, a ...any) {
	err := fmt.Errorf(format, a...)
	pr.err.CompareAndSwap(nil, &err)
}

func (pr *probe) hook(h hookPoint, p int, s uint64) {
	pr.hits[h].Add(1)
	switch h {
	case hookExec:
		if old := pr.started[p].Swap(s); old != s-1 {
			pr.fail("section %d: command %d started after command %d", p, s, old)
			if pr.holdDouble && old == s {
				select {} // a second run of the command would break the engine, not the test: never let it run
			}
		}
	case hookExecuted:
		pr.finished[p].Store(s)
	case hookRoundEnd:
		pr.commands.Add(1)
		for q := range pr.P {
			if f := pr.finished[q].Load(); f != s {
				pr.fail("command %d: run returned with section %d at command %d", s, q, f)
				// Let the section finish before the coordinator moves on,
				// so that a broken engine fails the test, not the process.
				for t0 := time.Now(); pr.finished[q].Load() != s && time.Since(t0) < time.Second; {
					runtime.Gosched()
				}
			}
		}
	}
	if pr.pause != nil && pr.err.Load() == nil {
		pr.pause(h, p, s)
	}
}

// adversary stands in for a busy OS scheduler: at each point it yields
// the thread often, and now and then (1.5%) sleeps up to 200 us, past
// spinFor, so that every park and late wake-up path runs.
func adversary(hookPoint, int, uint64) {
	switch r := rand.IntN(1024); {
	case r < 16:
		time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	case r < 128:
		runtime.Gosched()
	}
}

// probedRun builds a P-section engine with the probe as its hook, runs
// walks until it has issued at least commands commands (at most limit
// walks' worth), and returns the walks' paths, log-probabilities and
// energies (a hang of the engine shows up as the test's timeout).
func probedRun(t *testing.T, m stressModel, P int, pr *probe, walks int) ([][]int32, [][2]float64, []float64, error) {
	t.Helper()
	hook = pr.hook
	defer func(f func() int, c func(uint64, int) int) { numCPU, chaos = f, c }(numCPU, chaos)
	numCPU = func() int { return MaxP } // every worker can be active (GOMAXPROCS permitting)
	chaos = pr.chaos
	e, sh := m.build(t, P)
	hook = nil
	pr.sh.Store(sh)
	paths, lfs, es := oversubscribedRun(e, walks)
	e.Close()
	if p := pr.err.Load(); p != nil {
		return paths, lfs, es, *p
	}
	return paths, lfs, es, nil
}

// TestSyncStress: under the adversary, with GOMAXPROCS below, equal to and
// above the section count, and workers activated and deactivated at random
// (chaos) or by the product's policy, every section runs every command
// exactly once before the coordinator returns, every hand-off point is
// reached (under chaos), and the walks are bit for bit those of the same
// engine run by one thread.
func TestSyncStress(t *testing.T) {
	if testing.Short() {
		t.Skip("the hand-off stress proof (about 100 s) runs in the full suite")
	}
	for _, m := range stressModels(t) {
		syncStress(t, m)
	}
}

func syncStress(t *testing.T, m stressModel) {
	want := stressCommands(t)
	for _, P := range []int{2, 4} {
		// The single-thread reference: made under GOMAXPROCS 1, its workers
		// are passive and the coordinator runs every section.
		prev := runtime.GOMAXPROCS(1)
		ref := &probe{P: P, chaos: allActive}
		walks := 0
		var rp [][]int32
		var rl [][2]float64
		var re []float64
		for ref.commands.Load() < int64(want) { // size the run once
			walks += 500
			*ref = probe{P: P, chaos: allActive}
			var err error
			if rp, rl, re, err = probedRun(t, m, P, ref, walks); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GOMAXPROCS(prev)
		for _, procs := range []int{1, P, 2 * P} {
			t.Run(fmt.Sprintf("%s/P=%d/GOMAXPROCS=%d/policy", m.name, P, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				pr := &probe{P: P, pause: adversary}
				paths, lfs, es, err := probedRun(t, m, P, pr, walks)
				if err != nil {
					t.Fatal(err)
				}
				for i := range paths {
					if !slices.Equal(paths[i], rp[i]) || lfs[i] != rl[i] || es[i] != re[i] {
						t.Fatalf("walk %d differs from the single-thread run", i)
					}
				}
			})
			t.Run(fmt.Sprintf("%s/P=%d/GOMAXPROCS=%d", m.name, P, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				// A point the OS's timing did not reach in one run gets up
				// to two more runs (each is checked whole).
				var reached [hookPoints]bool
				missing, commands := 0, int64(0)
				for try := 0; try < 3; try++ {
					pr := &probe{P: P, pause: adversary, chaos: chaotic}
					paths, lfs, es, err := probedRun(t, m, P, pr, walks)
					if err != nil {
						t.Fatal(err)
					}
					for i := range paths {
						if !slices.Equal(paths[i], rp[i]) || lfs[i] != rl[i] || es[i] != re[i] {
							t.Fatalf("walk %d differs from the single-thread run", i)
						}
					}
					commands += pr.commands.Load()
					missing = 0
					for h := range pr.hits {
						// The dense engine walks a step at a time.
						// Nor do full sections catch up fields at a walk's end.
						reached[h] = reached[h] || pr.hits[h].Load() > 0 || m.d != nil && (hookPoint(h) == hookStepPublished || hookPoint(h) == hookStepSeen) ||
							hookPoint(h) == hookCatchUp && (m.d != nil || dense.CompactFrom > 0)
						if !reached[h] {
							missing++
						}
					}
					// With GOMAXPROCS 1 a spinning coordinator outwaits its
					// graceSpins and steals: some worker paths cannot occur.
					if missing == 0 || procs == 1 {
						break
					}
				}
				if procs > 1 && missing > 0 {
					t.Errorf("hand-off points reached %v in %d commands", reached, commands)
				}
			})
		}
	}
}

// TestBrokenWaitCaught: the probe catches a coordinator that takes any
// wake-up as the end of the section it waits for. A worker delayed after
// storing done, past the coordinator's spin, sends its wake-up into the
// wait for another section's next command.
func TestBrokenWaitCaught(t *testing.T) {
	if raceEnabled {
		t.Skip("the broken engine races on its sections by design")
	}
	// The wait it breaks is the step-at-a-time protocol's (Replay, Flip
	// and the others use it; a lockstep walk hardly waits for a worker).
	defer func(b, s bool) { brokenWait, stepWalks = b, s }(brokenWait, stepWalks)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	brokenWait, stepWalks = true, true
	for _, m := range stressModels(t) {
		t.Run(m.name, func(t *testing.T) { brokenWaitCaught(t, m) })
	}
}

func brokenWaitCaught(t *testing.T, m stressModel) {
	var pr *probe
	pr = &probe{P: 3, chaos: allActive, pause: func(h hookPoint, p int, s uint64) {
		switch {
		case h == hookExec && p == 0:
			// Give both workers (up to 2 ms) to claim their sections, so
			// that the coordinator waits for section 2 (no steal) on a
			// machine whose CPUs are busy.
			sh := pr.sh.Load()
			for t0 := time.Now(); sh != nil && time.Since(t0) < 2*time.Millisecond; runtime.Gosched() {
				if sh.slots[1].claim.seq.Load() == s && sh.slots[2].claim.seq.Load() == s {
					break
				}
			}
		case h == hookWorkerDone && p == 1:
			time.Sleep(200 * time.Microsecond)
		case h == hookExec && p == 2:
			time.Sleep(time.Millisecond)
		}
	}}
	done := make(chan error, 1)
	go func() {
		_, _, _, err := probedRun(t, m, 3, pr, 100)
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		err = errors.New("the broken engine hung")
	}
	if err == nil {
		for h := range pr.hits {
			t.Logf("point %d: %d", h, pr.hits[h].Load())
		}
		t.Fatal("the broken wait passed 100 walks with late wake-ups: the probe cannot fail")
	}
	t.Logf("caught: %v", err)
	for h := range pr.hits {
		t.Logf("point %d: %d", h, pr.hits[h].Load())
	}
}

// TestBrokenInactiveCaught: the probe catches a coordinator that runs a
// deactivated worker's section without claiming it. Deactivated every
// other command, the worker is often still spinning from the command
// before, and claims the command too.
func TestBrokenInactiveCaught(t *testing.T) {
	if raceEnabled {
		t.Skip("the broken engine races on its sections by design")
	}
	// probedRun does not return (its defers do not run) when its
	// coordinator is held, and when that happens while the engine is
	// built, it has not cleared the package's hook either.
	defer func(b bool, f func() int, c func(uint64, int) int, h func(hookPoint, int, uint64)) {
		brokenInactive, numCPU, chaos, hook = b, f, c, h
	}(brokenInactive, numCPU, chaos, hook)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	brokenInactive = true
	for _, m := range stressModels(t) {
		t.Run(m.name, func(t *testing.T) {
			// The thread that would run a command twice is held for
			// ever (the engine with it): the probe's error is read as
			// soon as it is set.
			// The coordinator gives the worker (up to 2 ms) to claim each
			// command before it runs its own section, and before it runs
			// the worker's section unclaimed: a worker whose claims the
			// coordinator always won would park without spinning and
			// never meet an inactive command (1 run in 80 passed so).
			var pr *probe
			claimed := func(s uint64) {
				sh := pr.sh.Load()
				for t0 := time.Now(); sh != nil && sh.slots[1].claim.seq.Load() < s && time.Since(t0) < 2*time.Millisecond; {
					runtime.Gosched()
				}
			}
			pr = &probe{P: 2, holdDouble: true, chaos: func(s uint64, w int) int { return 1 + int(s&1) },
				pause: func(h hookPoint, p int, s uint64) {
					if h == hookExec && p == 0 || h == hookInactive && p == 1 {
						claimed(s)
					}
				}}
			done := make(chan error, 1)
			go func() {
				_, _, _, err := probedRun(t, m, 2, pr, 2000)
				done <- err
			}()
			var err error
			for t0 := time.Now(); err == nil; {
				select {
				case err = <-done:
					if err == nil {
						t.Fatal("the broken engine passed 2000 walks deactivating its worker every other command: the probe cannot fail")
					}
				case <-time.After(10 * time.Millisecond):
					if p := pr.err.Load(); p != nil {
						err = *p
					} else if time.Since(t0) > time.Minute {
						t.Fatal("the broken engine hung without a probe error")
					}
				}
			}
			t.Logf("caught: %v", err)
		})
	}
}
