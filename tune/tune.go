package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"sardonics/bo"
	"sardonics/diag"
	"sardonics/runner"
	"sardonics/saw"
)

// Names of the search-space dimensions, in order.
var Names = []string{"kl", "ku", "gl", "gh", "pll", "phl", "plh", "n"}

// DefaultSpace is the paper's Table I: kl in {1..70}, ku in {2..120},
// gL in [0.89, 1.05], gH in [0.9, 1.15], the type probabilities in [0, 1]
// (normalized), N in {1..5}, with ku >= kl and gH >= gL enforced by the
// parametrization.
func DefaultSpace() bo.Space {
	return bo.Space{
		Dims: []bo.Dim{
			{Name: "kl", Lo: 1, Hi: 70, Integer: true},
			{Name: "ku", Lo: 2, Hi: 120, Integer: true},
			{Name: "gl", Lo: 0.89, Hi: 1.05},
			{Name: "gh", Lo: 0.9, Hi: 1.15},
			{Name: "pll", Lo: 0, Hi: 1},
			{Name: "phl", Lo: 0, Hi: 1},
			{Name: "plh", Lo: 0, Hi: 1},
			{Name: "n", Lo: 1, Hi: 5, Integer: true},
		},
		Orders: []bo.Order{{Lower: 0, Upper: 1}, {Lower: 2, Upper: 3}},
	}
}

// ParseBounds overrides bounds of s from text like "kl=1:20,gh=1:1.2".
func ParseBounds(s bo.Space, text string) (bo.Space, error) {
	out := bo.Space{Dims: append([]bo.Dim(nil), s.Dims...), Orders: s.Orders}
	if strings.TrimSpace(text) == "" {
		return out, nil
	}
	for _, kv := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		lo, hi, ok2 := strings.Cut(v, ":")
		idx := -1
		for i, n := range Names {
			if n == k {
				idx = i
			}
		}
		if !ok || !ok2 || idx < 0 {
			return s, fmt.Errorf("--bounds: bad entry %q (expected NAME=LO:HI with NAME one of %s)", kv, strings.Join(Names, ", "))
		}
		l, err1 := strconv.ParseFloat(lo, 64)
		h, err2 := strconv.ParseFloat(hi, 64)
		if err1 != nil || err2 != nil || !(l <= h) || math.IsInf(l, 0) || math.IsInf(h, 0) {
			return s, fmt.Errorf("--bounds: bad range %q for %s (expected finite LO:HI with LO <= HI)", v, k)
		}
		out.Dims[idx].Lo, out.Dims[idx].Hi = l, h
	}
	if err := out.Validate(); err != nil {
		return s, fmt.Errorf("--bounds: %v", err)
	}
	// Every point of the box must be a valid theta.
	for i, min := range []float64{1, 1, 1e-9, 1e-9, 0, 0, 0, 1} {
		if out.Dims[i].Lo < min {
			return s, fmt.Errorf("--bounds: %s must be at least %g (got %g)", Names[i], min, out.Dims[i].Lo)
		}
	}
	return out, nil
}

// ThetaOf converts a parameter vector (in Names order) to a Theta; all-zero
// type probabilities become uniform.
func ThetaOf(p []float64) saw.Theta {
	th := saw.Theta{KL: int(math.Round(p[0])), KU: int(math.Round(p[1])), GL: p[2], GH: p[3],
		PLL: p[4], PHL: p[5], PLH: p[6], N: int(math.Round(p[7]))}
	if th.PLL+th.PHL+th.PLH <= 0 {
		th.PLL, th.PHL, th.PLH = 1, 1, 1
	}
	return th
}

// Reward is one minus the mean absolute normalized energy autocorrelation
// over lags 1..maxLag: the area under the ACF, as in the paper.
func Reward(energies []float64, maxLag int) float64 {
	maxLag = min(maxLag, len(energies)-1)
	if maxLag < 1 || slices.Min(energies) == slices.Max(energies) {
		return 0 // a chain that never moved must not look uncorrelated
	}
	a := diag.ACF(energies, maxLag)
	s := 0.0
	for _, v := range a[1:] {
		if !math.IsNaN(v) {
			s += math.Abs(v)
		}
	}
	return 1 - s/float64(maxLag)
}

// CostReward scores a setting by the proposed flips it needs per
// autocorrelation time, in sweeps: -log(tau * flipsPerStep / M), with tau
// estimated as 1 + 2 * sum of |ACF| over lags 1..maxLag (the paper's area,
// unnormalized). Unlike Reward it charges long walks for their cost, so the
// tuner optimizes mixing per flip (per CPU-second, up to the cost of a
// flip) rather than per step. A chain that never moved gets the worst tau.
func CostReward(energies []float64, maxLag int, flipsPerStep float64, M int) float64 {
	maxLag = min(maxLag, len(energies)-1)
	tau := 1 + 2*float64(max(maxLag, 1))
	if maxLag >= 1 && slices.Min(energies) != slices.Max(energies) {
		tau = 1 + 2*float64(maxLag)*(1-Reward(energies, maxLag))
	}
	return -math.Log(tau * math.Max(flipsPerStep, 1) / float64(M))
}

// Config is the adaptation phase's setting.
type Config struct {
	Space      bo.Space
	Iterations int     // I (default 200)
	IterSteps  int     // L (default 100)
	ACFLag     int     // lags scored (default min(100, L-1))
	Kernels    int     // K settings drawn from the policy (default 1000)
	PolicyTau  float64 // temperature of the Boltzmann policy, in reward standard deviations (default 0.2)
	CostAware  bool    // score by CostReward (flips per autocorrelation time) instead of the paper's Reward
	BO         bo.Options
}

func (c Config) withDefaults() Config {
	if c.Iterations <= 0 {
		c.Iterations = 200
	}
	if c.IterSteps <= 0 {
		c.IterSteps = 100
	}
	if c.ACFLag <= 0 {
		c.ACFLag = min(100, c.IterSteps-1)
	}
	if c.Kernels <= 0 {
		c.Kernels = 1000
	}
	if c.PolicyTau <= 0 {
		c.PolicyTau = 0.2
	}
	if len(c.Space.Dims) == 0 {
		c.Space = DefaultSpace()
	}
	return c
}

// Steps is the number of chain steps the adaptation phase uses.
func (c Config) Steps() int { c = c.withDefaults(); return c.Iterations * c.IterSteps }

// Result is one trial's adaptation: every setting tried with its reward,
// and the policy's kernels.
type Result struct {
	Tried   []saw.Theta
	Rewards []float64
	Policy  []saw.Theta
}

// Session is one trial's adaptation phase, advanced one iteration at a
// time so that a run can checkpoint between iterations. Its JSON form holds
// everything needed to continue bit-identically.
type Session struct {
	cfg      Config
	opt      *bo.Optimizer
	res      Result
	energies []float64
}

// NewSession starts an adaptation phase drawing from r.
func NewSession(cfg Config, r *rand.PCG) (*Session, error) {
	cfg = cfg.withDefaults()
	opt, err := bo.NewOptimizer(cfg.Space, cfg.BO, r)
	if err != nil {
		return nil, err
	}
	return &Session{cfg: cfg, opt: opt, energies: make([]float64, cfg.IterSteps)}, nil
}

// Done says whether all iterations have run.
func (s *Session) Done() bool { return len(s.res.Rewards) >= s.cfg.Iterations }

// Iterate runs one iteration: the next setting from the optimizer, L chain
// steps with it (step advances ch by one step), and the reward.
func (s *Session) Iterate(ch *saw.Chain, step func()) error {
	u, err := s.opt.Next()
	if err != nil {
		return err
	}
	th := ThetaOf(s.cfg.Space.ToParams(u))
	if err := ch.SetThetas([]saw.Theta{th}); err != nil {
		return err
	}
	flips0 := ch.Stats().Flips
	for j := range s.energies {
		step()
		s.energies[j] = ch.Energy()
	}
	rw := Reward(s.energies, s.cfg.ACFLag)
	if s.cfg.CostAware {
		fps := float64(ch.Stats().Flips-flips0) / float64(len(s.energies))
		rw = CostReward(s.energies, s.cfg.ACFLag, fps, ch.Engine().N())
	}
	if err := s.opt.Observe(u, rw); err != nil {
		return err
	}
	s.res.Tried = append(s.res.Tried, th)
	s.res.Rewards = append(s.res.Rewards, rw)
	return nil
}

// Finish draws the policy's K kernels and sets them on ch.
func (s *Session) Finish(ch *saw.Chain) (*Result, error) {
	us, err := s.opt.Policy(s.cfg.Kernels, s.cfg.PolicyTau)
	if err != nil {
		return nil, err
	}
	s.res.Policy = s.res.Policy[:0]
	for _, u := range us {
		s.res.Policy = append(s.res.Policy, ThetaOf(s.cfg.Space.ToParams(u)))
	}
	return &s.res, ch.SetThetas(s.res.Policy)
}

// Current is the setting of the last iteration (the chain's kernel).
func (s *Session) Current() []saw.Theta {
	if n := len(s.res.Tried); n > 0 {
		return s.res.Tried[n-1 : n]
	}
	return nil
}

type sessionJSON struct {
	Optimizer json.RawMessage `json:"optimizer"`
	Tried     []string        `json:"tried"`
	Rewards   []float64       `json:"rewards"`
}

// MarshalJSON saves the session between iterations.
func (s *Session) MarshalJSON() ([]byte, error) {
	o, err := json.Marshal(s.opt)
	if err != nil {
		return nil, err
	}
	j := sessionJSON{Optimizer: o, Rewards: s.res.Rewards}
	for _, th := range s.res.Tried {
		j.Tried = append(j.Tried, th.String())
	}
	return json.Marshal(j)
}

// UnmarshalJSON restores a session made by NewSession with the same Config.
func (s *Session) UnmarshalJSON(b []byte) error {
	var j sessionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if err := json.Unmarshal(j.Optimizer, s.opt); err != nil {
		return err
	}
	if len(j.Tried) != len(j.Rewards) {
		return fmt.Errorf("tuning checkpoint has %d settings and %d rewards", len(j.Tried), len(j.Rewards))
	}
	s.res = Result{Rewards: j.Rewards}
	for _, t := range j.Tried {
		th, err := saw.ParseTheta(t)
		if err != nil {
			return err
		}
		s.res.Tried = append(s.res.Tried, th)
	}
	return nil
}

// Adapt runs the whole adaptation phase on ch, calling step for every
// chain step, and leaves the policy's kernels set on ch.
func Adapt(cfg Config, ch *saw.Chain, r *rand.PCG, step func()) (*Result, error) {
	return AdaptContext(context.Background(), cfg, ch, r, step)
}

// AdaptContext is Adapt, stopped between iterations once ctx is done: it
// then returns the finished iterations (Tried and Rewards, no Policy) with
// ctx's error.
func AdaptContext(ctx context.Context, cfg Config, ch *saw.Chain, r *rand.PCG, step func()) (*Result, error) {
	s, err := NewSession(cfg, r)
	if err != nil {
		return nil, err
	}
	for !s.Done() {
		if ctx.Err() != nil {
			return &Result{Tried: s.res.Tried, Rewards: s.res.Rewards}, ctx.Err()
		}
		if err := s.Iterate(ch, step); err != nil {
			return nil, err
		}
	}
	return s.Finish(ch)
}

// Tuner returns the runner's hook that adapts each sardonics trial.
func Tuner(cfg Config) runner.Tuner { return tuner{cfg.withDefaults()} }

type tuner struct{ cfg Config }

func (t tuner) Steps() int { return t.cfg.Steps() }

func (t tuner) New(r *rand.PCG) (runner.TuneSession, error) {
	s, err := NewSession(t.cfg, r)
	if err != nil {
		return nil, err
	}
	return &session{s}, nil
}

// session adapts Session to runner.TuneSession.
type session struct{ *Session }

func (s *session) Finish(ch *saw.Chain) (*runner.TuneRecord, error) {
	res, err := s.Session.Finish(ch)
	if err != nil {
		return nil, err
	}
	return res.Record(s.cfg.Steps()), nil
}

// Record converts a result for the trial's stats.json.
func (res *Result) Record(steps int) *runner.TuneRecord {
	tr := &runner.TuneRecord{Rewards: res.Rewards, Policy: res.Policy, Steps: steps}
	for _, th := range res.Tried {
		tr.Thetas = append(tr.Thetas, th.String())
	}
	return tr
}

// Policy is a policy file: the kernels of a sampling phase.
type Policy struct {
	Spec    string   `json:"spec,omitempty"`
	Beta    float64  `json:"beta,omitempty"`
	Kernels []string `json:"kernels"`
}

// WritePolicy writes a policy file atomically.
func WritePolicy(path string, p Policy) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return runner.WriteFileAtomic(path, append(b, '\n'))
}

// ReadPolicy reads a policy file's kernels.
func ReadPolicy(path string) ([]saw.Theta, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %v (expected a policy file written by sardonics tune)", path, err)
	}
	if len(p.Kernels) == 0 {
		return nil, fmt.Errorf("%s: no kernels (expected a non-empty \"kernels\" list)", path)
	}
	out := make([]saw.Theta, len(p.Kernels))
	for i, k := range p.Kernels {
		th, err := saw.ParseTheta(k)
		if err == nil {
			err = th.Validate()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: kernel %d: %v", path, i, err)
		}
		out[i] = th
	}
	return out, nil
}
