package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"sardonics/draws"
	"sardonics/model"
	"sardonics/rng"
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
	Iterate(ch saw.Tunable, step func()) error
	Finish(ch saw.Tunable) (*summary.TuneRecord, error)
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
