package bo

import (
	"errors"
	"math"
	"math/rand/v2"
)

// Policy draws k unit-cube points from the Boltzmann policy
//
//	p(u) proportional to exp(mu(u) / tau),  u in [0,1]^D,
//
// where mu is the GP posterior mean in standardized reward units (so tau is
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
	u, negMu, _ := Direct(func(x []float64) float64 { return -gp.MeanStd(x) }, dim, o.opts.Direct)
	lp := -negMu / tau
	rr := rand.New(o.rng)
	prop := make([]float64, dim)
	step := func() {
		for i, ui := range u {
			prop[i] = reflectUnit(ui + o.opts.PolicyStep*rr.NormFloat64())
		}
		lq := gp.MeanStd(prop) / tau
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

// reflectUnit folds x into [0,1] by mirror reflection at 0 and 1.
func reflectUnit(x float64) float64 {
	x = math.Mod(math.Abs(x), 2)
	if x > 1 {
		x = 2 - x
	}
	return x
}
