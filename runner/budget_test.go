package runner

import (
	"bytes"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"sardonics/model"
	"sardonics/sampler"
)

// TestBudgetRun (issue 23, item 2): trials of a budget run, two at a
// time, each stop at the first reading of their clock past their share of
// thread CPU, record the steps they made and the burn-in of the first
// BurnFraction of their CPU, and the progress lines count CPU; a trial
// that reaches the step bound first stops there and says so.
func TestBudgetRun(t *testing.T) {
	oldI := ProgressInterval
	ProgressInterval = 10 * time.Millisecond
	defer func() { ProgressInterval = oldI }()
	m, err := model.Load("ferro2d:L=8")
	if err != nil {
		t.Fatal(err)
	}
	var prog syncBuffer
	const share = 0.08
	cfg := &Config{Model: m, Beta: 0.4, Samplers: []string{"gibbs", "metropolis"}, Steps: 1 << 40, TrialBudget: share, BurnFraction: 0.25,
		Trials: 3, Seed: 5, Threads: 2, Progress: &prog}
	recs, _, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, rs := range recs {
		for _, r := range rs {
			b := r.Budget
			if b == nil || b.CPUSeconds != share || b.Steps != r.Steps || b.StepCap != "" || b.BurnCPUSeconds == nil {
				t.Fatalf("%s trial %d: budget %+v (%d steps)", name, r.Trial, b, r.Steps)
			}
			if !(r.CPUSeconds >= share && r.CPUSeconds < share*1.05+0.01) {
				t.Errorf("%s trial %d: %.4g s of CPU for a share of %g", name, r.Trial, r.CPUSeconds, share)
			}
			if c := *b.BurnCPUSeconds; !(c >= share/4 && c < share/4+0.005) || b.BurnIn <= 0 || b.BurnIn >= b.Steps {
				t.Errorf("%s trial %d: burn-in %d of %d steps, ended at %.4g s (want %g)", name, r.Trial, b.BurnIn, b.Steps, c, share/4)
			}
			if r.Observables.BurnIn != b.BurnIn {
				t.Errorf("%s trial %d: observables over the steps after %d, burn-in %d", name, r.Trial, r.Observables.BurnIn, b.BurnIn)
			}
		}
	}
	if out := prog.String(); !strings.Contains(out, "s of thread CPU (") || !strings.Contains(out, "/0.48 s") {
		t.Errorf("progress lines %q", out)
	}
	// The step bound.
	cfg.Steps, cfg.Progress, cfg.Samplers = 100, nil, []string{"gibbs"}
	recs, _, err = Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs["gibbs"] {
		if b := r.Budget; r.Steps != 100 || b.StepCap == "" || b.BurnIn != 25 || b.BurnCPUSeconds != nil {
			t.Errorf("trial %d at the step bound: %d steps, budget %+v", r.Trial, r.Steps, b)
		}
	}
}

// TestBudgetETA: a budget run's ETA is every trial's CPU still to spend
// at its own rate of wall time per CPU second, the queued trials and
// those of the samplers after this one (the same budget each) at the
// running trials' mean rate, over the trial goroutines. Two trials of a
// 10 s share, one at 1 s of wall per CPU second 4 s in, one at 2 s 3 s
// in, two queued and 1 sampler of 4 trials after: (6 x 1 + 7 x 2 + 6 x 10
// x 1.5) / 2 = 55 s.
func TestBudgetETA(t *testing.T) {
	p := newProgress(2)
	p.budget = true
	p.startSampler("slow", 1, 4, 10e9)
	p.begin(0, "slow", 0)
	p.begin(1, "slow", 1)
	now := p.now()
	p.slots[0].begun.Store(now - 4e9)
	p.reportCPU(0, 4)
	p.slots[1].begun.Store(now - 6e9)
	p.reportCPU(1, 3)
	d, name, later, ok := p.eta()
	if !ok || name != "slow" || later != 0 || math.Abs(d.Seconds()-55) > 0.5 {
		t.Errorf("eta = %v, %q, %d later, %v (want 55s, slow, 0, true)", d, name, later, ok)
	}
	var b bytes.Buffer
	progressLine(&b, false, p, 80e9)
	if want := "progress: 7.0/80 s of thread CPU (8.8%), 0 steps, ETA 55s for all trials\n"; b.String() != want {
		t.Errorf("progress line %q, want %q", b.String(), want)
	}
	// A resumed trial's restored CPU says nothing of its rate: 1 s of
	// CPU in 2 s, rate 2, like the other trial.
	p.begin(0, "slow", 2)
	p.restored(0, 500, 5)
	p.slots[0].begun.Store(p.now() - 2e9)
	p.reportCPU(0, 6)
	if d, _, _, _ := p.eta(); math.Abs(d.Seconds()-(4*2+7*2+5*10*2)/2) > 0.5 {
		t.Errorf("eta after a resume = %v, want %v s", d, (4*2+7*2+5*10*2)/2)
	}
}

// TestWorkerCPUExcludesThreadHistory: a replica-exchange chain's worker
// CPU counts only what its workers did, though the Go runtime may start
// them on threads that ran other goroutines before (here: threads each
// left with 50 ms of CPU); a budget trial would otherwise start with its
// share spent.
func TestWorkerCPUExcludesThreadHistory(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for c := ThreadCPU(); ThreadCPU()-c < 0.05; {
			}
			runtime.UnlockOSThread() // the thread, with its CPU, goes back to the runtime
		}()
	}
	wg.Wait()
	m, err := model.Load("ferro2d:L=8")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Model: m, Beta: 0.4, Replicas: ReplicaConfig{R: 8, BetaMin: 0.1, Workers: 4}}
	ch, release, err := newTrialChain(cfg, "metropolis", StreamFor(1, 0, "metropolis"), InitialState(1, 0, m.Variables()), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ch.Step()
	if w := sampler.WorkerCPUSeconds(ch); !(w >= 0 && w < 0.02) {
		t.Errorf("the workers' CPU after one step of 8 replicas of 64 spins: %.4g s", w)
	}
}

// TestSummaryETA: the ETA adds the summary's estimate, from the steps each
// sampler made or will make: a sampler that ran, and the running one's
// steps extrapolated from its CPU so far (budget), or all samplers' known
// steps (a run of --steps). The estimator here is 1 s per 1000 steps.
func TestSummaryETA(t *testing.T) {
	perK := func(steps int64) time.Duration { return time.Duration(steps) * time.Millisecond }

	p := newProgress(1)
	p.budget, p.summary = true, perK
	p.startSampler("a", 1, 2, 10e9) // 2 trials of 10 s
	p.begin(0, "a", 0)
	p.report(0, 3000)
	p.reportCPU(0, 10)
	p.end(0)
	p.begin(0, "a", 1)
	p.report(0, 3000)
	p.reportCPU(0, 10)
	p.end(0)
	p.startSampler("b", 0, 2, 10e9) // a made 6000 steps: 6 s
	p.begin(0, "b", 0)
	p.slots[0].begun.Store(p.now() - 5e9)
	p.report(0, 500)
	p.reportCPU(0, 5) // 500 steps in 5 of 20 s: 2000 steps, 2 s
	if d, ok := p.summaryETA(); !ok || math.Abs(d.Seconds()-8) > 1e-6 {
		t.Errorf("budget summary ETA = %v, %v; want 8s", d, ok)
	}
	var b bytes.Buffer
	progressLine(&b, false, p, 40e9)
	// trials: 15 s of CPU left at 1 s of wall per CPU second.
	if want := "ETA 23s (trials 15s, then about 8s to summarize)\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("progress line %q, want the suffix %q", b.String(), want)
	}
	// A sampler still to run counts with the pilot's steps per trial:
	// 2 trials x 1500 steps, 3 s more.
	p.expected = []int{1000, 1500}
	p.cur.Load().later = 1
	if d, ok := p.summaryETA(); !ok || math.Abs(d.Seconds()-11) > 1e-6 {
		t.Errorf("budget summary ETA with a later sampler = %v, %v; want 11s", d, ok)
	}

	q := newProgress(1)
	q.summary = perK
	q.startSampler("a", 1, 2, 1000)
	q.startSampler("b", 0, 2, 1000) // a: 2000 steps, b: 2000
	if d, ok := q.summaryETA(); !ok || d != 4*time.Second {
		t.Errorf("steps summary ETA = %v, %v; want 4s", d, ok)
	}
	q.summary = nil
	if _, ok := q.summaryETA(); ok {
		t.Error("a summary ETA without an estimator")
	}
}

// TestSummaryCostScales: the calibrated estimate is positive and grows as
// D log D.
func TestSummaryCostScales(t *testing.T) {
	var c summaryCost
	a, b := c.estimate(1<<16), c.estimate(1<<20)
	if !(a > 0) || math.Abs(float64(b)/float64(a)-16*20.0/16) > 1e-6 {
		t.Errorf("estimates %v (2^16 steps), %v (2^20): want positive, ratio 20", a, b)
	}
}
