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
	// RefitEvery considers refitting the GP hyperparameters when at least
	// this many observations arrived since it was last considered; in
	// between the previous hyperparameters are kept and each observation
	// extends the GP's Cholesky factor by one row (GP.Append, O(n^2))
	// instead of refactoring it (O(n^3)). Zero selects the default, a
	// geometric schedule: once the data grew by a tenth (at least one
	// observation), so a 200-iteration run considers it about 35 times.
	RefitEvery int
	// RefitTol decides a considered refit: it runs only when the log
	// marginal likelihood's gradient at the current hyperparameters exceeds
	// RefitTol nats per unit of log hyperparameter (GP.NeedsRefit), that
	// is when it would change the fit. Default 1; negative refits whenever
	// considered.
	RefitTol float64
	// GP configures the surrogate (fixed hyperparameters, restarts).
	GP GPOptions
	// Direct configures the maximization of EI (and of the GP mean for the
	// policy). When neither MaxEvals nor MaxIters is set, each search gets
	// a budget tied to the data: DirectPerPoint * (dim + n) evaluations
	// with n observations, so early searches on a vague surrogate are
	// cheap and later ones resolve the finer structure of more data.
	Direct DirectOptions
	// DirectPerPoint scales the data-tied DIRECT budget. Default 5: on the
	// SARDONICS space with a synthetic noisy reward (tuneReward, the ess
	// tuner's options; see tune's BenchmarkTuneLoopESS for the current ones)
	// budgets of 3, 5, 10 and 20 per point found equally good settings
	// (0.840, 0.827, 0.831, 0.816 mean true reward over 40 searches of 36
	// rounds), at 21, 24, 38 and 60 ms of CPU per search (pprof samples).
	DirectPerPoint int
	// Start, if non-nil, is the first point evaluated (in the unit cube,
	// snapped), before the Latin hypercube: a known default setting. Its
	// reward is the GP's prior mean, so that away from the data the
	// surrogate predicts the default's reward, not the data mean: a region
	// must show that it beats the default.
	Start []float64
	// InitRadius, with Start, confines the Latin hypercube to a cube of side
	// 2*InitRadius around Start (moved inside [0,1]^D where it would stick
	// out), so the initial design explores Start's neighbourhood instead
	// of the whole box. Default 0: the whole box.
	InitRadius float64
	// EvalCost, if non-nil, is the cost of evaluating the reward at u (any
	// positive unit): Next then maximizes expected improvement per unit
	// cost, EI(u) / EvalCost(u) (Snoek, Larochelle and Adams 2012,
	// "Practical Bayesian optimization of machine learning algorithms",
	// section 3.2), so exploration spends where it is cheap. LastEI is
	// still the plain expected improvement at the chosen point.
	EvalCost func(u []float64) float64
	// PolicyStep is the standard deviation of the Policy's Gaussian random
	// walk proposal in the unit cube. Default 0.1.
	PolicyStep float64
	// PolicyThin keeps every PolicyThin-th state of the Policy's walk.
	// Default 10.
	PolicyThin int
	// PolicyBurnIn is the number of walk steps discarded first. Default 1000.
	PolicyBurnIn int
	// PolicyObserved restricts Policy to the observed points: the
	// Boltzmann weights exp(score/tau) of the settings actually evaluated,
	// so the policy never extrapolates the surrogate into regions without
	// data. Default false (the whole cube, as in the paper).
	PolicyObserved bool
	// PolicyLCB, if positive, makes Policy weigh settings by the lower
	// confidence bound mu - PolicyLCB*sigma instead of the posterior mean
	// mu. Default 0 (the mean, as in the paper).
	PolicyLCB float64
}

func (o Options) withDefaults(dim int) Options {
	if o.Init <= 0 {
		o.Init = max(2*dim, 4)
	}
	if o.Xi == 0 {
		o.Xi = 0.01
	}
	if o.DirectPerPoint <= 0 {
		o.DirectPerPoint = 5
	}
	if o.RefitTol == 0 {
		o.RefitTol = 1
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
	fitN   int    // observations when a refit was last considered

	gp        *GP // conditioned on x[:gpN] with hyp
	gpN       int
	gpOK      bool
	relabeled bool    // rewards changed (Relabel) since gp was conditioned
	lastEI    float64 // expected improvement of the last Next, in reward units
	priorC    float64 // the prior mean with Start: its reward
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
	if opts.Start != nil {
		if len(opts.Start) != dim {
			return nil, fmt.Errorf("bo: start point has %d coordinates, space %d", len(opts.Start), dim)
		}
		o.design = append(o.design, space.Snap(opts.Start))
	}
	for _, u := range LatinHypercube(opts.Init, dim, r) {
		if opts.Start != nil && opts.InitRadius > 0 {
			w := math.Min(2*opts.InitRadius, 1)
			for i, v := range u {
				lo := math.Min(math.Max(opts.Start[i]-w/2, 0), 1-w)
				u[i] = lo + w*v
			}
		}
		o.design = append(o.design, space.Snap(u))
	}
	return o, nil
}

// Space returns the search space.
func (o *Optimizer) Space() Space { return o.space }

// Next returns the next unit-cube point to evaluate: Start, then the
// initial design while fewer than Init observations exist, then the
// maximizer of expected improvement (over the best posterior mean at an
// observed point, which is robust to noisy lucky draws) found by DIRECT on
// log EI (same maximizer, no plateaus of underflowed zeros). Integer
// dimensions are snapped to their bin centers. Each call after the design
// may consume randomness (hyperparameter restarts), so call it once per
// observation. LastEI then holds the expected improvement found.
func (o *Optimizer) Next() ([]float64, error) {
	o.lastEI = math.Inf(1)
	if n := len(o.y); n < len(o.design) {
		return slices.Clone(o.design[n]), nil
	}
	gp, err := o.surrogate(false)
	if err != nil {
		return nil, err
	}
	best := math.Inf(-1)
	for _, x := range o.x {
		best = math.Max(best, o.meanStd(gp, x))
	}
	xi := o.opts.Xi
	logEI := func(u []float64) float64 {
		mu, s2 := gp.PredictStd(u)
		return LogExpectedImprovement(o.total(gp, u, mu), math.Sqrt(s2), best, xi)
	}
	acq := func(u []float64) float64 { return -logEI(u) }
	if o.opts.EvalCost != nil {
		acq = func(u []float64) float64 { return math.Log(o.opts.EvalCost(u)) - logEI(u) }
	}
	u, _, _ := Direct(acq, o.space.Len(), o.directOptions())
	u = o.space.Snap(u)
	o.lastEI = math.Exp(logEI(u)) * gp.Scale()
	return u, nil
}

// LastEI is the expected improvement (margin Xi included) at the point the
// last Next proposed, in the reward's units: +Inf while Next returns the
// initial design. A caller stops once it is negligible.
func (o *Optimizer) LastEI() float64 { return o.lastEI }

// total converts a standardized posterior mean m at u to the common
// standardized scale on which points compare: with a prior mean function
// m is a residual from it, and the prior mean (divided by the scale) is
// added back; without one the offset is the same everywhere.
func (o *Optimizer) total(gp *GP, u []float64, m float64) float64 {
	if o.opts.Start == nil {
		return m
	}
	return gp.Unstandardize(u, m) / gp.Scale()
}

// meanStd is the posterior mean at u on the scale of total.
func (o *Optimizer) meanStd(gp *GP, u []float64) float64 { return o.total(gp, u, gp.MeanStd(u)) }

// directOptions is Options.Direct with the data-tied budget filled in.
func (o *Optimizer) directOptions() DirectOptions {
	d := o.opts.Direct
	if d.MaxEvals <= 0 && d.MaxIters <= 0 {
		d.MaxEvals = o.opts.DirectPerPoint * (o.space.Len() + len(o.y))
	}
	return d
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
		if m := o.meanStd(gp, x); m > bm {
			bi, bm = i, m
		}
	}
	return slices.Clone(o.x[bi]), nil
}

// surrogate returns the GP conditioned on all observations. New
// observations extend the current GP (GP.Append) under the current
// hyperparameters; a refit is considered on the RefitEvery schedule, or
// whenever fresh is set and data arrived since it was last considered, and
// runs (warm-started from the current hyperparameters) only when it would
// change the fit (RefitTol).
func (o *Optimizer) surrogate(fresh bool) (*GP, error) {
	n := len(o.y)
	if n == 0 {
		return nil, errors.New("bo: no observations")
	}
	if o.gpOK && o.gpN == n && !o.relabeled && (!fresh || o.fitN == n) {
		return o.gp, nil
	}
	fixed := o.opts.GP.Fixed != nil
	if o.hyp == nil && !fixed {
		return o.fit(nil)
	}
	if fixed {
		o.hyp = o.opts.GP.Fixed
	}
	if err := o.catchUp(); err != nil {
		return nil, err
	}
	due := n-o.fitN >= o.refitGap() || (fresh && n > o.fitN)
	if !due || fixed {
		return o.gp, nil
	}
	o.fitN = n
	if o.opts.RefitTol > 0 && !o.gp.NeedsRefit(o.opts.RefitTol) {
		return o.gp, nil
	}
	return o.fit(o.hyp)
}

// fit fits the hyperparameters to every observation and makes the result
// the surrogate: from warm alone when it is set, else from
// GPOptions.Restarts starts.
func (o *Optimizer) fit(warm *Hyper) (*GP, error) {
	gp := o.newGP()
	if warm != nil {
		gp.hyp, gp.hasHyp = warm.clone(), true
	}
	if err := gp.Fit(o.x, o.y); err != nil {
		o.gpOK = false
		return nil, err
	}
	h := gp.Hyper()
	o.hyp, o.fitN = &h, len(o.y)
	o.setGP(gp)
	return gp, nil
}

// setGP makes gp, conditioned on every observation, the surrogate.
func (o *Optimizer) setGP(gp *GP) {
	o.gp, o.gpN, o.gpOK, o.relabeled = gp, len(o.y), true, false
}

// catchUp conditions the GP on every observation, with their current
// rewards, under o.hyp: by growing the current one row by row and solving
// once, or from scratch after a restore or a failed extension.
func (o *Optimizer) catchUp() error {
	n := len(o.y)
	if o.gpOK {
		stale := o.relabeled || o.gpN < n
		for o.gpN < n {
			if err := o.gp.grow(o.x[o.gpN], o.y[o.gpN]); err != nil {
				break
			}
			o.gpN++
		}
		if o.gpN == n {
			if stale {
				if err := o.gp.SetY(o.y); err != nil {
					o.gpOK = false
					return err
				}
			}
			o.relabeled = false
			return nil
		}
	}
	gp := o.newGP()
	if err := gp.Condition(o.x, o.y, *o.hyp); err != nil {
		o.gpOK = false
		return err
	}
	o.setGP(gp)
	return nil
}

// newGP is an empty surrogate; with Start, its prior mean is the first
// observation's reward (Start's).
func (o *Optimizer) newGP() *GP {
	opts := o.opts.GP
	if o.opts.Start != nil && len(o.y) > 0 {
		o.priorC = o.y[0]
		opts.Mean = func([]float64) float64 { return o.priorC }
	}
	return NewGP(o.space.Len(), opts, o.rng)
}

// Relabel replaces the rewards of all observations, in order: for a caller
// whose reward estimates improve as data accrue (a variance pooled over
// all evaluations). The GP keeps its hyperparameters and Cholesky factor;
// it takes the new rewards (GP.SetY, O(n^2)) when next used, together with
// any new observations, and a refit is considered on the usual schedule.
func (o *Optimizer) Relabel(rewards []float64) error {
	if len(rewards) != len(o.y) {
		return fmt.Errorf("bo: relabel with %d rewards for %d observations", len(rewards), len(o.y))
	}
	for _, r := range rewards {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("bo: reward %v is not finite", r)
		}
	}
	copy(o.y, rewards)
	if o.opts.Start != nil && len(o.y) > 0 {
		o.priorC = o.y[0]
	}
	o.relabeled = true
	return nil
}

// Predict is the surrogate's posterior mean and standard deviation of the
// reward at unit point u, in reward units.
func (o *Optimizer) Predict(u []float64) (mu, sd float64, err error) {
	gp, err := o.surrogate(false)
	if err != nil {
		return 0, 0, err
	}
	mu, s2 := gp.Predict(u)
	return mu, math.Sqrt(s2), nil
}

// FirstReward is the reward of the first observation (Start's, the GP's
// prior mean with Start), NaN before any.
func (o *Optimizer) FirstReward() float64 {
	if len(o.y) == 0 {
		return math.NaN()
	}
	return o.y[0]
}

// RewardScale is the scale of the surrogate's standardized units in reward
// units (GP.Scale): Policy's tau times it is the policy's temperature in
// reward units.
func (o *Optimizer) RewardScale() (float64, error) {
	gp, err := o.surrogate(false)
	if err != nil {
		return 0, err
	}
	return gp.Scale(), nil
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
