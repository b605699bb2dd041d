package bo

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
)

// Policy draws k unit-cube points from the Boltzmann policy
//
//	p(u) proportional to exp(mu(u) / tau),  u in [0,1]^D,
//
// (with Options.PolicyLCB = kappa > 0, mu(u) - kappa sigma(u) in place of
// mu(u): a lower confidence bound, so the policy trusts only what the data
// support and does not drift into unexplored regions whose prior mean
// looks good), where mu is the GP posterior mean in standardized reward units (divided
// by the standard deviation of the rewards, or with a prior mean by the
// root mean square of their residuals from it; so tau is
// in standard deviations of the observed rewards: small tau concentrates on
// the best region, large tau approaches uniform). The GP is conditioned on
// all observations, with hyperparameters refitted if data arrived since the
// last fit.
//
// Sampling is a random-walk Metropolis chain started at the maximizer of mu
// found by DIRECT: Gaussian steps of standard deviation Options.PolicyStep
// per coordinate, reflected at the faces of the cube (reflection keeps the
// proposal symmetric, so the acceptance ratio is exp((mu' - mu)/tau)),
// Options.PolicyBurnIn steps discarded, then every Options.PolicyThin-th
// state kept. Points are snapped like Next's.
func (o *Optimizer) Policy(k int, tau float64) ([][]float64, error) {
	if k <= 0 || !(tau > 0) {
		return nil, errors.New("bo: Policy needs k > 0 and tau > 0")
	}
	gp, err := o.surrogate(true)
	if err != nil {
		return nil, err
	}
	dim := o.space.Len()
	score := func(x []float64) float64 { return o.meanStd(gp, x) }
	if kappa := o.opts.PolicyLCB; kappa > 0 {
		score = func(x []float64) float64 {
			m, s2 := gp.PredictStd(x)
			return o.total(gp, x, m) - kappa*math.Sqrt(s2)
		}
	}
	rr := rand.New(o.rng)
	if o.opts.PolicyObserved {
		return o.observedPolicy(k, tau, score, rr), nil
	}
	u, negMu, _ := Direct(func(x []float64) float64 { return -score(x) }, dim, o.directOptions())
	lp := -negMu / tau
	prop := make([]float64, dim)
	step := func() {
		for i, ui := range u {
			prop[i] = reflectUnit(ui + o.opts.PolicyStep*rr.NormFloat64())
		}
		lq := score(prop) / tau
		if lq >= lp || rr.Float64() < math.Exp(lq-lp) {
			copy(u, prop)
			lp = lq
		}
	}
	for range o.opts.PolicyBurnIn {
		step()
	}
	out := make([][]float64, k)
	for i := range out {
		for range o.opts.PolicyThin {
			step()
		}
		out[i] = o.space.Snap(u)
	}
	return out, nil
}

// observedPolicy is the Boltzmann policy restricted to the observed
// points (Options.PolicyObserved): k independent draws from the x_i with
// probabilities proportional to exp(score(x_i) / tau), the first point
// observed most often placed first, the rest in draw order.
func (o *Optimizer) observedPolicy(k int, tau float64, score func([]float64) float64, rr *rand.Rand) [][]float64 {
	w := make([]float64, len(o.x))
	top := math.Inf(-1)
	for i, x := range o.x {
		w[i] = score(x) / tau
		top = math.Max(top, w[i])
	}
	total := 0.0
	for i := range w {
		w[i] = math.Exp(w[i] - top)
		total += w[i]
	}
	counts := make([]int, len(w))
	idx := make([]int, k)
	for j := range idx {
		t := rr.Float64() * total
		i := 0
		for ; i < len(w)-1 && t >= w[i]; i++ {
			t -= w[i]
		}
		idx[j] = i
		counts[i]++
	}
	mode := 0
	for i, c := range counts {
		if c > counts[mode] {
			mode = i
		}
	}
	out := make([][]float64, 0, k)
	out = append(out, slices.Clone(o.x[mode]))
	skipped := false
	for _, i := range idx {
		if i == mode && !skipped {
			skipped = true
			continue
		}
		out = append(out, slices.Clone(o.x[i]))
	}
	return out
}

// reflectUnit folds x into [0,1] by mirror reflection at 0 and 1.
func reflectUnit(x float64) float64 {
	x = math.Mod(math.Abs(x), 2)
	if x > 1 {
		x = 2 - x
	}
	return x
}
