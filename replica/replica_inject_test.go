//go:build inject

package replica_test

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"sardonics/replica"
	"sardonics/topology"
)

// TestBrokenSwapCaught shows that the check of TestAgreesWithEnumeration
// can fail: a swap rule without the temperature difference is caught by a
// wide margin.
func TestBrokenSwapCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of statistics or comparison: the full suite runs it")
	}
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	defer replica.SetBrokenSwap(true)()
	for _, kc := range []kernelCase{kernelCases[0], kernelCases[3], kernelCases[6]} {
		zE, zP := agreement(t, kc, 16, 3000)
		t.Logf("%s: z(mean E) = %.2f, z(P(E_min)) = %.2f", kc.name, zE, zP)
		if math.Abs(zE) < 8 && math.Abs(zP) < 8 {
			t.Errorf("%s: the broken swap rule was not caught (z = %.2f, %.2f)", kc.name, zE, zP)
		}
	}
}

// TestWorkersUnderAdversary: with the pool's hand-offs paused at random
// (a busy machine's scheduler), fewer, as many or more Go threads than
// workers, and the policy's active count left to the product's policy or
// changed at random every round, the trace is still byte-identical to the
// single-worker run.
func TestWorkersUnderAdversary(t *testing.T) {
	kc := kernelCases[3] // metropolis: short rounds, so many hand-offs
	cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 6), SwapEvery: 2, Adapt: 300, Sets: 2}
	c1, _ := newChain(t, kc, cfg, 5)
	e1, q1 := trace(c1, 3000)
	for _, withChaos := range []bool{false, true} {
		func() {
			defer replica.SetAdversary(3, withChaos)()
			for _, procs := range []int{1, 3, 6} {
				func() {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					cfg.Workers = 3
					c3, _ := newChain(t, kc, cfg, 5)
					e3, q3 := trace(c3, 3000)
					if !slices.Equal(e1, e3) || !slices.Equal(q1, q3) {
						t.Errorf("GOMAXPROCS %d, chaos %v: 3 workers under the adversary changed the chain", procs, withChaos)
					}
					// The workers may still add waiting after the last round
					// (a spell that ends later): the pool's wait, read between
					// two reads of the chain's, lies between them.
					w1 := c3.WaitCPUSeconds()
					wait, _ := c3.PoolSeconds()
					w2 := c3.WaitCPUSeconds()
					if !(wait >= 0) || w1 > wait || wait > w2 {
						t.Errorf("GOMAXPROCS %d, chaos %v: WaitCPUSeconds %g then %g, pool's %g between", procs, withChaos, w1, w2, wait)
					}
				}()
			}
		}()
	}
}

// TestWaitCPUBounded: the waiting CPU a chain reports is at most the CPU
// of its threads (the caller's and the workers'), and a chain without
// workers reports none.
func TestWaitCPUBounded(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	kc := kernelCases[3]
	cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 6), SwapEvery: 1, Sets: 1}
	c1, _ := newChain(t, kc, cfg, 5)
	trace(c1, 200)
	if w := c1.WaitCPUSeconds(); w != 0 {
		t.Errorf("one thread: WaitCPUSeconds %g (want 0)", w)
	}
	defer replica.SetAdversary(2, true)()
	cfg.Workers = 2
	c2, _ := newChain(t, kc, cfg, 5)
	tid := topology.ThreadID()
	cpu0 := topology.ThreadCPU(tid)
	trace(c2, 3000)
	total := topology.ThreadCPU(tid) - cpu0 + c2.WorkerCPUSeconds()
	if w := c2.WaitCPUSeconds(); !(w >= 0) || w > total*1.05+1e-3 {
		t.Errorf("WaitCPUSeconds %g of %g CPU seconds", w, total)
	}
}
