package runner

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"sardonics/draws"
	"sardonics/replica"
	"sardonics/sampler"
	"sardonics/summary"
)

// A --budget run (Config.TrialBudget > 0) gives every trial the same
// thread CPU instead of the same number of steps: trial t runs until the
// CPU of its thread and of the workers its chain runs (the parallel
// engine's sections, the replica-exchange workers), a resumed trial's
// earlier CPU included, reaches TrialBudget seconds. Its burn-in is the
// steps it made in the first BurnFraction of that CPU. With an adaptive
// ladder (--ladder adaptive or variance) the ladder moves during the steps
// of the first BurnFraction/2 of the CPU, and hybrid's cycle tuning (a
// replica-exchange chain's, a single chain's) starts after them; the
// burn-in is then twice those steps:
// the relation a run of --burn B keeps (both act at step B/2), so that
// --steps and --burn repeat such a trial too.
//
// The trial reads its clock every checkEvery of CPU or so (every step when
// a step costs more), and never far past an event: it steps until its
// estimate of the next event's step, so the budget is overrun by at most
// about a step plus checkEvery. A step's cost, and so where the burn-in
// and the trial end, depend on the machine: such a run is not repeatable
// bit for bit. Every trial records the steps it made and discarded
// (summary.TrialBudget), and --steps S --burn B repeats a trial of S steps
// exactly: its chain depends only on (seed, trial, sampler) and its steps.

// checkEvery is the thread CPU between two readings of a budget trial's
// clock: a reading costs about a microsecond (two system calls, more with
// replica workers), so the clock costs 0.1% and the budget is overrun by
// about a millisecond.
const checkEvery = 1e-3

// unknownSteps marks a burn-in (or adaptation) whose length a budget trial
// does not know yet: no step is past it.
const unknownSteps = math.MaxInt

// halfBurn reports whether the run acts at half its burn-in: an adaptive
// ladder (Adaptive, the variance ladder too) moves until then, a
// replica-exchange chain's cycle tuner starts then and a single hybrid
// chain chooses its cycle then (TuneCycles). A budget trial of such a run
// fixes its burn-in at twice the steps of the first half of its share
// (see clock).
func (rc ReplicaConfig) halfBurn() bool {
	return rc.On() && rc.Adaptive || rc.TuneCycles
}

// budget reports whether cfg is a --budget run.
func (cfg *Config) budget() bool { return cfg.TrialBudget > 0 }

// cpu is the trial's thread CPU so far: its own thread's (the trial
// goroutine is locked to it), its chains' workers' and, after a resume,
// what the checkpoint recorded.
func (t *trial) cpu() float64 { return t.clock.cpu(t.ch) }

// waitCPU is the trial's waiting so far (sampler.WaitCPUSeconds).
func (t *trial) waitCPU() float64 { return t.wait(t.ch) }

// readClock reads a budget trial's CPU after its step n = len(Energies): it
// ends the adaptation and the burn-in when their share of the budget is
// spent (rebuilding a replica-exchange chain that counts from them), and
// reports whether the trial's budget is spent. Otherwise it sets nextCheck,
// the step after which to read the clock again.
func (t *trial) readClock() (bool, error) {
	cfg := t.cfg
	n := t.rec.Steps
	cpu := t.cpu()
	if p := cfg.progress; p != nil {
		p.reportCPU(cfg.slot, cpu)
	}
	b, f := cfg.TrialBudget, cfg.BurnFraction
	moved := false
	if t.adapt == unknownSteps && cpu >= b*f/2 {
		t.adapt, t.burn, moved = n, 2*n, true
	}
	if t.burn == unknownSteps && cpu >= b*f {
		t.burn, moved = n, true
	}
	if t.burnCPU < 0 && n >= t.burn {
		t.burnCPU = cpu
	}
	if cpu >= b {
		return true, nil
	}
	if moved {
		if err := t.reschedule(); err != nil {
			return false, err
		}
		// A run of --steps tunes right after the step that reaches half
		// its burn-in: so here, after step n, not after the next.
		if err := t.afterStep(); err != nil {
			return false, err
		}
	}
	next := b // the CPU of the next event
	switch {
	case t.adapt == unknownSteps:
		next = b * f / 2
	case t.burn == unknownSteps:
		next = b * f
	}
	per := (cpu - t.lastCPU) / float64(max(1, n-t.lastSteps))
	t.lastCPU, t.lastSteps = cpu, n
	k := 1
	if per > 0 {
		k = int(min(checkEvery, next-cpu) / per)
	}
	k = min(max(1, k), Block)
	if t.burnCPU < 0 && t.burn != unknownSteps {
		k = min(k, t.burn-n) // to read the CPU at the end of the burn-in
	}
	t.nextCheck = n + k
	return false, nil
}

// reschedule rebuilds a replica-exchange chain from its whole state once
// its budget has fixed the burn-in or the adaptation, which the chain's
// schedule counts from (replica.Config.CountFrom, Adapt): the state
// (replica.Chain.AppendState) does not hold the schedule, so the chain
// continues bit for bit under the new one. Other chains read neither; a
// chain that cannot save its state takes the new schedule when it is
// rebuilt at the next block.
func (t *trial) reschedule() error {
	if _, ok := t.ch.(replica.Ladder); !ok {
		return nil
	}
	sf, ok := t.stateful()
	if !ok {
		return nil
	}
	st := sf.AppendState(nil)
	if err := t.build(append([]int8(nil), t.ch.Spins()...)); err != nil {
		return err
	}
	nf, ok := t.stateful()
	if !ok {
		return fmt.Errorf("replica chain lost its state on rebuild")
	}
	return nf.RestoreState(st)
}

// finishBudget records what a budget trial was given and did.
func (t *trial) finishBudget(capped bool) {
	cfg := t.cfg
	n := t.rec.Steps
	b := &summary.TrialBudget{CPUSeconds: cfg.TrialBudget, BurnFraction: cfg.BurnFraction, Steps: n}
	if t.burn == unknownSteps {
		// Stopped at the step bound before its burn-in's share of CPU
		// (the clock sets the burn-in before it ends a trial).
		t.burn = int(cfg.BurnFraction * float64(n))
		t.splitBurnIn()
	}
	if t.burnCPU >= 0 {
		b.BurnCPUSeconds = &t.burnCPU
	}
	b.BurnIn = min(t.burn, n)
	if capped {
		b.StepCap = fmt.Sprintf("stopped at %d steps, the most the run's memory and disk hold per trial, after %.3g s of its %.3g s", n, t.cpu(), cfg.TrialBudget)
		if b.BurnCPUSeconds == nil {
			b.StepCap += fmt.Sprintf(", before its burn-in's share of CPU: the burn-in is the first %g of its steps", cfg.BurnFraction)
		}
	}
	t.rec.Budget = b
}

// StepCost measures what a step of sampler name costs in thread CPU
// (workers included), stepping trial cfg.TrialOffset's chain from its
// start for about maxCPU seconds (at least 3 steps, at most 10 s of wall
// time); build is the CPU of building the chain. It runs before a budget
// run to estimate the steps its trials will make; the run's own chains
// are built afresh, so nothing it does reaches the outputs. The first
// steps from a random state may cost more or less than later ones: the
// estimate is rough.
func StepCost(cfg *Config, name string, maxCPU float64) (perStep, build float64, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	wc, undo := slotConfig(cfg, name, 0)
	defer undo()
	tn := cfg.TrialOffset
	t := &trial{cfg: wc, name: name, r: StreamFor(cfg.Seed, tn, name), recorder: recorder{rec: &summary.TrialRecord{Sampler: name, Trial: tn}},
		burn: unknownSteps, adapt: unknownSteps, burnCPU: -1, clock: newClock()}
	if kindOf(name).Tunable {
		t.adapters = []adapter{&kernelTuner{thetas: cfg.SAW.Thetas}}
	}
	if err := t.build(startState(cfg, tn)); err != nil {
		return 0, 0, err
	}
	defer t.release()
	build = t.cpu()
	start, n := time.Now(), 0
	for n < 3 || t.cpu()-build < maxCPU && time.Since(start) < 10*time.Second {
		t.ch.Step()
		n++
	}
	return (t.cpu() - build) / float64(n), build, nil
}

// budgetCheck refuses what a budget run cannot do.
func (cfg *Config) budgetCheck() error {
	switch {
	case !cfg.budget():
		return nil
	case cfg.Tune != nil:
		return &sampler.UsageError{Msg: "--budget with --tune is not supported"}
	case cfg.Marginals:
		return &sampler.UsageError{Msg: "--budget with --marginals is not supported"}
	case !(cfg.BurnFraction >= 0 && cfg.BurnFraction < 1):
		return &sampler.UsageError{Msg: fmt.Sprintf("--burn-fraction %g (expected 0 <= F < 1)", cfg.BurnFraction)}
	case cfg.Steps < 1:
		return &sampler.UsageError{Msg: "a --budget run needs its step bound (Config.Steps >= 1)"}
	}
	return nil
}

// splitBurnIn makes the kept draws of a trial that stopped before its
// budget fixed the burn-in, all taken as the burn-in's, into the burn-in's
// and those after it, once finishBudget has set t.burn: the draws after
// t.burn become the kept ones, thinned as the burn-in's were (the burn-in
// is moved back to the step of the last draw before it, so that the
// steps of the kept draws are burn + m*every again). Their exact moments
// were not accumulated: the record has none, and the summary takes the
// kept draws' (exact when nothing was thinned).
func (t *trial) splitBurnIn() {
	tr := t.rec.Trace
	b := &tr.BurnIn
	j := 0 // the burn-in's draws: those at steps <= t.burn
	for j < b.Kept && b.Step(j) <= t.burn {
		j++
	}
	if j > 0 {
		t.burn = b.Step(j - 1)
	} else {
		t.burn = 0
	}
	tr.Kept = draws.Thinning{Origin: t.burn, Every: b.Every, Cap: b.Cap, Kept: b.Kept - j}
	b.Kept = j
	t.rec.Moments = nil
}
