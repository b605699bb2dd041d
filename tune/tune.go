package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"sardonics/atomicfile"
	"sardonics/bo"
	"sardonics/diag"
	"sardonics/runner"
	"sardonics/saw"
	"sardonics/summary"
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

// The rewards a tuner can maximize (Config.Reward).
const (
	// RewardACF is the paper's: one minus the mean absolute energy ACF
	// over lags 1..ACFLag of the window (Reward). The zero value of
	// Config.Reward selects it, so the paper's experiments keep it.
	RewardACF = "acf"
	// RewardCost is CostReward: flips per autocorrelation time.
	RewardCost = "cost"
	// RewardESS is ESSReward: the log of the window's estimated effective
	// sample size per modeled CPU-second. The command line's default.
	RewardESS = "ess"
)

// LagFor is the lag, in steps, of a window that proposed flipsPerStep
// flips per step: the steps that propose work flips, at least 1 and at
// most maxLag.
func LagFor(work, flipsPerStep float64, maxLag int) int {
	k := 1
	if flipsPerStep > 0 {
		k = int(math.Round(work / flipsPerStep))
	}
	return min(max(k, 1), max(maxLag, 1))
}

// ESSReward is log(ESS per modeled CPU-second) of a window: -log(tau *
// secondsPerStep), tau from ESSTau. The cost is modeled (CostModel), not
// measured, so that the same seed gives the same rewards, choices and
// policy: a measured CPU time would differ from run to run.
func ESSReward(semi float64, lag int, variance, maxTau, secondsPerStep float64) float64 {
	return -math.Log(diag.ESSTau(semi, lag, variance, maxTau) * secondsPerStep)
}

// CostModel is the modeled CPU time of SARDONICS steps (saw.Cost): it
// stands in for measured CPU time in the ess reward (see ESSReward).
type CostModel = saw.Cost

// CostOf is eng's cost model (saw.Costed; every engine of the product has
// one), or the tree's for an engine without.
func CostOf(eng saw.Engine) CostModel {
	if c, ok := eng.(saw.Costed); ok {
		return c.Cost()
	}
	return saw.CostTree
}

// Config is the adaptation phase's setting. Zero fields take the defaults
// of the reward: the paper's protocol for acf and cost, a shorter and
// cheaper one for ess.
type Config struct {
	Space      bo.Space
	Reward     string  // RewardACF (default), RewardCost or RewardESS
	Iterations int     // I (acf, cost: 200; ess: 25, WarmUp included)
	IterSteps  int     // L (acf, cost: 100; ess: 800)
	ACFLag     int     // lags scored by acf and cost (default min(100, L-1))
	Kernels    int     // K settings drawn from the policy (default 1000)
	PolicyTau  float64 // temperature of the Boltzmann policy: in reward standard deviations (acf, cost: 0.2); in reward units, nats of ESS per CPU-second (ess: 0.05)
	CostAware  bool    // Reward RewardCost (kept for callers that predate Reward)
	// WarmUp is the number of iterations whose steps run with the first
	// setting (the default theta) before the first scored window, so that
	// the burn-in from the random start is not scored; they count in I, so
	// the adaptation still takes at most I x L steps. Default for ess a
	// tenth of I, rounded up (3 of 25); 0 for acf and cost. At most I-1.
	WarmUp int
	// ESSWork sets the lag of the ess reward's semivariogram: the steps
	// that propose ESSWork flips (LagFor), at most L/4. Default 55, five
	// steps of the default theta.
	ESSWork float64
	// StopEI ends the adaptation early once the expected improvement of
	// the next proposal stays below StopEI (in reward units) StopAfter
	// times in a row: the search is done and the remaining steps sample
	// with the policy. Default for ess 0.01 (one percent of ESS per
	// CPU-second, about what one more window costs a 10^5-step trial); 0
	// for acf and cost (the paper's fixed I). Negative:
	// never stop early.
	StopEI    float64
	StopAfter int // default 3
	// PolicyMargin, if positive, keeps the first setting (the default
	// theta) as the only kernel unless the policy's kernels, weighed by
	// the surrogate's lower confidence bound (mean minus one standard
	// deviation, averaged over them), beat its posterior mean by
	// PolicyMargin reward units: the window estimates are noisy and their
	// bias varies between settings by a few tenths, so a policy must
	// promise a clear gain before it replaces a known kernel. Default for
	// ess 0.1 (10% more ESS per CPU-second); 0 for acf and cost. Negative:
	// no check.
	PolicyMargin float64
	// MaxCost bounds the search: proposals whose modeled cost per step
	// exceeds MaxCost times the first setting's are never made (their
	// expected improvement per cost counts as zero). The window estimates
	// cannot tell settings apart finely enough to justify windows many
	// times dearer than the default's, and each one spends chain time the
	// trial pays for: the adaptation runs a fifth of a default trial's
	// steps, so windows at twice the default's cost would add a fifth to
	// its CPU time, more than the gains the windows can resolve. A proposal
	// beyond the bound (from the initial design) is moved towards the first
	// setting until it is within. Default for ess 1.5; 0 (no bound) for acf
	// and cost. Negative: no bound.
	MaxCost float64
	BO      bo.Options
}

// WithDefaults is c with every zero field set to its reward's default.
func (c Config) WithDefaults() Config { return c.withDefaults() }

func (c Config) withDefaults() Config {
	if c.CostAware && c.Reward == "" {
		c.Reward = RewardCost
	}
	if c.Reward == "" {
		c.Reward = RewardACF
	}
	ess := c.Reward == RewardESS
	if len(c.Space.Dims) == 0 {
		c.Space = DefaultSpace()
	}
	if c.Iterations <= 0 {
		c.Iterations = 200
		if ess {
			c.Iterations = 25
		}
	}
	if c.IterSteps <= 0 {
		c.IterSteps = 100
		if ess {
			c.IterSteps = 800
		}
	}
	if c.ACFLag <= 0 {
		c.ACFLag = min(100, c.IterSteps-1)
	}
	if c.Kernels <= 0 {
		c.Kernels = 1000
	}
	if c.PolicyTau <= 0 {
		c.PolicyTau = 0.2
		if ess {
			c.PolicyTau = 0.05
		}
	}
	if c.StopAfter <= 0 {
		c.StopAfter = 3
	}
	if ess {
		if c.WarmUp <= 0 {
			c.WarmUp = (c.Iterations + 9) / 10
		}
		if c.ESSWork <= 0 {
			c.ESSWork = 55
		}
		if c.StopEI == 0 {
			c.StopEI = 0.01
		}
		if c.PolicyMargin == 0 {
			c.PolicyMargin = 0.1
		}
		if c.MaxCost == 0 {
			c.MaxCost = 1.5
		}
		if c.BO.DirectPerPoint <= 0 {
			c.BO.DirectPerPoint = 3
		}
		// The search starts at the default kernel, whose reward is the
		// GP's prior mean (a setting must show that it beats the default),
		// explores its neighbourhood first (the rest of the box is reached
		// where expected improvement per modeled cost leads, see
		// Session.evalCost), and the policy weighs settings by a lower
		// confidence bound, so it stays where the data are.
		if c.BO.Start == nil {
			c.BO.Start = c.Space.ToUnit(paramsOf(saw.DefaultTheta))
		}
		if c.BO.Init <= 0 {
			c.BO.Init = c.Space.Len()
		}
		if c.BO.InitRadius <= 0 {
			c.BO.InitRadius = 0.1
		}
		if c.BO.GP.Restarts <= 0 {
			c.BO.GP.Restarts = 2
		}
		if c.BO.GP.MaxIter <= 0 {
			c.BO.GP.MaxIter = 30
		}
		if c.BO.PolicyLCB == 0 {
			c.BO.PolicyLCB = 1
		}
		c.BO.PolicyObserved = true
	}
	// Negative StopEI, PolicyMargin and MaxCost stay negative (off), so
	// that defaults applied twice give the same Config.
	c.WarmUp = min(max(c.WarmUp, 0), c.Iterations-1)
	return c
}

// paramsOf is the parameter vector (in Names order) of th.
func paramsOf(th saw.Theta) []float64 {
	return []float64{float64(th.KL), float64(th.KU), th.GL, th.GH, th.PLL, th.PHL, th.PLH, float64(th.N)}
}

// Steps is the most chain steps the adaptation phase uses, I x L (it may
// stop earlier, see StopEI).
func (c Config) Steps() int {
	c = c.withDefaults()
	return c.Iterations * c.IterSteps
}

// Result is one trial's adaptation: every setting tried with its reward,
// and the policy's kernels.
type Result struct {
	Tried   []saw.Theta
	Rewards []float64
	Policy  []saw.Theta
	// Steps is the chain steps the adaptation ran, TunerCPU the CPU
	// seconds of its own work (not the chain's), Reward the reward's name.
	Steps    int
	TunerCPU float64
	Reward   string
}

// window is what an ess-scored window leaves for rescoring once the pooled
// variance improves: its semivariogram at its lag, its modeled cost per
// step, and its length.
type window struct {
	Semi    float64 `json:"semi"`
	Lag     int     `json:"lag"`
	Seconds float64 `json:"seconds"`
	N       int     `json:"n"`
}

// pool accumulates the count, mean and sum of squared deviations of the
// scored windows' energies (the parallel update of Chan, Golub and LeVeque
// 1979), for the equilibrium variance that ESSTau needs.
type pool struct {
	N    float64 `json:"n"`
	Mean float64 `json:"mean"`
	M2   float64 `json:"m2"`
}

func (p *pool) add(x []float64) {
	if len(x) == 0 {
		return
	}
	n := float64(len(x))
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= n
	m2 := 0.0
	for _, v := range x {
		m2 += (v - m) * (v - m)
	}
	d, tot := m-p.Mean, p.N+n
	p.M2 += m2 + d*d*p.N*n/tot
	p.Mean += d * n / tot
	p.N = tot
}

func (p pool) variance() float64 {
	if p.N < 2 {
		return 0
	}
	return p.M2 / (p.N - 1)
}

// Session is one trial's adaptation phase, advanced one iteration at a
// time so that a run can checkpoint between iterations. Its JSON form holds
// everything needed to continue bit-identically.
type Session struct {
	cfg      Config
	opt      *bo.Optimizer
	res      Result
	energies []float64
	cost     *CostModel // of the chain's engine, set by the first Iterate
	windows  []window   // ess: every scored window
	pool     pool       // ess: energies of every scored window
	quiet    int        // proposals in a row with negligible expected improvement
	stopped  bool
}

// NewSession starts an adaptation phase drawing from r.
func NewSession(cfg Config, r *rand.PCG) (*Session, error) {
	cfg = cfg.withDefaults()
	switch cfg.Reward {
	case RewardACF, RewardCost, RewardESS:
	default:
		return nil, fmt.Errorf("tune: reward %q (expected %s, %s or %s)", cfg.Reward, RewardESS, RewardACF, RewardCost)
	}
	if cfg.MaxCost > 0 && cfg.Reward != RewardESS {
		// The bound is measured against the ess search's start (BO.Start).
		return nil, fmt.Errorf("tune: MaxCost applies to the %s reward only", RewardESS)
	}
	s := &Session{cfg: cfg, energies: make([]float64, cfg.IterSteps)}
	s.res.Reward = cfg.Reward
	opts := cfg.BO
	if cfg.Reward == RewardESS && opts.EvalCost == nil {
		opts.EvalCost = s.evalCost
	}
	opt, err := bo.NewOptimizer(cfg.Space, opts, r)
	if err != nil {
		return nil, err
	}
	s.opt = opt
	return s, nil
}

// evalCost is the modeled CPU seconds per step of the setting at u, with
// its expected N (kl + ku) flips per step (2N walks of mean length
// (kl+ku)/2) and no rejections: the ess tuner's cost of evaluating u, so
// that it explores where windows are cheap (bo.Options.EvalCost); +Inf
// beyond MaxCost.
func (s *Session) evalCost(u []float64) float64 {
	c := saw.CostTree
	if s.cost != nil {
		c = *s.cost
	}
	sec := func(th saw.Theta) float64 { return c.Seconds(float64(th.N*(th.KL+th.KU)), 0) }
	v := sec(ThetaOf(s.cfg.Space.ToParams(u)))
	if s.cfg.MaxCost > 0 && v > s.cfg.MaxCost*sec(s.first()) {
		return math.Inf(1)
	}
	return v
}

// withinCost moves u towards the first setting, by bisection on the
// segment between them, to the farthest snapped point whose modeled cost
// is within MaxCost.
func (s *Session) withinCost(u []float64) []float64 {
	u0 := s.cfg.Space.ToUnit(paramsOf(s.first()))
	at := func(t float64) []float64 {
		v := make([]float64, len(u))
		for i := range v {
			v[i] = u0[i] + t*(u[i]-u0[i])
		}
		return s.cfg.Space.Snap(v)
	}
	lo, hi := 0.0, 1.0
	for range 30 {
		if mid := (lo + hi) / 2; math.IsInf(s.evalCost(at(mid)), 1) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return at(lo)
}

// first is the first setting evaluated: the default theta (Config.BO.Start).
func (s *Session) first() saw.Theta {
	if len(s.res.Tried) > 0 {
		return s.res.Tried[0]
	}
	return ThetaOf(s.cfg.Space.ToParams(s.cfg.BO.Start))
}

// Done says whether the adaptation is over: all iterations ran, or
// expected improvement became negligible (Config.StopEI).
func (s *Session) Done() bool {
	return s.stopped || len(s.res.Rewards) >= s.cfg.Iterations-s.cfg.WarmUp
}

// Iterate runs one iteration: the next setting from the optimizer, L chain
// steps with it (step advances ch by one step), and the reward. An
// iteration whose proposal promises a negligible improvement (the
// StopAfter-th in a row below StopEI) runs no steps and ends the
// adaptation instead. The tuner's own CPU is read from the calling thread's
// clock (runner.ThreadCPU), so the goroutine must stay locked to its OS
// thread, as runner.RunTrial's is (AdaptContext locks it).
func (s *Session) Iterate(ch saw.Tunable, step func()) error {
	c0 := runner.ThreadCPU()
	if s.cost == nil {
		c := CostOf(ch.Engine())
		s.cost = &c
	}
	u, err := s.opt.Next()
	if err != nil {
		return err
	}
	if ei := s.opt.LastEI(); s.cfg.StopEI > 0 && !math.IsInf(ei, 1) {
		if ei < s.cfg.StopEI {
			s.quiet++
		} else {
			s.quiet = 0
		}
		if s.quiet >= s.cfg.StopAfter {
			s.stopped = true
			s.res.TunerCPU += runner.ThreadCPU() - c0
			return nil
		}
	}
	if s.cfg.MaxCost > 0 && math.IsInf(s.evalCost(u), 1) {
		u = s.withinCost(u)
	}
	th := ThetaOf(s.cfg.Space.ToParams(u))
	if err := ch.SetThetas([]saw.Theta{th}); err != nil {
		return err
	}
	s.res.TunerCPU += runner.ThreadCPU() - c0
	if len(s.res.Tried) == 0 {
		n := s.cfg.WarmUp * s.cfg.IterSteps
		for range n {
			step()
		}
		s.res.Steps += n
	}
	st0 := ch.Stats()
	for j := range s.energies {
		step()
		s.energies[j] = ch.Energy()
	}
	s.res.Steps += len(s.energies)
	c1 := runner.ThreadCPU()
	st := ch.Stats()
	L := float64(len(s.energies))
	fps := float64(st.Flips-st0.Flips) / L
	var rw float64
	switch s.cfg.Reward {
	case RewardCost:
		rw = CostReward(s.energies, s.cfg.ACFLag, fps, ch.Engine().N())
	case RewardESS:
		rejected := 0.0
		if p := st.Proposed - st0.Proposed; p > 0 {
			rejected = fps * float64(p-(st.Accepted-st0.Accepted)) / float64(p)
		}
		lag := LagFor(s.cfg.ESSWork, fps, len(s.energies)/4)
		s.windows = append(s.windows, window{Semi: diag.Semivariogram(s.energies, lag), Lag: lag,
			Seconds: s.cost.Seconds(fps, rejected), N: len(s.energies)})
		s.pool.add(s.energies)
		rw = s.essReward(s.windows[len(s.windows)-1])
	default:
		rw = Reward(s.energies, s.cfg.ACFLag)
	}
	s.res.Tried = append(s.res.Tried, th)
	s.res.Rewards = append(s.res.Rewards, rw)
	if s.cfg.Reward == RewardESS {
		// Rescore every window with the variance pooled over all of them.
		for i, w := range s.windows {
			s.res.Rewards[i] = s.essReward(w)
		}
		if err := s.opt.Observe(u, s.floored(rw)); err != nil {
			return err
		}
		fl := make([]float64, len(s.res.Rewards))
		for i, r := range s.res.Rewards {
			fl[i] = s.floored(r)
		}
		if err := s.opt.Relabel(fl); err != nil {
			return err
		}
	} else if err := s.opt.Observe(u, rw); err != nil {
		return err
	}
	s.res.TunerCPU += runner.ThreadCPU() - c1
	return nil
}

// floored is an ess reward as the surrogate sees it: at least the first
// window's (the default kernel's) minus essFloor. Settings over e^2 = 7
// times worse than the default are all equally uninteresting, and their
// rewards (down to a chain that never moves) would otherwise stretch the
// GP's scale and tilt its fit far from them.
func (s *Session) floored(r float64) float64 {
	if len(s.res.Rewards) == 0 {
		return r
	}
	return math.Max(r, s.res.Rewards[0]-essFloor)
}

const essFloor = 2

// essReward scores window w with the current pooled variance. A window
// whose chain never moved gets tau = 100 L.
func (s *Session) essReward(w window) float64 {
	return ESSReward(w.Semi, w.Lag, s.pool.variance(), 100*float64(w.N), w.Seconds)
}

// Finish draws the policy's K kernels and sets them on ch.
func (s *Session) Finish(ch saw.Tunable) (*Result, error) {
	c0 := runner.ThreadCPU()
	tau := s.cfg.PolicyTau
	if s.cfg.Reward == RewardESS {
		// PolicyTau is in reward units; Policy takes standardized ones.
		sc, err := s.opt.RewardScale()
		if err != nil {
			return nil, err
		}
		tau /= sc
	}
	us, err := s.opt.Policy(s.cfg.Kernels, tau)
	if err != nil {
		return nil, err
	}
	s.res.Policy = s.res.Policy[:0]
	for _, u := range us {
		s.res.Policy = append(s.res.Policy, ThetaOf(s.cfg.Space.ToParams(u)))
	}
	if s.cfg.Reward == RewardESS {
		oneBias(s.res.Policy)
	}
	if s.cfg.PolicyMargin > 0 && len(s.res.Tried) > 0 {
		keep, err := s.promising()
		if err != nil {
			return nil, err
		}
		if !keep {
			s.res.Policy = append(s.res.Policy[:0], s.res.Tried[0])
		}
	}
	s.res.TunerCPU += runner.ThreadCPU() - c0
	return &s.res, ch.SetThetas(s.res.Policy)
}

// promising says whether the drawn policy clears PolicyMargin against the
// first setting tried (see Config.PolicyMargin): against the larger of its
// posterior mean and its own reward, which is the GP's prior mean, so
// that unexplored settings (whose prediction is that prior) never pass.
func (s *Session) promising() (bool, error) {
	m0, _, err := s.opt.Predict(s.cfg.Space.ToUnit(paramsOf(s.res.Tried[0])))
	if err != nil {
		return false, err
	}
	m0 = math.Max(m0, s.opt.FirstReward())
	// Kernels repeat (the policy draws from the settings tried): predict
	// each distinct one once.
	seen := map[saw.Theta]float64{}
	lcb := 0.0
	for _, k := range s.res.Policy {
		v, ok := seen[k]
		if !ok {
			m, sd, err := s.opt.Predict(s.cfg.Space.ToUnit(paramsOf(k)))
			if err != nil {
				return false, err
			}
			v = m - sd
			seen[k] = v
		}
		lcb += v / float64(len(s.res.Policy))
	}
	return lcb >= m0+s.cfg.PolicyMargin, nil
}

// oneBias gives every kernel of a policy the biases gL and gH of its first
// (with Options.PolicyObserved, its most frequent setting). A chain that
// mixes kernels picks one at random every step, and an engine rebuilds its
// tables whenever the biases change (O(M) for the sparse ones): with K
// distinct biases nearly every step would pay that, many times the cost
// of a walk, while walk lengths, types and N change for free. The mixture
// is still of pi-invariant kernels chosen independently of the state, so
// exact.
func oneBias(ks []saw.Theta) {
	for i := range ks {
		ks[i].GL, ks[i].GH = ks[0].GL, ks[0].GH
	}
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
	Steps     int             `json:"steps"`
	TunerCPU  float64         `json:"tuner_cpu_seconds"`
	Windows   []window        `json:"windows,omitempty"`
	Pool      pool            `json:"pool"`
	Quiet     int             `json:"quiet"`
	Stopped   bool            `json:"stopped"`
}

// MarshalJSON saves the session between iterations.
func (s *Session) MarshalJSON() ([]byte, error) {
	o, err := json.Marshal(s.opt)
	if err != nil {
		return nil, err
	}
	j := sessionJSON{Optimizer: o, Rewards: s.res.Rewards, Steps: s.res.Steps, TunerCPU: s.res.TunerCPU,
		Windows: s.windows, Pool: s.pool, Quiet: s.quiet, Stopped: s.stopped}
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
	if s.cfg.Reward == RewardESS && len(j.Windows) != len(j.Rewards) {
		return fmt.Errorf("tuning checkpoint has %d scored windows and %d rewards", len(j.Windows), len(j.Rewards))
	}
	s.res = Result{Rewards: j.Rewards, Steps: j.Steps, TunerCPU: j.TunerCPU, Reward: s.cfg.Reward}
	s.windows, s.pool, s.quiet, s.stopped = j.Windows, j.Pool, j.Quiet, j.Stopped
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
func Adapt(cfg Config, ch saw.Tunable, r *rand.PCG, step func()) (*Result, error) {
	return AdaptContext(context.Background(), cfg, ch, r, step)
}

// AdaptContext is Adapt, stopped between iterations once ctx is done: it
// then returns the finished iterations (Tried and Rewards, no Policy) with
// ctx's error.
func AdaptContext(ctx context.Context, cfg Config, ch saw.Tunable, r *rand.PCG, step func()) (*Result, error) {
	// The tuner's CPU clock reads the calling thread's time.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := NewSession(cfg, r)
	if err != nil {
		return nil, err
	}
	for !s.Done() {
		if ctx.Err() != nil {
			res := s.res
			res.Policy = nil
			return &res, ctx.Err()
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

func (s *session) Finish(ch saw.Tunable) (*summary.TuneRecord, error) {
	res, err := s.Session.Finish(ch)
	if err != nil {
		return nil, err
	}
	return res.Record(), nil
}

// Record converts a result for the trial's stats.json.
func (res *Result) Record() *summary.TuneRecord {
	tr := &summary.TuneRecord{Rewards: res.Rewards, Policy: res.Policy, Steps: res.Steps,
		Reward: res.Reward, TunerCPUSeconds: res.TunerCPU}
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
	return atomicfile.WriteFileMkdir(path, append(b, '\n'))
}

// LoadPolicy reads a policy file: its fields (Spec empty where the file
// names no model) and its kernels, parsed and validated, from one read.
func LoadPolicy(path string) (Policy, []saw.Theta, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Policy{}, nil, err
	}
	var p Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return Policy{}, nil, fmt.Errorf("%s: %v (expected a policy file written by sardonics tune)", path, err)
	}
	if len(p.Kernels) == 0 {
		return Policy{}, nil, fmt.Errorf("%s: no kernels (expected a non-empty \"kernels\" list)", path)
	}
	out := make([]saw.Theta, len(p.Kernels))
	for i, k := range p.Kernels {
		th, err := saw.ParseTheta(k)
		if err == nil {
			err = th.Validate()
		}
		if err != nil {
			return Policy{}, nil, fmt.Errorf("%s: kernel %d: %v", path, i, err)
		}
		out[i] = th
	}
	return p, out, nil
}
