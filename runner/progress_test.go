package runner

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sardonics/model"
	"sardonics/sampler"
)

// gate is a sampler defined only here that blocks in the Step it is told
// to (stallAt) until released, standing in for a hung chain; or sleeps
// every step (pace), standing in for a slow but healthy one.
type gate struct {
	independent
	stallAt int64
	release chan struct{}
	pace    time.Duration
}

func (c *gate) Step() {
	if c.steps == c.stallAt {
		<-c.release
	}
	time.Sleep(c.pace)
	c.independent.Step()
}

// gateOpts configures the next gate chains (set before Run).
var gateOpts struct {
	stallAt int64
	release chan struct{}
	pace    time.Duration
}

func init() {
	sampler.Register(sampler.Kind{Name: "gate-test", Rank: 1001,
		New: func(m *model.Model, beta float64, _ any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
			c := &gate{independent: independent{m: m.Ising, r: r, s: slices.Clone(init)},
				stallAt: gateOpts.stallAt, release: gateOpts.release, pace: gateOpts.pace}
			c.e = m.Ising.Energy(c.s)
			return c, func() {}, nil
		}})
}

// syncBuffer is a bytes.Buffer safe for the reporter's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func shortStall(t *testing.T) {
	t.Helper()
	oldS, oldP := StallAfter, ProgressInterval
	StallAfter, ProgressInterval = 300*time.Millisecond, 20*time.Millisecond
	t.Cleanup(func() { StallAfter, ProgressInterval = oldS, oldP })
}

// TestStallWarned (issue 21, item 4): a trial that stops making progress
// is named, with its sampler and how to get a goroutine dump, on the
// warnings writer (the progress lines are off, as with --quiet), once;
// the run then finishes when the trial resumes.
func TestStallWarned(t *testing.T) {
	shortStall(t)
	m, err := model.Load("ferro2d:L=4")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	gateOpts.stallAt, gateOpts.release, gateOpts.pace = 700, release, 0
	defer func() { gateOpts.stallAt, gateOpts.release = -1, nil }()
	var warn syncBuffer
	done := make(chan error, 1)
	go func() {
		_, _, err := Run(&Config{Model: m, Samplers: []string{"gate-test"}, Steps: 1000, Trials: 2, Seed: 3, Threads: 2,
			TrialOffset: 4, Warnings: &warn})
		done <- err
	}()
	want := "trial 4 of gate-test has made no progress for"
	for t0 := time.Now(); !strings.Contains(warn.String(), "trial 5 of gate-test"); {
		if time.Since(t0) > 20*time.Second {
			t.Fatalf("no stall warning after 20 s; warnings: %q", warn.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // more ticks: still one warning per trial
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := warn.String()
	if n := strings.Count(out, want); n != 1 || !strings.Contains(out, "kill -QUIT") {
		t.Errorf("want one warning %q with the dump instructions, got:\n%s", want, out)
	}
	t.Logf("%s", out)
}

// TestSlowStepsNotStalled: a trial whose every step is slow (64 steps take
// longer than StallAfter) is not called stalled.
func TestSlowStepsNotStalled(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of statistics or comparison: the full suite runs it")
	}
	shortStall(t)
	m, err := model.Load("ferro2d:L=4")
	if err != nil {
		t.Fatal(err)
	}
	gateOpts.stallAt, gateOpts.release, gateOpts.pace = -1, nil, 10*time.Millisecond
	defer func() { gateOpts.pace = 0 }()
	var warn, prog syncBuffer
	if _, _, err := Run(&Config{Model: m, Samplers: []string{"gate-test"}, Steps: 150, Trials: 1, Seed: 3, Threads: 1,
		Warnings: &warn, Progress: &prog}); err != nil {
		t.Fatal(err)
	}
	if warn.String() != "" || !strings.Contains(prog.String(), "progress: ") {
		t.Errorf("warnings %q (want none), progress %q (want lines)", warn.String(), prog.String())
	}
}

// TestETA (issue 23, item 4): the ETA comes from each running trial's own
// rate (not the fraction of steps done): two trials at 20 and 40 ms per
// step, halfway and a quarter through 1000 steps, and two trials queued at
// their mean rate, on two goroutines: (10 + 30 + 2 x 30) s / 2 = 50 s.
func TestETA(t *testing.T) {
	p := newProgress(2)
	p.startSampler("slow", 1, 4, 1000)
	p.begin(0, "slow", 0)
	p.begin(1, "slow", 1)
	now := p.now()
	for i, n := range []int64{500, 250} {
		p.slots[i].begun.Store(now - 10e9)
		p.slots[i].steps.Store(n)
	}
	d, name, later, ok := p.eta()
	if !ok || name != "slow" || later != 1 || math.Abs(d.Seconds()-50) > 0.5 {
		t.Errorf("eta = %v, %q, %d later, %v (want 50s, slow, 1, true)", d, name, later, ok)
	}
	var b bytes.Buffer
	progressLine(&b, false, p, 8000)
	if !strings.Contains(b.String(), "ETA 50s for slow, then 1 sampler not yet timed") {
		t.Errorf("progress line %q", b.String())
	}
}
