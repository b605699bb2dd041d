package runner

import "sardonics/sampler"

// clock is a trial's CPU accounting: its own thread's (the trial
// goroutine is locked to it), the workers' of the chains it ran (the
// parallel engine's sections, replica exchange's workers) and a resumed
// trial's earlier CPU; the part of it the chains' threads spent waiting
// for each other; and, in a --budget run, when it reads itself next (see
// trial.clock). Its saved form is clockState.
type clock struct {
	cpu0    float64 // the thread's CPU when the trial (or its resume) began
	prevCPU float64 // a resumed trial's earlier CPU
	// The workers' CPU of the chains released, and of the current chain
	// when it was built; the waiting likewise (a resumed trial's earlier
	// waiting included in waitPrev).
	workerPrev, w0  float64
	waitPrev, wait0 float64
	// A budget trial reads its clock after step nextCheck, the last
	// reading being lastCPU after step lastSteps.
	nextCheck, lastSteps int
	lastCPU              float64
}

func newClock() clock { return clock{cpu0: ThreadCPU()} }

// cpu is the trial's CPU so far, ch its current chain.
func (c *clock) cpu(ch sampler.Chain) float64 {
	return c.prevCPU + ThreadCPU() - c.cpu0 + c.workerPrev + sampler.WorkerCPUSeconds(ch) - c.w0
}

// wait is the trial's waiting so far (sampler.WaitCPUSeconds).
func (c *clock) wait(ch sampler.Chain) float64 {
	return c.waitPrev + sampler.WaitCPUSeconds(ch) - c.wait0
}

// attach starts counting the workers of ch, the chain just built.
func (c *clock) attach(ch sampler.Chain) {
	c.w0, c.wait0 = sampler.WorkerCPUSeconds(ch), sampler.WaitCPUSeconds(ch)
}

// detach keeps what the workers of ch, about to be released, spent (read
// before they stop).
func (c *clock) detach(ch sampler.Chain) {
	c.workerPrev += sampler.WorkerCPUSeconds(ch) - c.w0
	c.waitPrev += sampler.WaitCPUSeconds(ch) - c.wait0
}

// clockState is a trial's clocks and budget schedule in its checkpoint:
// its CPU, waiting and wall time so far and, in a --budget run, the
// burn-in and adaptation its CPU has fixed (nil until then) with the CPU
// at the burn-in's end.
type clockState struct {
	CPUSeconds float64 `json:"cpu_seconds"`
	WaitCPU    float64 `json:"wait_cpu_seconds"`
	Wall       float64 `json:"wall_seconds"`
	BurnIn     *int    `json:"burn_in,omitempty"`
	BurnCPU    float64 `json:"burn_cpu_seconds,omitempty"`
	Adapt      *int    `json:"adapt,omitempty"`
}

// saveClock is t's clockState, wall its wall time so far.
func (t *trial) saveClock(wall float64) clockState {
	s := clockState{CPUSeconds: t.cpu(), WaitCPU: t.waitCPU(), Wall: wall}
	if t.cfg.budget() {
		if b := t.burn; b != unknownSteps {
			s.BurnIn, s.BurnCPU = &b, t.burnCPU
		}
		if a := t.adapt; a != unknownSteps {
			s.Adapt = &a
		}
	}
	return s
}

// restoreClock continues t's clocks and schedule from s, returning the
// wall time it had spent.
func (t *trial) restoreClock(s clockState) (wall float64) {
	if t.cfg.budget() {
		if s.BurnIn != nil {
			t.burn, t.burnCPU = *s.BurnIn, s.BurnCPU
		}
		if s.Adapt != nil {
			t.adapt = *s.Adapt
		}
	}
	t.prevCPU, t.waitPrev = s.CPUSeconds, s.WaitCPU
	return s.Wall
}
