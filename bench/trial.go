package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"sardonics/model"
	"sardonics/runner"
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
)

// trialLine is one whole-trial measurement: a `sample` trial (burn-in 0,
// one trial, one thread) run by runner.RunTrial, its cpu_seconds over its
// proposed flips, so that the figure holds everything a trial pays beyond
// the move (building the chain, recording energies, the runner's blocks).
type trialLine struct {
	name, spec      string
	beta            float64
	sampler, engine string
}

// trialLines are the three SARDONICS engines and, for scale, the
// Go Metropolis sweep (its flips are spin updates) on the same model as
// the bucket line; then the dense Ising engines on the SK glass of issue 26
// (N = 1000 at beta 2: SARDONICS per flip, Metropolis and Gibbs per
// proposed update, whose targets are 1.5 us and 30 ns).
var trialLines = []trialLine{
	{"sardonics bucket, whole trial", "frustrated2d:L=60,seed=1", 1, "sardonics", "bucket"},
	{"sardonics tree, whole trial", "chimera:M=4,N=4,T=4,seed=1", 1, "sardonics", "tree"},
	{"sardonics dense, whole trial", "rbm-random:V=784,H=500,seed=1,scale=0.1", 1, "sardonics", "dense"},
	{"metropolis, whole trial", "frustrated2d:L=60,seed=1", 1, "metropolis", ""},
	{"sardonics dense sk, whole trial", "sk:N=1000,seed=1", 2, "sardonics", "dense"},
	{"metropolis dense sk, whole trial", "sk:N=1000,seed=1", 2, "metropolis", ""},
	{"gibbs dense sk, whole trial", "sk:N=1000,seed=1", 2, "gibbs", ""},
}

const (
	trialRounds   = 3      // trials per line; the median is reported
	maxTrialSteps = 100000 // the trial length
	minTrialSteps = runner.Block
)

// wholeTrial runs one trial of steps steps exactly as `sample --steps
// steps --burn 0 --trials 1` runs it (without an output folder).
func wholeTrial(ctx context.Context, m *model.Model, beta float64, name string, sc sawsampler.Config, steps int) (*summary.TrialRecord, error) {
	cfg := &runner.Config{Model: m, Beta: beta, Samplers: []string{name}, Steps: steps, Burn: 0, Trials: 1,
		Seed: 1, Threads: 1, SAW: sc, Stop: stopFlag(ctx)}
	rec, err := runner.RunTrial(cfg, name, 0)
	if errors.Is(err, runner.ErrInterrupted) {
		return nil, ErrStopped
	}
	return rec, err
}

// trialSteps sizes the trials of a line: a first trial of minTrialSteps
// (which also warms the caches) prices a step, and each of the
// trialRounds trials gets budget/trialRounds, within [minTrialSteps,
// maxTrialSteps] and in whole runner blocks.
func trialSteps(ctx context.Context, m *model.Model, beta float64, name string, sc sawsampler.Config, budget float64) (int, error) {
	rec, err := wholeTrial(ctx, m, beta, name, sc, minTrialSteps)
	if err != nil {
		return 0, err
	}
	// Wall time prices the step: thread CPU time can be coarser than a
	// short trial.
	perStep := max(rec.WallSeconds, rec.CPUSeconds, 1e-9) / minTrialSteps
	steps := int(budget / trialRounds / perStep)
	steps = steps / runner.Block * runner.Block
	return min(max(steps, minTrialSteps), maxTrialSteps), nil
}

// measureTrial is the median ns per flip of trialRounds whole trials,
// sized to budget.
func measureTrial(ctx context.Context, tl trialLine, m *model.Model, budget float64) (Line, error) {
	sc := trialConfig(tl)
	steps, err := trialSteps(ctx, m, tl.beta, tl.sampler, sc, budget)
	if err != nil {
		return Line{}, err
	}
	return measureTrials(ctx, tl, m, sc, steps, "ns/flip")
}

func trialConfig(tl trialLine) sawsampler.Config {
	return sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: tl.engine}
}

// measureTrials is the median ns per flip of trialRounds whole trials of
// steps steps; unit names a flip (a sweep's flips are its updates).
func measureTrials(ctx context.Context, tl trialLine, m *model.Model, sc sawsampler.Config, steps int, unit string) (Line, error) {
	l := Line{Name: tl.name, Model: tl.spec, Beta: tl.beta, Unit: unit}
	var ns []float64
	var flips int64
	for range trialRounds {
		rec, err := wholeTrial(ctx, m, tl.beta, tl.sampler, sc, steps)
		if err != nil {
			return Line{}, err
		}
		if rec.Flips <= 0 {
			return Line{}, fmt.Errorf("%s: a trial of %d steps counted %d flips", tl.name, steps, rec.Flips)
		}
		ns = append(ns, rec.CPUSeconds*1e9/float64(rec.Flips))
		l.Steps += int64(steps)
		l.CPUSec += rec.CPUSeconds
		flips += rec.Flips
	}
	slices.Sort(ns)
	l.Value = ns[len(ns)/2]
	l.Note = fmt.Sprintf("median of %d trials of %d steps (burn-in 0), %.1f flips/step, %.0f-%.0f %s",
		trialRounds, steps, float64(flips)/float64(l.Steps), ns[0], ns[len(ns)-1], unit)
	return l, nil
}

// trialGroup measures the C yardstick and then every whole-trial line,
// each with its ratio to the yardstick.
func trialGroup(rep *Report, cfg Config, get func(string) (*model.Model, error)) error {
	cacheDir := cfg.CacheDir
	if cacheDir == "" {
		cacheDir = defaultCacheDir()
	}
	rep.CRef = runCRefContext(cfg.ctx(), cfg.CC, cacheDir, cfg.Budget, 3)
	if cfg.ctx().Err() != nil {
		return ErrStopped
	}
	ys, ok := rep.CRef.Yardstick()
	if ok {
		for _, c := range rep.CRef.Lines {
			l := Line{Name: "C metropolis update (yardstick)", Model: c.Lattice, Beta: c.Beta, Value: c.NsPerUpdate,
				Unit: "ns/update", Note: fmt.Sprintf("%s, loop %s, acceptance %.3f, median of 3 x %s CPU",
					rep.CRef.Compile, c.Variant, c.Acceptance, cfg.Budget)}
			rep.add(l, cfg)
		}
	} else if cfg.Out != nil {
		fmt.Fprintf(cfg.Out, "C yardstick: %s\n", rep.CRef.Status)
	}
	for _, tl := range trialLines {
		m, err := get(tl.spec)
		if err != nil {
			return err
		}
		l, err := measureTrial(cfg.ctx(), tl, m, cfg.Budget.Seconds())
		if err != nil {
			return fmt.Errorf("%s on %s: %w", tl.name, tl.spec, err)
		}
		if ok {
			l.RatioC = l.Value / ys.NsPerUpdate
			l.Note = fmt.Sprintf("%.1fx C (%s %.2f ns/update); %s", l.RatioC, ys.Lattice, ys.NsPerUpdate, l.Note)
		} else {
			l.Note = "C yardstick n/a; " + l.Note
		}
		rep.add(l, cfg)
	}
	return nil
}

// add appends a line and prints it.
func (r *Report) add(l Line, cfg Config) {
	r.Lines = append(r.Lines, l)
	if cfg.Out != nil {
		fmt.Fprintln(cfg.Out, l.String())
	}
}
