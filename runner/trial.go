package runner

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"sardonics/draws"
	"sardonics/replica"
	"sardonics/sampler"
	"sardonics/summary"
)

// Block is the number of steps between checkpoint opportunities. A chain
// that cannot save its state (see sampler.Stateful) is also rebuilt from
// its spins at every block boundary, so that every derived quantity is a
// function of the spins there and a checkpoint resumes bit-identically; a
// Stateful chain is built once per trial and saved whole.
const Block = 1000

// trial is the running state of one trial.
type trial struct {
	recorder // what every step records (record.go)
	clock    // its CPU (clock.go)
	cfg      *Config
	name     string
	r        *rand.PCG
	ch       sampler.Chain
	release  func()
	adapters []adapter // what adapts the chain (adapter.go)
	base     sampler.Stats
	pending  int64          // steps not yet reported to the progress board
	overlap  func() float64 // the chain's overlap q, recorded each step (replica exchange with --overlap)
	mag      func() int     // the chain's sum of spins, recorded each step

	// ladder is the chain when it is replica exchange: every rung is
	// recorded at the end of each round after the burn-in (rec.Rungs),
	// from the buffers rungE and rungQ.
	ladder       replica.Ladder
	rungE, rungQ []float64

	// burn is the steps discarded: cfg.Burn, or in a budget run
	// unknownSteps until the trial's CPU fixes it (see readClock),
	// burnCPU the CPU at its end (-1 until then); adapt is half the
	// burn-in, during which an adaptive ladder moves and after which
	// hybrid's cycle tuning starts (unknownSteps likewise).
	burn, adapt int
	burnCPU     float64
}

// flushDone reports the pending steps to the run's progress board.
func (t *trial) flushDone() {
	if p := t.cfg.progress; p != nil {
		p.report(t.cfg.slot, t.pending)
	}
	t.pending = 0
}

func (t *trial) build(spins []int8) error {
	rebuilt := t.release != nil
	if rebuilt {
		t.detach(t.ch) // its workers' CPU is the trial's
		t.release()
		t.ch, t.release = nil, nil
	}
	ch, release, err := newTrialChain(t.cfg, t.name, t.r, spins, t.burn, t.adapt)
	if err != nil {
		return err
	}
	t.ch, t.release = ch, release
	t.attach(ch)
	t.overlap = nil
	t.ladder, _ = ch.(replica.Ladder)
	// A chain that keeps its sum of spins is asked for it; the others'
	// spins are summed after every step (sampler.SpinSum, O(N/8), against
	// a step of N updates for the sweeping samplers).
	if mc, ok := ch.(sampler.Magnetized); ok {
		mc.TrackMagnetization()
		t.mag = mc.Magnetization
	} else {
		t.mag = func() int { return sampler.SpinSum(ch.Spins()) }
	}
	if o, ok := ch.(sampler.Overlapped); ok && t.cfg.Replicas.Overlap {
		t.overlap = o.Overlap
	}
	t.overlaps = t.overlap != nil
	for _, a := range t.adapters {
		if err := a.configure(ch, rebuilt); err != nil {
			return err
		}
	}
	return nil
}

// stateful is the chain as a sampler.Stateful, if it can save its state.
func (t *trial) stateful() (sampler.Stateful, bool) {
	if !sampler.CanSave(t.ch) {
		return nil, false
	}
	s, ok := t.ch.(sampler.Stateful)
	return s, ok
}

// rebuild makes a fresh chain from the current spins (see Block).
func (t *trial) rebuild() error {
	st := t.ch.Stats()
	if st.Flips >= 0 { // -1 marks samplers without flips (sw, blockgibbs)
		t.base.Flips += st.Flips
	}
	t.base.Proposed += st.Proposed
	t.base.Accepted += st.Accepted
	return t.build(append([]int8(nil), t.ch.Spins()...))
}

// RunTrial runs one trial of one sampler, resuming from its checkpoint in
// cfg.Checkpoint's folder if there is one. It returns ErrInterrupted (with
// the checkpoint written) when cfg.Stop is raised. A budget run's trial
// (cfg.TrialBudget) runs until its CPU reaches the budget, or cfg.Steps.
// Its phases: newTrial and open set it up (restored from a checkpoint
// where there is one), run steps it block by block, finish records what
// it did.
func RunTrial(cfg *Config, name string, tn int) (*summary.TrialRecord, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cfg.budgetCheck(); err != nil {
		return nil, err
	}
	start := time.Now()
	t := newTrial(cfg, name, tn)
	defer t.close()
	prevWall, err := t.open()
	if err != nil {
		return nil, err
	}
	capped, err := t.run(start, prevWall)
	if err != nil {
		return nil, err
	}
	if err := t.finish(capped); err != nil {
		return nil, err
	}
	t.rec.WallSeconds = prevWall + time.Since(start).Seconds()
	t.rec.CPUSeconds = t.cpu()
	for _, a := range t.adapters {
		a.finish(t.rec)
	}
	t.rec.WaitCPUSeconds = t.waitCPU()
	return t.rec, nil
}

// newTrial is trial tn of sampler name before its chain is built: its
// stream, record, and the burn-in and adaptation its schedule fixes (a
// budget trial's are unknown until its CPU fixes them).
func newTrial(cfg *Config, name string, tn int) *trial {
	t := &trial{cfg: cfg, name: name, r: StreamFor(cfg.Seed, tn, name),
		recorder: recorder{rec: &summary.TrialRecord{Sampler: name, Trial: tn}, traceCap: cfg.traceCap(),
			saveEvery: cfg.saveEvery(), saveStates: cfg.SaveStates},
		burn: cfg.Burn, adapt: cfg.Burn / 2, clock: newClock()}
	switch {
	case cfg.budget() && cfg.BurnFraction == 0: // nothing to discard, nor to adapt (cli refuses an adaptive ladder)
		t.burn, t.adapt = 0, 0
	case cfg.budget():
		t.burn, t.burnCPU = unknownSteps, -1
		if cfg.Replicas.halfBurn() {
			t.adapt = unknownSteps
		}
	}
	return t
}

// close releases what open acquired: the full trace's files and the
// chain's threads.
func (t *trial) close() {
	if t.full != nil {
		t.full.close()
	}
	if t.release != nil {
		t.release()
	}
}

// open sets up the trial's tuner and marginals, restores its checkpoint
// if it has one (returning the wall time it had spent), builds its chain,
// and sizes its record and full trace.
func (t *trial) open() (prevWall float64, err error) {
	cfg, name, tn := t.cfg, t.name, t.rec.Trial
	if t.adapters, err = adaptersFor(cfg, name, tn); err != nil {
		return 0, err
	}
	if cfg.Marginals {
		pi, pj := cfg.Model.Pairs()
		t.marg = summary.NewMarginalsAcc(cfg.Model.Variables(), pi, pj, cfg.SavedStates())
	}
	ck, prevWall, err := t.restore()
	if err != nil {
		return 0, err
	}
	spins := startState(cfg, tn)
	if ck != nil {
		spins = ck.Spins
	}
	if err := t.build(spins); err != nil {
		return 0, err
	}
	t.sizeRecord()
	if ck != nil && len(ck.State) > 0 {
		sf, ok := t.stateful()
		if !ok {
			return 0, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint holds a chain state this sampler cannot restore", CheckpointPath(cfg.Dir, name, tn))}
		}
		if err := sf.RestoreState(ck.State); err != nil {
			return 0, &sampler.UsageError{Msg: fmt.Sprintf("%s: chain state: %v", CheckpointPath(cfg.Dir, name, tn), err)}
		}
	}
	if cfg.SaveTrace && cfg.Dir != "" {
		if t.full, err = openFullTrace(cfg.Dir, name, tn, t.overlap != nil, t.rec.Steps); err != nil {
			return 0, err
		}
	}
	return prevWall, nil
}

// sizeRecord gives the record (new, or restored) what it will hold: the
// kept draws take their whole length once, here (at most TraceCap of each
// phase, whatever the steps), the lowest states and the rungs their
// accumulators.
func (t *trial) sizeRecord() {
	cfg := t.cfg
	if t.rec.Trace == nil {
		t.rec.Trace = &summary.Trace{BurnIn: draws.New(0, cfg.traceCap())}
	}
	if t.rec.Lowest == nil {
		t.rec.Lowest = &summary.Lowest{}
	}
	if cfg.SaveBest > 0 && t.rec.Best == nil {
		t.rec.Best = &summary.BestSet{K: cfg.SaveBest}
	}
	if t.ladder != nil && t.rec.Rungs == nil {
		t.rec.Rungs = summary.NewRungTrace(t.ladder.Rungs(), t.ladder.Sets(), cfg.RungCap())
	}
	if c := 2 * cfg.traceCap(); !cfg.budget() {
		c = min(c, cfg.Steps)
		t.rec.Energies = slices.Grow(t.rec.Energies, c-len(t.rec.Energies))
		t.rec.Magnetization = slices.Grow(t.rec.Magnetization, c-len(t.rec.Magnetization))
		if t.overlap != nil {
			t.rec.Overlap = slices.Grow(t.rec.Overlap, c-len(t.rec.Overlap))
		}
		if cfg.SaveStates {
			t.rec.States = slices.Grow(t.rec.States, max(0, cfg.SavedStates()-len(t.rec.States)))
		}
	}
}

// run steps the trial to cfg.Steps (or its budget) block by block: the
// adaptation's iterations while it lasts, then plain steps; at each
// block's end a chain that cannot save its state is rebuilt, and a stop
// or a due checkpoint is written (prevWall and start time its wall).
// capped reports a budget trial that reached cfg.Steps before its budget.
func (t *trial) run(start time.Time, prevWall float64) (capped bool, err error) {
	cfg := t.cfg
	_, keep := t.stateful()
	if p := cfg.progress; p != nil {
		p.restored(cfg.slot, int64(t.rec.Steps), t.prevCPU)
	}
	t.lastSteps, t.lastCPU = t.rec.Steps, t.cpu()
	t.nextCheck = t.rec.Steps + 1
	spent := false
	lastCkpt := time.Now()
	next := (t.rec.Steps/Block + 1) * Block
	for t.rec.Steps < cfg.Steps && !spent {
		if err := t.steps(next); err != nil {
			return false, err
		}
		if cfg.budget() && t.rec.Steps >= t.nextCheck {
			if spent, err = t.readClock(); err != nil {
				return false, err
			}
			if spent {
				break
			}
		}
		if t.fullErr != nil {
			return false, t.fullErr
		}
		if t.rec.Steps >= next && t.rec.Steps < cfg.Steps {
			next = (t.rec.Steps/Block + 1) * Block
			if !keep {
				if err := t.rebuild(); err != nil {
					return false, err
				}
			}
			stop := cfg.Stop != nil && cfg.Stop.Load()
			due := cfg.CheckpointEvery > 0 && time.Since(lastCkpt) >= cfg.CheckpointEvery
			if stop && cfg.Dir == "" { // no folder: nothing to keep
				return false, ErrInterrupted
			}
			if stop || due {
				if err := t.checkpoint(prevWall + time.Since(start).Seconds()); err != nil {
					return false, err
				}
				lastCkpt = time.Now()
				if stop {
					return false, ErrInterrupted
				}
			}
		}
	}
	return cfg.budget() && !spent, nil
}

// steps runs the next stretch of the trial, up to the block's end next:
// one adaptation iteration while the tuner runs, else steps to next (or
// a budget trial's next clock check).
func (t *trial) steps(next int) error {
	cfg := t.cfg
	for _, a := range t.adapters {
		if a.drives() {
			return a.advance(t.ch, t.rec, func() {
				if t.rec.Steps < cfg.Steps {
					t.step()
				}
			})
		}
	}
	until := min(next, cfg.Steps)
	if cfg.budget() {
		until = min(until, t.nextCheck)
	}
	for n := until - t.rec.Steps; n > 0; n-- {
		t.step()
		if err := t.afterStep(); err != nil {
			return err
		}
	}
	return nil
}

// afterStep tells the adapters that the trial made a step.
func (t *trial) afterStep() error {
	at := stepAt{steps: t.rec.Steps, adapt: t.adapt, burn: t.burn, cpu: t.cpu}
	for _, a := range t.adapters {
		if err := a.after(t.ch, at, t.rec); err != nil {
			return err
		}
	}
	return nil
}

// finish records what the trial did: its counters, settings, replica
// exchange, budget, observables, marginals and saved states.
func (t *trial) finish(capped bool) error {
	cfg := t.cfg
	t.flushDone()
	if t.full != nil {
		if t.fullErr != nil {
			return t.fullErr
		}
		if err := t.full.finish(t.rec.Steps); err != nil {
			return err
		}
	}
	st := t.ch.Stats()
	t.rec.Flips, t.rec.Proposed, t.rec.Accepted = t.base.Flips+st.Flips, t.base.Proposed+st.Proposed, t.base.Accepted+st.Accepted
	recordReplica(cfg, t.ch, t.rec)
	if cfg.budget() {
		t.finishBudget(capped)
	}
	t.rec.Observables = summary.NewTrialObservables(t.rec, ModelInfo(cfg.Model, cfg.Beta), t.burn)
	if t.marg != nil {
		t.rec.Marginals = t.marg.Finish(cfg.Model.Variables())
	}
	if cfg.SaveStates {
		k := cfg.saveEvery()
		t.rec.Samples = summary.NewSampleSet(t.rec.States, t.rec.StateEnergies)
		t.rec.SaveEvery, t.rec.SavedStates, t.rec.DistinctStates = k, len(t.rec.States), len(t.rec.Samples.First)
	}
	if t.rec.Machine == "" {
		t.rec.Machine = machine()
	}
	return nil
}
