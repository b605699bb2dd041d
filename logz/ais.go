package logz

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// Config is one estimate of ln Z(Beta) of Model.
type Config struct {
	Model *model.Model
	Beta  float64 // the target's inverse temperature, finite, >= 0
	// Sampler names the registered kernel (sampler.Lookup; it must be
	// sampler.Tempered). "" is the default: for AIS on an RBM the block
	// Gibbs kernel of the visible units with the hidden ones summed out
	// (rbmPath), else gibbs.
	Sampler string
	Opts    any // the kernel's own settings (sampler.Kind.New's opts; nil: its defaults)
	// Runs is the number of independent AIS runs, or of replica-exchange
	// trials (ladders).
	Runs int
	// Steps is, for AIS, the number of intermediate distributions of each
	// run (one kernel step at each); for replica exchange, the steps
	// (swap rounds) of each trial, of which the first fifth is burn-in.
	Steps int
	// Rungs is replica exchange's number of rungs (0: from the pilot, at
	// equal thermodynamic lengths of about one standard deviation of the
	// energy each), and Ladder, if set, its inverse temperatures (from 0
	// to Beta; Plan sets it), instead of the pilot's.
	Rungs  int
	Ladder []float64
	// ladderCPU is the thread CPU of the pilot that chose Ladder (Plan's),
	// which RE reports with its own.
	ladderCPU float64
	Seed      uint64
	// Threads bounds the runs (or trials) computed at once (<= 0: 1).
	Threads int
	// BaseRate, for AIS on an RBM with the default kernel, are the visible
	// biases of the base-rate model the path starts from (Salakhutdinov
	// and Murray 2008; BaseRateFromData fits them); nil: the uniform
	// distribution (beta = 0).
	BaseRate []float64
	Ctx      context.Context // nil: never cancelled
}

// Estimate is what an estimator reports.
type Estimate struct {
	Method  string  `json:"method"`  // "ais" or "re"
	Sampler string  `json:"sampler"` // the kernel
	Beta    float64 `json:"beta"`
	LnZ     float64 `json:"ln_z"`
	Stderr  float64 `json:"ln_z_stderr"`
	LnZ0    float64 `json:"ln_z_base"` // ln Z of the path's start, exact
	Runs    int     `json:"runs"`
	Steps   int     `json:"steps"`
	// AIS: the runs' log-weights (ln Z - ln Z0 is their log-mean-exp) and
	// their effective sample size (Kish).
	LogWeights []float64 `json:"-"`
	ESS        float64   `json:"ess,omitempty"`
	// Replica exchange: the ladder, each neighbouring pair's ln Z
	// difference and swap acceptance, and the samples kept per rung and
	// trial.
	Ladder         []float64 `json:"ladder,omitempty"`
	PairLnZ        []float64 `json:"pair_ln_z,omitempty"`
	SwapAcceptance []float64 `json:"swap_acceptance,omitempty"`
	Kept           int       `json:"kept_per_rung,omitempty"`
	CPUSeconds     float64   `json:"cpu_seconds"` // thread CPU of the pilot and the runs
	Warnings       []string  `json:"warnings"`
}

// path is an annealing path with its kernel: run does AIS run i (stream
// key) over the points lam (lam[0] = 0, lam[len-1] = 1) and returns its
// log-weight; with rec (len(lam)-1 values) it records g at each point
// lam[k] (k < len-1) in the state reached there (see schedule.go).
type path interface {
	lnZ0() float64
	run(ctx context.Context, i int, key uint64, lam, rec []float64) (float64, error)
}

// Streams: run i of AIS draws only from rng.Sub(seed, i, keyAIS), pilot
// run i from keyPilot, replica-exchange trial i from keyRE (so the pilot
// and the estimate never share draws).
const (
	keyAIS   = 0x6c6f677a2d616973 // "logz-ais"
	keyPilot = 0x6c6f677a2d706c74 // "logz-plt"
	keyRE    = 0x6c6f677a2d726521 // "logz-re!"
)

// AIS estimates ln Z(cfg.Beta) by annealed importance sampling (Neal
// 2001): cfg.Runs independent runs from the path's base (beta = 0, or an
// RBM's base-rate model) through cfg.Steps intermediate distributions
// placed by a pilot at equal thermodynamic length.
func AIS(cfg Config) (*Estimate, error) {
	p, name, err := newPath(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkCounts(cfg, 2); err != nil {
		return nil, err
	}
	est := &Estimate{Method: "ais", Sampler: name, Beta: cfg.Beta, LnZ0: p.lnZ0(), Runs: cfg.Runs, Steps: cfg.Steps, Warnings: []string{}}
	if cfg.Beta == 0 && cfg.BaseRate == nil {
		est.LnZ = est.LnZ0 // the base is the target
		return est, nil
	}
	lam, cpu, err := pilotSchedule(cfg, p, cfg.Steps)
	if err != nil {
		return nil, err
	}
	est.CPUSeconds = cpu
	lw := make([]float64, cfg.Runs)
	cpu, err = parallel(ctx(cfg), cfg.Runs, cfg.Threads, func(i int) error {
		w, err := p.run(ctx(cfg), i, keyAIS, lam, nil)
		lw[i] = w
		return err
	})
	est.CPUSeconds += cpu
	if err != nil {
		return nil, err
	}
	for i, w := range lw {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("logz: AIS run %d has log-weight %v", i, w)
		}
	}
	ws := Weights(lw)
	est.LogWeights, est.ESS = lw, ws.ESS
	est.LnZ, est.Stderr = est.LnZ0+ws.LnMean+brokenBase, ws.Stderr
	if ws.ESS < float64(cfg.Runs)/4 {
		est.Warnings = append(est.Warnings, fmt.Sprintf("the AIS weights' effective sample size is %.3g of %d runs: a few runs dominate, so the estimate may be low and its error bar too small; give more --steps (or --budget) so that each run anneals more slowly", ws.ESS, cfg.Runs))
	}
	return est, nil
}

func ctx(cfg Config) context.Context {
	if cfg.Ctx == nil {
		return context.Background()
	}
	return cfg.Ctx
}

func checkCounts(cfg Config, minRuns int) error {
	switch {
	case cfg.Runs < minRuns:
		return fmt.Errorf("logz: %d runs (expected at least %d, for an error bar)", cfg.Runs, minRuns)
	case cfg.Steps < 1:
		return fmt.Errorf("logz: %d steps (expected at least 1)", cfg.Steps)
	case math.IsNaN(cfg.Beta) || math.IsInf(cfg.Beta, 0) || cfg.Beta < 0:
		return fmt.Errorf("logz: beta %v (expected a finite number >= 0)", cfg.Beta)
	}
	return nil
}

// pilot runs pilotRuns runs over pilotPoints equal steps of lambda (from
// their own streams) and returns its grid, the cumulative thermodynamic
// length of its profile there, and its thread CPU.
func pilot(cfg Config, p path) (grid, cum []float64, cpu float64, err error) {
	grid = uniformGrid(pilotPoints)
	rec := make([][]float64, pilotRuns)
	cpu, err = parallel(ctx(cfg), pilotRuns, cfg.Threads, func(i int) error {
		rec[i] = make([]float64, pilotPoints+1)
		_, err := p.run(ctx(cfg), i, keyPilot, grid, rec[i][:pilotPoints])
		rec[i][pilotPoints] = rec[i][pilotPoints-1]
		return err
	})
	if err != nil {
		return nil, nil, cpu, err
	}
	return grid, cumLength(grid, profile(rec)), cpu, nil
}

// pilotSchedule is n+1 points at equal thermodynamic length of the
// pilot's profile, and the pilot's thread CPU.
func pilotSchedule(cfg Config, p path, n int) ([]float64, float64, error) {
	grid, cum, cpu, err := pilot(cfg, p)
	if err != nil {
		return nil, cpu, err
	}
	return equalLength(grid, cum, n), cpu, nil
}

// rngFor is the stream of run (or trial) i under key.
func rngFor(seed uint64, i int, key uint64) *rand.PCG { return rng.Sub(seed, uint64(i), key) }

// newPath is the path and kernel cfg asks for, and the kernel's name.
func newPath(cfg Config) (path, string, error) {
	m := cfg.Model
	if m == nil {
		return nil, "", errors.New("logz: no model")
	}
	if cfg.Sampler == "" && m.RBM != nil {
		p, err := newRBMPath(m.RBM, cfg.Beta, cfg.BaseRate)
		if err != nil {
			return nil, "", err
		}
		p.seed = cfg.Seed
		return p, rbmKernel, nil
	}
	if cfg.BaseRate != nil {
		return nil, "", errors.New("logz: a base-rate model is the RBM kernel's (no --sampler)")
	}
	k, err := temperedKind(cfg.Sampler, m)
	if err != nil {
		return nil, "", err
	}
	return &chainPath{m: m, beta: cfg.Beta, kind: k, opts: cfg.Opts, seed: cfg.Seed}, k.Name, nil
}

// DefaultSampler is the registered kernel used where none is named: Gibbs
// (heat bath), which at beta = 0 draws every spin afresh, so that the hot
// end of a path or ladder is sampled exactly.
const DefaultSampler = "gibbs"

// temperedKind looks up the sampler named (DefaultSampler for "") and
// checks that it can run on m and change its temperature in place.
func temperedKind(name string, m *model.Model) (sampler.Kind, error) {
	if name == "" {
		name = DefaultSampler
	}
	k, ok := sampler.Lookup(name)
	if !ok {
		return k, &sampler.UsageError{Msg: fmt.Sprintf("unknown sampler %q (expected one of %v)", name, sampler.Names())}
	}
	if k.Untempered != "" {
		return k, &sampler.UsageError{Msg: fmt.Sprintf("%s cannot change its temperature in place (%s), which annealing and replica exchange need", name, k.Untempered)}
	}
	if k.Check != nil {
		if err := k.Check(m); err != nil {
			return k, &sampler.UsageError{Msg: err.Error()}
		}
	}
	return k, nil
}

// chainPath is the temperature path beta(lambda) = lambda beta on the
// model's whole state, with a registered kernel: ln Z0 = M ln 2, and the
// step from lambda_{k-1} to lambda_k adds -(lambda_k - lambda_{k-1}) beta
// E(x) to the log-weight, x being the state the kernel reached at
// lambda_{k-1} (the uniform draw at k = 1).
type chainPath struct {
	m    *model.Model
	beta float64
	kind sampler.Kind
	opts any
	seed uint64
}

func (p *chainPath) lnZ0() float64 { return float64(p.m.Variables()) * math.Ln2 }

func (p *chainPath) run(ctx context.Context, i int, key uint64, lam, rec []float64) (float64, error) {
	r := rngFor(p.seed, i, key)
	ch, rel, err := p.build(lam[1]*p.beta, r)
	if err != nil {
		return 0, err
	}
	defer rel()
	t := ch.(sampler.Tempered)
	K := len(lam) - 1
	lw := 0.0
	for k := 1; k <= K; k++ {
		if k&1023 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		e := ch.Energy()
		if rec != nil {
			rec[k-1] = -p.beta * e
		}
		if !(truncated && 10*k > 9*K) {
			lw -= (lam[k] - lam[k-1]) * p.beta * e
		}
		if k == K {
			break
		}
		t.SetBeta(lam[k] * p.beta)
		ch.Step()
	}
	return lw, nil
}

// build makes a chain at beta from a uniform random state drawn from r
// (the exact sample of beta = 0), drawing from r from then on.
func (p *chainPath) build(beta float64, r *rand.PCG) (sampler.Chain, func(), error) {
	init := uniformSpins(r, p.m.Variables())
	ch, rel, err := p.kind.New(p.m, beta, p.opts, r, init)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := ch.(sampler.Tempered); !ok {
		rel()
		return nil, nil, fmt.Errorf("logz: %s's chain cannot change its temperature in place", p.kind.Name)
	}
	return ch, rel, nil
}

// uniformSpins draws n spins uniformly from r.
func uniformSpins(r *rand.PCG, n int) []int8 {
	s := make([]int8, n)
	var w uint64
	for i := range s {
		if i&63 == 0 {
			w = r.Uint64()
		}
		s[i] = int8(2*(w&1)) - 1
		w >>= 1
	}
	return s
}
