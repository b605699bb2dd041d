//go:build inject

package parallelsaw

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"sardonics/dense"
	"sardonics/internal/rbmtest"
)

// TestParkedWorkerWakes: an active worker that parked while the engine was
// idle is woken by the next commands (within its wake-up back-off) and the
// results stay exact. It needs TestMain's chaos schedules: the product's
// policy may leave the small model to the coordinator alone.
func TestParkedWorkerWakes(t *testing.T) {
	if min(runtime.GOMAXPROCS(0), runtime.NumCPU()) < 2 {
		t.Skip("needs 2 threads running at once (the worker would be passive)")
	}
	m := rbmtest.RandomRBM(t, 12, 8, 0.5, 7)
	e, d := newEngine(t, m, nil, 2), dense.New(m, nil)
	if e.sh.ctl[1].passive {
		t.Fatal("worker 1 passive with 2 threads")
	}
	r := rand.NewPCG(4, 4)
	check := func() {
		path := rbmtest.RandomPath(r, 20, 10)
		if lf, lfd := fst(e.Replay(path, false)), fst(d.Replay(path, false)); lf != lfd {
			t.Fatalf("Replay %v (dense %v)", lf, lfd)
		}
	}
	check()
	deadline := time.Now().Add(5 * time.Second)
	for e.sh.secs[1].out.sleeping.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("idle worker never parked")
		}
		time.Sleep(time.Millisecond)
	}
	wakes := e.sh.wakes
	for i := 0; i < 20; i++ { // 20 x 12 commands, beyond any back-off after one spell
		check()
	}
	if e.sh.wakes == wakes {
		t.Errorf("parked worker never woken (%d sections run by the coordinator)", e.sh.steals)
	}
}
