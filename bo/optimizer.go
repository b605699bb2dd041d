package bo

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Options configures an Optimizer; the zero value gives the defaults.
type Options struct {
	// Init is the size of the Latin-hypercube initial design.
	// Default 2*dim, at least 4.
	Init int
	// Xi is the exploration margin of expected improvement, in standardized
	// reward units. Default 0.01 (zero selects it; use a tiny positive value
	// for plain EI).
	Xi float64
	// RefitEvery refits the GP hyperparameters when at least this many
	// observations arrived since the last fit; in between the previous
	// hyperparameters are reused (the GP is still conditioned on all data).
	// Zero selects the default, a geometric schedule: refit once the data
	// grew by a tenth since the last fit (at least one observation), so
	// every early iteration refits and a 200-iteration run refits about 35
	// times: a tenth of the fitting cost of refitting every time (1), with
	// no measurable loss on noisy Hartmann-6.
	RefitEvery int
	// GP configures the surrogate (fixed hyperparameters, restarts).
	GP GPOptions
	// Direct configures the maximization of EI (and of the GP mean for the
	// policy). Default MaxEvals 300*dim.
	Direct DirectOptions
	// PolicyStep is the standard deviation of the Policy's Gaussian random
	// walk proposal in the unit cube. Default 0.1.
	PolicyStep float64
	// PolicyThin keeps every PolicyThin-th state of the Policy's walk.
	// Default 10.
	PolicyThin int
	// PolicyBurnIn is the number of walk steps discarded first. Default 1000.
	PolicyBurnIn int
}

func (o Options) withDefaults(dim int) Options {
	if o.Init <= 0 {
		o.Init = max(2*dim, 4)
	}
	if o.Xi == 0 {
		o.Xi = 0.01
	}
	if o.Direct.MaxEvals <= 0 && o.Direct.MaxIters <= 0 {
		o.Direct.MaxEvals = 300 * dim
	}
	if o.PolicyStep <= 0 {
		o.PolicyStep = 0.1
	}
	if o.PolicyThin <= 0 {
		o.PolicyThin = 10
	}
	if o.PolicyBurnIn <= 0 {
		o.PolicyBurnIn = 1000
	}
	return o
}

// Optimizer maximizes a noisy reward over a Space by Bayesian optimization
// with an ask/tell interface: Next proposes a unit-cube point, the caller
// evaluates the reward at Space.ToParams of it and reports it with Observe.
type Optimizer struct {
	space Space
	opts  Options
	rng   *rand.PCG

	design [][]float64
	x      [][]float64
	y      []float64
	hyp    *Hyper // last fitted hyperparameters
	fitN   int    // observations at the last fit

	gp   *GP // conditioned on x[:gpN]
	gpN  int
	gpOK bool
}

// NewOptimizer draws the initial design from r and returns an optimizer
// that keeps using r (Next refits hyperparameters from random starts).
func NewOptimizer(space Space, opts Options, r *rand.PCG) (*Optimizer, error) {
	if err := space.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errors.New("bo: NewOptimizer needs a random source")
	}
	dim := space.Len()
	opts = opts.withDefaults(dim)
	o := &Optimizer{space: space, opts: opts, rng: r}
	for _, u := range LatinHypercube(opts.Init, dim, r) {
		o.design = append(o.design, space.Snap(u))
	}
	return o, nil
}

// Space returns the search space.
func (o *Optimizer) Space() Space { return o.space }

// Next returns the next unit-cube point to evaluate: the initial design
// while fewer than Init observations exist, then the maximizer of expected
// improvement (over the best posterior mean at an observed point, which is
// robust to noisy lucky draws) found by DIRECT on log EI (same maximizer,
// no plateaus of underflowed zeros). Integer dimensions are
// snapped to their bin centers. Each call after the design consumes
// randomness (hyperparameter restarts), so call it once per observation.
func (o *Optimizer) Next() ([]float64, error) {
	if n := len(o.y); n < len(o.design) {
		return slices.Clone(o.design[n]), nil
	}
	gp, err := o.surrogate(false)
	if err != nil {
		return nil, err
	}
	best := math.Inf(-1)
	for _, x := range o.x {
		best = math.Max(best, gp.MeanStd(x))
	}
	xi := o.opts.Xi
	negEI := func(u []float64) float64 {
		mu, s2 := gp.PredictStd(u)
		return -LogExpectedImprovement(mu, math.Sqrt(s2), best, xi)
	}
	u, _, _ := Direct(negEI, o.space.Len(), o.opts.Direct)
	return o.space.Snap(u), nil
}

// Observe records the reward measured at unit point u.
func (o *Optimizer) Observe(u []float64, reward float64) error {
	if len(u) != o.space.Len() {
		return fmt.Errorf("bo: observed point has %d coordinates, space %d", len(u), o.space.Len())
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("bo: reward %v is not finite", reward)
	}
	o.x = append(o.x, slices.Clone(u))
	o.y = append(o.y, reward)
	return nil
}

// History returns copies of the observed unit points and rewards.
func (o *Optimizer) History() ([][]float64, []float64) {
	x := make([][]float64, len(o.x))
	for i, u := range o.x {
		x[i] = slices.Clone(u)
	}
	return x, slices.Clone(o.y)
}

// Best returns the observed point with the highest posterior mean (or the
// highest reward before a GP can be fitted), in unit coordinates.
func (o *Optimizer) Best() ([]float64, error) {
	if len(o.y) == 0 {
		return nil, errors.New("bo: no observations")
	}
	gp, err := o.surrogate(true)
	if err != nil {
		return nil, err
	}
	bi, bm := 0, math.Inf(-1)
	for i, x := range o.x {
		if m := gp.MeanStd(x); m > bm {
			bi, bm = i, m
		}
	}
	return slices.Clone(o.x[bi]), nil
}

// surrogate returns the GP conditioned on all observations, refitting the
// hyperparameters on the RefitEvery schedule, or whenever fresh is set and
// data arrived since the last fit.
func (o *Optimizer) surrogate(fresh bool) (*GP, error) {
	n := len(o.y)
	if n == 0 {
		return nil, errors.New("bo: no observations")
	}
	if o.gpOK && o.gpN == n && (!fresh || o.fitN == n) {
		return o.gp, nil
	}
	gp := NewGP(o.space.Len(), o.opts.GP, o.rng)
	if o.hyp != nil {
		gp.hyp, gp.hasHyp = o.hyp.clone(), true // warm start
	}
	refit := o.hyp == nil || n-o.fitN >= o.refitGap() || (fresh && n > o.fitN)
	var err error
	if refit || o.opts.GP.Fixed != nil {
		err = gp.Fit(o.x, o.y)
		if err == nil {
			h := gp.Hyper()
			o.hyp, o.fitN = &h, n
		}
	} else {
		err = gp.Condition(o.x, o.y, *o.hyp)
	}
	if err != nil {
		o.gpOK = false
		return nil, err
	}
	o.gp, o.gpN, o.gpOK = gp, n, true
	return gp, nil
}

// refitGap is the number of new observations that triggers a refit.
func (o *Optimizer) refitGap() int {
	if o.opts.RefitEvery > 0 {
		return o.opts.RefitEvery
	}
	return max(1, o.fitN/10)
}

// optimizerState is the checkpoint format. Options are configuration, not
// state: the caller passes the same ones to NewOptimizer before restoring.
type optimizerState struct {
	Version int         `json:"version"`
	Space   Space       `json:"space"`
	Design  [][]float64 `json:"design"`
	X       [][]float64 `json:"x"`
	Y       []float64   `json:"y"`
	Hyper   *Hyper      `json:"hyper,omitempty"`
	FitN    int         `json:"fit_n"`
	RNG     []byte      `json:"rng"`
}

// MarshalJSON checkpoints the optimizer, including its RNG's state.
func (o *Optimizer) MarshalJSON() ([]byte, error) {
	rng, err := o.rng.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return json.Marshal(optimizerState{Version: 1, Space: o.space, Design: o.design,
		X: o.x, Y: o.y, Hyper: o.hyp, FitN: o.fitN, RNG: rng})
}

// UnmarshalJSON restores a checkpoint into an optimizer made by
// NewOptimizer with the same space and options; its RNG (the *rand.PCG
// given to NewOptimizer) is set to the saved state, so the run continues
// exactly as if it had not been interrupted.
func (o *Optimizer) UnmarshalJSON(data []byte) error {
	if o.rng == nil {
		return errors.New("bo: restore into an optimizer made by NewOptimizer")
	}
	var s optimizerState
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("bo: optimizer checkpoint: %w", err)
	}
	if s.Version != 1 {
		return fmt.Errorf("bo: optimizer checkpoint version %d, want 1", s.Version)
	}
	if s.Space.Len() != o.space.Len() || len(s.X) != len(s.Y) {
		return errors.New("bo: optimizer checkpoint does not match the space")
	}
	if err := o.rng.UnmarshalBinary(s.RNG); err != nil {
		return fmt.Errorf("bo: optimizer checkpoint RNG: %w", err)
	}
	o.space, o.design, o.x, o.y, o.hyp, o.fitN = s.Space, s.Design, s.X, s.Y, s.Hyper, s.FitN
	o.gp, o.gpN, o.gpOK = nil, 0, false
	return nil
}

var (
	_ json.Marshaler   = (*Optimizer)(nil)
	_ json.Unmarshaler = (*Optimizer)(nil)
)
