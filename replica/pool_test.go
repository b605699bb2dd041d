package replica

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sardonics/internal/stress"
	"sync/atomic"
	"testing"
	"time"
)

// stressRounds is the rounds of each stress configuration (stress.Rounds);
// the race detector makes every atomic cost microseconds.
func stressRounds(t *testing.T) int {
	if raceEnabled {
		return stress.Rounds(t, 1_000)
	}
	return stress.Rounds(t, 3_000)
}

// adversary is a hook that stands in for a busy OS scheduler: at each
// hand-off point it yields the thread often, and now and then sleeps for
// up to 200 us, past the waiters' spinFor, so that every park and late
// wake-up path runs.
func adversary(hits *[hookPoints]atomic.Int64) func(hookPoint) {
	return func(p hookPoint) {
		hits[p].Add(1)
		switch r := rand.IntN(1024); {
		case r < 3:
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
		case r < 128:
			runtime.Gosched()
		}
	}
}

// checkRounds runs rounds of n jobs on a pool of w workers and fails at
// the first round from which run returned before each of its jobs ran
// exactly once. It returns that round (or -1) and stops after a stall of
// a few seconds (the broken variant can deadlock), reporting it.
func checkRounds(w, n, rounds int) (bad int, err error) {
	p := newPool(w, nil)
	defer p.close()
	runs := make([]atomic.Int64, n)
	res := make(chan error, 1)
	var progress atomic.Int64
	go func() {
		for r := 1; r <= rounds; r++ {
			p.run(n, func(j int) {
				if j%3 == 0 {
					runtime.Gosched()
				}
				runs[j].Add(1)
			})
			for j := range runs {
				if got := runs[j].Load(); got != int64(r) {
					res <- fmt.Errorf("round %d returned with job %d run %d times (want %d)", r, j, got, r)
					return
				}
			}
			progress.Store(int64(r))
		}
		res <- nil
	}()
	last, since := int64(-1), time.Now()
	for {
		select {
		case err := <-res:
			return int(progress.Load()), err
		case <-time.After(100 * time.Millisecond):
			if r := progress.Load(); r != last {
				last, since = r, time.Now()
			} else if time.Since(since) > 5*time.Second {
				return int(r), fmt.Errorf("no round finished for 5 s after round %d: the pool hangs", r)
			}
		}
	}
}

// TestPoolStress: under the adversary, with GOMAXPROCS below, equal to and
// above the worker count, every round runs each job exactly once before
// run returns, and every hand-off point is exercised.
func TestPoolStress(t *testing.T) {
	rounds := stressRounds(t)
	defer func(h func(hookPoint)) { hook = h }(hook)
	for _, w := range []int{2, 4} {
		for _, procs := range []int{1, w, 2 * w} {
			t.Run(fmt.Sprintf("W=%d/GOMAXPROCS=%d", w, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				var hits [hookPoints]atomic.Int64
				hook = adversary(&hits)
				if _, err := checkRounds(w, 2*w+1, rounds); err != nil {
					t.Fatal(err)
				}
				hook = nil
				for p := range hits {
					if hits[p].Load() == 0 {
						t.Errorf("hand-off point %d never reached in %d rounds", p, rounds)
					}
				}
			})
		}
	}
}

// TestPoolBrokenAwaitCaught: the stress check catches ddf44e3's await (a
// wake-up taken for the round without re-checking it). A worker delayed
// between its decrement and its notify, past the coordinator's spin,
// delivers its notify into the next round's wait.
func TestPoolBrokenAwaitCaught(t *testing.T) {
	if raceEnabled {
		t.Skip("the broken pool races on the members by design")
	}
	defer func(h func(hookPoint), b bool) { hook, brokenAwait = h, b }(hook, brokenAwait)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	hook = func(p hookPoint) {
		if p == hookDecremented {
			time.Sleep(200 * time.Microsecond)
		}
	}
	brokenAwait = true
	r, err := checkRounds(2, 5, 2000)
	if err == nil {
		t.Fatal("the broken await passed 2000 rounds with a late notify in each: the stress check cannot fail")
	}
	t.Logf("caught after %d rounds: %v", r, err)
}
