//go:build inject

package runner

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"sardonics/internal/stress"
	"sardonics/model"
)

// TestRunUnderAdversary (issue 21, item 2): with the hand-offs between Run
// and its trial goroutines paused at random, and fewer, as many or more Go
// threads than trial goroutines, every trial runs exactly once and its
// trace is the one-goroutine run's, byte for byte.
func TestRunUnderAdversary(t *testing.T) {
	m, err := model.Load("ferro2d:L=3")
	if err != nil {
		t.Fatal(err)
	}
	trials := stress.Rounds(t, 2_000)
	cfg := Config{Model: m, Beta: 0.5, Samplers: []string{"gibbs", "independent-test"}, Steps: 3, Trials: trials, Seed: 11, Threads: 1}
	want, _, err := Run(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { hook = nil }()
	var hits [hookPoints]int64
	var mu sync.Mutex
	hook = func(h hookPoint) {
		mu.Lock()
		hits[h]++
		mu.Unlock()
		switch r := rand.IntN(1024); {
		case r < 4:
			time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
		case r < 256:
			runtime.Gosched()
		}
	}
	for _, c := range []struct{ threads, procs int }{{3, 1}, {3, 3}, {4, 8}} {
		t.Run(fmt.Sprintf("threads=%d/GOMAXPROCS=%d", c.threads, c.procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
			cfg.Threads = c.threads
			got, _, err := Run(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			for name, recs := range want {
				for i, r := range recs {
					g := got[name][i]
					if g == nil || g.Trial != r.Trial || !slices.Equal(g.Energies, r.Energies) {
						t.Fatalf("%s trial %d differs from the one-goroutine run", name, i)
					}
				}
			}
		})
	}
	for h, n := range hits {
		if n == 0 {
			t.Errorf("hand-off point %d never reached", h)
		}
	}
	// The broken variant: Run returns without joining its trial
	// goroutines, so trials are missing or still running.
	if raceEnabled {
		return // the broken run races on the records by design
	}
	brokenJoin = true
	defer func() { brokenJoin = false }()
	hook = func(h hookPoint) {
		if h == hookTrialStart {
			time.Sleep(20 * time.Millisecond) // trials in flight when Run returns
		}
	}
	cfg.Threads, cfg.Trials = 3, 30
	got, _, err := Run(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	caught := false
	for name, recs := range want {
		for i := range cfg.Trials {
			if g := got[name][i]; g == nil || !slices.Equal(g.Energies, recs[i].Energies) {
				caught = true
			}
		}
	}
	if !caught {
		t.Error("a Run that does not join its trial goroutines passed: the check cannot fail")
	}
	time.Sleep(200 * time.Millisecond) // let the abandoned goroutines finish
}
