package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"sardonics/draws"
	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
	"sardonics/topology"
)

// Config is one `sample` run.
type Config struct {
	Model    *model.Model
	Beta     float64
	Samplers []string
	// Steps is every trial's steps, of which the first Burn are discarded
	// from the statistics; with TrialBudget, the most steps a trial may
	// make (the bound the run's memory and disk set), Burn unused.
	Steps, Burn int
	// TrialBudget > 0 runs each trial until its thread CPU reaches
	// TrialBudget seconds, and discards the steps made in the first
	// BurnFraction of it (see budget.go): a --budget run.
	TrialBudget  float64
	BurnFraction float64
	Trials       int
	TrialOffset  int
	Seed         uint64
	Threads      int // trials run at once (0: all CPUs)
	SAW          sawsampler.Config
	Replicas     ReplicaConfig // replica exchange around every sampler (off when R <= 1)
	Tune         Tuner         // nil: no adaptation phase
	SaveStates   bool
	// SaveBest > 0 keeps each trial's SaveBest lowest distinct states of
	// every step (SAMPLER/best.txt merges them).
	SaveBest int
	// SaveEvery keeps one state in SaveEvery steps after the burn-in
	// (those of steps Burn+k*SaveEvery) with SaveStates; 0 or 1: every
	// step.
	SaveEvery int
	// Marginals measures every spin's mean and every interacting pair's
	// correlation at the steps SaveEvery selects.
	Marginals bool
	// Init is the starting state (+-1) of every trial (one row) or of
	// each trial (row t - TrialOffset for trial t); nil: random
	// (InitialState).
	Init [][]int8
	// SaveTrace streams every step's observables to .npy files in the
	// trial's folder (see fulltrace.go).
	SaveTrace bool
	// TraceCap is the most draws a trial keeps of each phase (its
	// burn-in, the steps after it) of each observable; 0:
	// draws.DefaultCap. Longer phases are thinned (package draws).
	TraceCap int
	Progress io.Writer // nil: silent
	// ExpectedSteps is a --budget run's estimate of each sampler's steps
	// per trial (the pilot's, by sampler), for the ETA's summary of the
	// samplers still to run; nil: unknown (they are left out).
	ExpectedSteps []int
	ProgressTTY   bool // Progress is a terminal: draw a bar
	// Warnings receives the warning that a trial has stalled (see
	// StallAfter), also when Progress is nil; nil: none.
	Warnings io.Writer

	Dir             string        // output folder: trial folders are written there as trials finish
	CheckpointEvery time.Duration // 0: checkpoint only when stopped
	Stop            *atomic.Bool  // raised by a signal: checkpoint at the next block and return
	Meta            summary.Meta  // identity of the run, stored in checkpoints

	progress *progress // the run's progress board (Run sets it)
	slot     int       // the trial goroutine's slot on it
}

// ErrInterrupted is returned when a run stopped at cfg.Stop after writing
// its checkpoints.
var ErrInterrupted = errors.New("interrupted; checkpoint written")

// Tuner makes the adaptation phase of each sardonics trial.
type Tuner interface {
	Steps() int // chain steps the adaptation uses
	New(r *rand.PCG) (TuneSession, error)
}

// TuneSession is one trial's adaptation, advanced one iteration at a time;
// its JSON form is its checkpoint.
type TuneSession interface {
	Done() bool
	Iterate(ch *saw.Chain, step func()) error
	Finish(ch *saw.Chain) (*summary.TuneRecord, error)
	Current() []saw.Theta // the kernel of the current iteration
	json.Marshaler
	json.Unmarshaler
}

// machine names this host and its CPU for a trial's record.
func machine() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "unknown host"
	}
	return host + ": " + topology.Describe()
}

// StreamFor is the random stream of sampler name in trial t: it depends only
// on (seed, t, name), so adding a sampler to a run leaves the others' traces
// unchanged.
func StreamFor(seed uint64, t int, name string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rng.Sub(seed, uint64(t), h.Sum64())
}

// TunerStream is the random stream of trial t's tuner (its Latin hypercube,
// GP restarts and policy walk), separate from the chain's.
func TunerStream(seed uint64, t int) *rand.PCG { return rng.Sub(seed, uint64(t), 1) }

// InitialState is trial t's random starting state, shared by all samplers.
func InitialState(seed uint64, t, n int) []int8 {
	r := rng.Sub(seed, uint64(t), 0)
	s := make([]int8, n)
	for i := range s {
		if r.Uint64()&1 == 1 {
			s[i] = 1
		} else {
			s[i] = -1
		}
	}
	return s
}

// ThreadCPU is the calling OS thread's CPU time in seconds, to the
// nanosecond (CLOCK_THREAD_CPUTIME_ID: getrusage counts whole scheduler
// ticks, so a trial of a few milliseconds would read as 0).
func ThreadCPU() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return float64(ts.Nano()) / 1e9
}

// ProcessCPU is the process's user and system CPU seconds, all threads.
func ProcessCPU() float64 {
	var u unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}

// workerCPU is the CPU time of the threads a chain runs besides the
// caller's (the parallel engine's workers), 0 for other chains.
func workerCPU(ch sampler.Chain) float64 { return sampler.WorkerCPUSeconds(ch) }

// waitCPU is the CPU time the chain's threads spent waiting for each
// other rather than computing (spinning, parking and waking: replica
// exchange's workers, the parallel engine's sections), part of the
// thread and worker CPU; 0 for chains that run on the caller's thread.
func waitCPU(ch sampler.Chain) float64 { return sampler.WaitCPUSeconds(ch) }

// waitCPU is the trial's waiting so far (see the function waitCPU).
func (t *trial) waitCPU() float64 { return t.waitPrev + waitCPU(t.ch) - t.wait0 }

// Block is the number of steps between checkpoint opportunities. A chain
// that cannot save its state (see sampler.Stateful) is also rebuilt from
// its spins at every block boundary, so that every derived quantity is a
// function of the spins there and a checkpoint resumes bit-identically; a
// Stateful chain is built once per trial and saved whole.
const Block = 1000

// trial is the running state of one trial.
type trial struct {
	cfg     *Config
	name    string
	rec     *summary.TrialRecord
	r       *rand.PCG
	ch      sampler.Chain
	release func()
	thetas  []saw.Theta // the sardonics chain's kernels
	base    sampler.Stats
	tune    TuneSession
	pending int64          // steps not yet reported to the progress board
	overlap func() float64 // the chain's overlap q, recorded each step (replica exchange with --overlap)
	mag     func() int     // the chain's sum of spins, recorded each step
	marg    *summary.MarginalsAcc
	full    *fullTrace // every step's observables, with SaveTrace
	fullErr error      // the first error writing them

	// ladder is the chain when it is replica exchange: every rung is
	// recorded at the end of each round after the burn-in (rec.Rungs),
	// from the buffers rungE and rungQ.
	ladder       *replica.Chain
	rungE, rungQ []float64

	// burn is the steps discarded: cfg.Burn, or in a budget run
	// unknownSteps until the trial's CPU fixes it (see clock), burnCPU the
	// CPU at its end (-1 until then); adapt is half the burn-in, during
	// which an adaptive ladder moves and after which hybrid's cycle
	// tuning starts (unknownSteps likewise).
	burn, adapt int
	burnCPU     float64
	// The CPU clock (cpu): the thread's at the trial's start, a resumed
	// trial's earlier CPU, the workers' CPU of the chains released and
	// of the current chain when it was built.
	cpu0, prevCPU, workerPrev, w0 float64
	// The waiting clock (waitCPU): the CPU the chains' threads spent
	// waiting for each other, of the chains released (a resumed trial's
	// earlier waiting included) and of the current chain when it was
	// built.
	waitPrev, wait0 float64
	// A budget trial reads its clock after step nextCheck (see clock),
	// the last reading being lastCPU after step lastSteps.
	nextCheck, lastSteps int
	lastCPU              float64
	// tuneCPU is the trial's CPU when a replica-exchange chain's cycle
	// tuning began and what it spent (-1: not yet; see watchTuning).
	tuneCPU [2]float64
}

// flushDone reports the pending steps to the run's progress board.
func (t *trial) flushDone() {
	if p := t.cfg.progress; p != nil {
		p.report(t.cfg.slot, t.pending)
	}
	t.pending = 0
}

func (t *trial) build(spins []int8) error {
	if t.release != nil {
		// Its workers' CPU is the trial's (read before they stop).
		t.workerPrev += workerCPU(t.ch) - t.w0
		t.waitPrev += waitCPU(t.ch) - t.wait0
		t.release()
		t.ch, t.release = nil, nil
	}
	ch, release, err := newTrialChain(t.cfg, t.name, t.r, spins, t.burn, t.adapt)
	if err != nil {
		return err
	}
	t.ch, t.release, t.w0, t.wait0 = ch, release, workerCPU(ch), waitCPU(ch)
	t.overlap = nil
	t.ladder, _ = ch.(*replica.Chain)
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
	if sc, ok := ch.(*saw.Chain); ok && len(t.thetas) > 0 {
		return sc.SetThetas(t.thetas)
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
	if t.tune != nil && !t.tune.Done() {
		t.thetas = t.tune.Current()
	}
	return t.build(append([]int8(nil), t.ch.Spins()...))
}

func (t *trial) step() {
	t.ch.Step()
	t.rec.Steps++
	n := t.rec.Steps
	if e, l := t.ch.Energy(), t.rec.Lowest; e < l.Energy || l.Step == 0 || t.rec.Best != nil {
		t.offerLowest(e)
	}
	if n > t.burn {
		t.record(&t.rec.Trace.Kept, true)
		if t.ladder != nil && t.ladder.RoundEnd() {
			t.recordRungs()
		}
	} else {
		t.record(&t.rec.Trace.BurnIn, false)
	}
	if n := n - t.burn; n > 0 && n%t.cfg.saveEvery() == 0 {
		if t.cfg.SaveStates {
			s := t.ch.Spins()
			x := make([]uint8, len(s))
			model.SpinsToBits(s, x)
			t.rec.States = append(t.rec.States, x)
			t.rec.StateEnergies = append(t.rec.StateEnergies, t.ch.Energy())
		}
		if t.marg != nil {
			t.marg.Add(t.ch.Spins())
		}
	}
	// The progress counter is shared by trials on other CPUs: adding to
	// it every step would bounce its cache line between them. The first
	// steps report one by one, so that a slow model's step time is known
	// before the stall check needs it.
	if t.pending++; t.pending == reportEvery || n < reportEvery {
		t.flushDone()
	}
}

// offerLowest counts energy e of step rec.Steps for the lowest energy
// and, with --save-best, the lowest states.
func (t *trial) offerLowest(e float64) {
	t.rec.Lowest.Offer(e, t.rec.Steps)
	if b := t.rec.Best; b != nil && !b.Full(e) {
		b.Offer(e, t.rec.Steps, t.rec.Trial, t.ch.Spins())
	}
}

// record keeps the observables after step rec.Steps if th, the thinning
// of its phase, keeps it, and after the burn-in (kept) adds them to the
// exact moments. The kept draws of the burn-in come first in the
// record's series: after the burn-in it no longer grows.
func (t *trial) record(th *draws.Thinning, kept bool) {
	r := t.rec
	if kept && th.Every == 0 { // the first step after the burn-in
		*th = draws.New(t.burn, t.cfg.traceCap())
		r.Moments = &summary.Moments{}
		if t.overlap != nil {
			r.Moments.Overlap, r.Moments.AbsOverlap, r.Moments.Overlap2 = &draws.Moments{}, &draws.Moments{}, &draws.Moments{}
		}
	}
	keep, halve := th.Next(r.Steps)
	if halve {
		b := 0
		if kept {
			b = r.Trace.BurnIn.Kept
		}
		r.Energies = draws.HalveFrom(r.Energies, b)
		r.Magnetization = draws.HalveFrom(r.Magnetization, b)
		if t.overlap != nil {
			r.Overlap = draws.HalveFrom(r.Overlap, b)
		}
	}
	if !kept && !keep && t.full == nil {
		return // a thinned-out burn-in step: nothing reads its values
	}
	e := t.ch.Energy()
	m := t.mag()
	q := 0.0
	if t.overlap != nil {
		q = t.overlap()
	}
	if t.full != nil && t.fullErr == nil {
		t.fullErr = t.full.add(e, int32(m), q)
	}
	if kept {
		mo := r.Moments
		mo.Energy.Add(e)
		mo.Magnetization.Add(int64(m))
		if mo.Overlap != nil {
			mo.Overlap.Add(q)
			mo.AbsOverlap.Add(math.Abs(q))
			mo.Overlap2.Add(q * q)
		}
	}
	if keep {
		r.Energies = append(r.Energies, e)
		r.Magnetization = append(r.Magnetization, int32(m))
		if t.overlap != nil {
			r.Overlap = append(r.Overlap, q)
		}
	}
}

// recordRungs adds every rung's energy and, with two sets, overlap at the
// end of the round that ended at this step to rec.Rungs.
func (t *trial) recordRungs() {
	t.rungE = t.ladder.RungEnergies(t.rungE[:0])
	t.rungQ = t.ladder.RungOverlaps(t.rungQ[:0])
	t.rec.Rungs.Add(t.rec.Steps, t.rungE, t.rungQ)
}

// RungCap is the most swap rounds a trial keeps of every rung (package
// draws thins them as it does the steps): a quarter of the kept steps'
// cap, and at most 8 times that cap in values of all rungs together
// (energies and overlaps), so that a long ladder's record stays within a
// few times the target's; at least draws.MinCap.
func (cfg *Config) RungCap() int {
	values := max(1, cfg.Replicas.R)
	if cfg.Replicas.Overlap {
		values *= 2
	}
	return max(draws.MinCap, min(cfg.traceCap()/4, 8*cfg.traceCap()/values))
}

// traceCap is the most kept draws of a trial's phase.
func (cfg *Config) traceCap() int {
	if cfg.TraceCap > 0 {
		return cfg.TraceCap
	}
	return draws.DefaultCap
}

// RunTrial runs one trial of one sampler, resuming from its checkpoint in
// cfg.Checkpoint's folder if there is one. It returns ErrInterrupted (with
// the checkpoint written) when cfg.Stop is raised. A budget run's trial
// (cfg.TrialBudget) runs until its CPU reaches the budget, or cfg.Steps.
func RunTrial(cfg *Config, name string, tn int) (*summary.TrialRecord, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cfg.budgetCheck(); err != nil {
		return nil, err
	}
	start := time.Now()
	t := &trial{cfg: cfg, name: name, r: StreamFor(cfg.Seed, tn, name),
		rec: &summary.TrialRecord{Sampler: name, Trial: tn}, burn: cfg.Burn, adapt: cfg.Burn / 2, cpu0: ThreadCPU(),
		tuneCPU: [2]float64{-1, -1}}
	switch {
	case cfg.budget() && cfg.BurnFraction == 0: // nothing to discard, nor to adapt (cli refuses an adaptive ladder)
		t.burn, t.adapt = 0, 0
	case cfg.budget():
		t.burn, t.burnCPU = unknownSteps, -1
		if cfg.Replicas.halfBurn() {
			t.adapt = unknownSteps
		}
	}
	defer func() {
		if t.release != nil {
			t.release()
		}
	}()
	if kindOf(name).Tunable {
		t.thetas = cfg.SAW.Thetas
		if cfg.Tune != nil {
			var err error
			if t.tune, err = cfg.Tune.New(TunerStream(cfg.Seed, tn)); err != nil {
				return nil, err
			}
		}
	}
	if cfg.Marginals {
		pi, pj := cfg.Model.Pairs()
		t.marg = summary.NewMarginalsAcc(cfg.Model.Variables(), pi, pj, cfg.SavedStates())
	}
	prevWall := 0.0
	ck, err := t.restore(&t.prevCPU, &prevWall)
	if err != nil {
		return nil, err
	}
	spins := startState(cfg, tn)
	if ck != nil {
		spins = ck.Spins
	}
	if err := t.build(spins); err != nil {
		return nil, err
	}
	// The kept draws take their whole length once, here: at most
	// TraceCap of each phase, whatever the steps.
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
	if ck != nil && len(ck.State) > 0 {
		sf, ok := t.stateful()
		if !ok {
			return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint holds a chain state this sampler cannot restore", CheckpointPath(cfg.Dir, name, tn))}
		}
		if err := sf.RestoreState(ck.State); err != nil {
			return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: chain state: %v", CheckpointPath(cfg.Dir, name, tn), err)}
		}
	}
	if cfg.SaveTrace && cfg.Dir != "" {
		if t.full, err = openFullTrace(cfg.Dir, name, tn, t.overlap != nil, t.rec.Steps); err != nil {
			return nil, err
		}
		defer t.full.close()
	}
	_, keep := t.stateful()
	if p := cfg.progress; p != nil {
		p.restored(cfg.slot, int64(t.rec.Steps), t.prevCPU)
	}
	t.lastSteps, t.lastCPU = t.rec.Steps, t.cpu()
	t.nextCheck = t.rec.Steps + 1
	spent, capped := false, false
	lastCkpt := time.Now()
	next := (t.rec.Steps/Block + 1) * Block
	for t.rec.Steps < cfg.Steps && !spent {
		sc, _ := t.ch.(*saw.Chain)
		switch {
		case t.tune != nil && !t.tune.Done() && sc != nil:
			if err := t.tune.Iterate(sc, func() {
				if t.rec.Steps < cfg.Steps {
					t.step()
				}
			}); err != nil {
				return nil, err
			}
			if t.tune.Done() {
				tr, err := t.tune.Finish(sc)
				if err != nil {
					return nil, err
				}
				t.rec.Tune, t.thetas = tr, tr.Policy
			}
		default:
			until := min(next, cfg.Steps)
			if cfg.budget() {
				until = min(until, t.nextCheck)
			}
			for n := until - t.rec.Steps; n > 0; n-- {
				t.step()
				if err := t.tuneCycles(); err != nil {
					return nil, err
				}
			}
		}
		if cfg.budget() && t.rec.Steps >= t.nextCheck {
			if spent, err = t.clock(); err != nil {
				return nil, err
			}
			if spent {
				break
			}
		}
		if t.fullErr != nil {
			return nil, t.fullErr
		}
		if t.rec.Steps >= next && t.rec.Steps < cfg.Steps {
			next = (t.rec.Steps/Block + 1) * Block
			if !keep {
				if err := t.rebuild(); err != nil {
					return nil, err
				}
			}
			stop := cfg.Stop != nil && cfg.Stop.Load()
			due := cfg.CheckpointEvery > 0 && time.Since(lastCkpt) >= cfg.CheckpointEvery
			if stop && cfg.Dir == "" { // no folder: nothing to keep
				return nil, ErrInterrupted
			}
			if stop || due {
				if err := t.checkpoint(t.cpu(), prevWall+time.Since(start).Seconds()); err != nil {
					return nil, err
				}
				lastCkpt = time.Now()
				if stop {
					return nil, ErrInterrupted
				}
			}
		}
	}
	capped = cfg.budget() && !spent
	t.flushDone()
	if t.full != nil {
		if t.fullErr != nil {
			return nil, t.fullErr
		}
		if err := t.full.finish(t.rec.Steps); err != nil {
			return nil, err
		}
	}
	st := t.ch.Stats()
	t.rec.Flips, t.rec.Proposed, t.rec.Accepted = t.base.Flips+st.Flips, t.base.Proposed+st.Proposed, t.base.Accepted+st.Accepted
	if kindOf(name).Tunable {
		t.rec.Params = describeThetas(t.thetas) // the policy, once tuning finished
	}
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
	t.rec.WallSeconds = prevWall + time.Since(start).Seconds()
	t.rec.CPUSeconds = t.cpu()
	t.recordTuningCPU()
	t.rec.WaitCPUSeconds = t.waitCPU()
	return t.rec, nil
}

// saveEvery is the thinning of the saved states (SaveEvery, at least 1).
func (cfg *Config) saveEvery() int { return max(1, cfg.SaveEvery) }

// SavedStates is how many states a trial saves with SaveStates (and
// measures with Marginals): one in SaveEvery of the steps after the
// burn-in.
func (cfg *Config) SavedStates() int { return max(0, cfg.Steps-cfg.Burn) / cfg.saveEvery() }

// ModelInfo is what the observables need of model m at inverse
// temperature beta: its number of spins, beta, and whether every field of
// its Ising form is zero (then E(s) = E(-s)).
func ModelInfo(m *model.Model, beta float64) summary.ModelInfo {
	return summary.ModelInfo{Spins: m.Variables(), Beta: beta, ZeroField: m.ZeroField()}
}

func describeThetas(th []saw.Theta) string {
	switch len(th) {
	case 0:
		return ""
	case 1:
		return th[0].String()
	}
	return fmt.Sprintf("policy of %d kernels", len(th))
}

// Run runs every sampler's trials (samplers one after another, trials in
// parallel on cfg.Threads goroutines) and returns the records in order.
func Run(cfg *Config) (map[string][]*summary.TrialRecord, map[string]float64, error) {
	threads := cfg.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	out := map[string][]*summary.TrialRecord{}
	wall := map[string]float64{}
	if err := cfg.budgetCheck(); err != nil {
		return nil, nil, err
	}
	// Every trial's observables ask it (ModelInfo): computed once here,
	// outside the trials' clocks (a pass over an RBM's W).
	cfg.Model.ZeroField()
	// The progress board counts steps, or in a budget run nanoseconds of
	// CPU (each trial's share).
	per := int64(cfg.Steps)
	if cfg.budget() {
		per = int64(cfg.TrialBudget * 1e9)
	}
	total := int64(len(cfg.Samplers)*cfg.Trials) * per
	workers := min(threads, cfg.Trials)
	prog := newProgress(workers)
	prog.budget = cfg.budget()
	if cfg.Progress != nil {
		var sc summaryCost
		prog.summary = sc.estimate
		prog.traceCap = int64(cfg.traceCap())
		if len(cfg.ExpectedSteps) == len(cfg.Samplers) {
			prog.expected = cfg.ExpectedSteps
		}
	}
	stop := startProgress(cfg, prog, total)
	defer stop()
	for si, name := range cfg.Samplers {
		prog.startSampler(name, len(cfg.Samplers)-si-1, cfg.Trials, per)
		recs := make([]*summary.TrialRecord, cfg.Trials)
		errs := make([]error, cfg.Trials)
		jobs := make(chan int)
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wc, undo := slotConfig(cfg, name, w)
				defer undo()
				wc.progress, wc.slot = prog, w
				for i := range jobs {
					at(hookTrialStart)
					prog.begin(w, name, cfg.TrialOffset+i)
					recs[i], errs[i] = runOrLoad(wc, name, cfg.TrialOffset+i)
					prog.end(w)
					at(hookTrialEnd)
					if recs[i] != nil && cfg.Dir != "" {
						// In states.npy now: the summary does not need
						// them, and every trial's would add up.
						recs[i].States, recs[i].StateEnergies, recs[i].Samples = nil, nil, nil
					}
				}
			}()
		}
		sent := 0
		for ; sent < cfg.Trials && !(cfg.Stop != nil && cfg.Stop.Load()); sent++ {
			at(hookDispatch)
			jobs <- sent
		}
		close(jobs)
		if !brokenJoin {
			wg.Wait()
		}
		at(hookJoined)
		for _, err := range errs {
			if errors.Is(err, ErrInterrupted) {
				return nil, nil, err
			}
		}
		if sent < cfg.Trials { // stopped before every trial was handed out
			return nil, nil, ErrInterrupted
		}
		for _, err := range errs {
			if err != nil {
				return nil, nil, fmt.Errorf("sampler %s: %w", name, err)
			}
		}
		out[name] = recs
		wall[name] = time.Since(start).Seconds()
	}
	return out, wall, nil
}

// slotConfig gives the w-th trial goroutine its own CPUs when a chain
// occupies P > 1 of them (sampler.Kind.CPUs: the parallel RBM engine; or
// the workers of replica exchange): the
// P CPUs cfg.SAW.CPUs[w*P:(w+1)*P], the goroutine pinned to the first (it
// coordinates section 0) and the engine's workers to the others, so trials
// running side by side never share a CPU. Without enough CPUs for the slot
// nothing is pinned. undo releases the goroutine.
func slotConfig(cfg *Config, name string, w int) (*Config, func()) {
	p, cpus := kindOf(name).ChainCPUs(cfg.Model, cfg.SAW), cfg.SAW.CPUs
	if cfg.Replicas.On() {
		p = max(p, cfg.Replicas.Workers) // the replica workers' CPUs
	}
	wc := *cfg
	wc.SAW.CPUs = nil
	if p <= 1 || len(cpus) < (w+1)*p {
		return &wc, func() {}
	}
	wc.SAW.CPUs = cpus[w*p : (w+1)*p]
	undo, _ := topology.PinFor(wc.SAW.CPUs[0]) // a failure only costs speed
	return &wc, undo
}

// runOrLoad runs a trial, or loads it when a previous (interrupted) run
// already finished it in cfg.Dir; a finished trial's folder is written at
// once, with stats.json last as the mark of completion.
func runOrLoad(cfg *Config, name string, t int) (*summary.TrialRecord, error) {
	if cfg.Stop != nil && cfg.Stop.Load() {
		return nil, ErrInterrupted
	}
	if cfg.Dir != "" {
		if finished(cfg.Dir, name, t) {
			r, err := summary.ReadTrial(summary.TrialDir(cfg.Dir, name, t))
			// A trial of a version before the magnetization was
			// recorded runs again (to the same energies).
			if err == nil && r.Observables != nil && r.Trace != nil && r.Trace.BurnIn.Cap == cfg.traceCap() &&
				len(r.Magnetization) == len(r.Energies) && (r.Marginals != nil) == cfg.Marginals && (r.Rungs != nil) == cfg.Replicas.On() &&
				(!cfg.budget() && r.Budget == nil && r.Steps == cfg.Steps ||
					cfg.budget() && r.Budget != nil && r.Budget.CPUSeconds == cfg.TrialBudget && r.Budget.Steps == r.Steps) {
				cfg.progress.restored(-1, int64(r.Steps), r.CPUSeconds)
				return r, nil
			}
		}
	}
	r, err := RunTrial(cfg, name, t)
	if err != nil || cfg.Dir == "" {
		return r, err
	}
	if err := summary.WriteTrial(cfg.Dir, r); err != nil {
		return nil, err
	}
	os.Remove(CheckpointPath(cfg.Dir, name, t))
	return r, nil
}
