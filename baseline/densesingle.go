package baseline

import (
	"math"
	"math/rand/v2"

	"sardonics/denseising"
	"sardonics/model"
	"sardonics/sampler"
)

// denseSingle is single-site Gibbs or Metropolis on a dense model (every
// pair may be coupled; see model.UseDense), sweeping spins 0..N-1. Every
// local field f_i = h_i + sum_j J_ij s_j is kept, so a proposal reads one
// field and draws at most one number (a rejected proposal is O(1)), and an
// accepted flip of spin k adds 2 s_k' J_k to every field in one vectorised
// pass over row k (denseising.AddRow). Fields and energy are recomputed
// from scratch every refreshEvery steps, so rounding never accumulates.
// Uniforms come from a sweep-local xoroshiro128+ seeded by two draws of the
// chain's PCG per sweep, as the sparse table sweeps draw them (sweep.go).
type denseSingle struct {
	d          *model.Dense
	beta       float64
	r          *rand.PCG
	metropolis bool
	s          []int8
	f          []float64
	e          float64

	counters
}

func newDenseSingle(d *model.Dense, beta float64, r *rand.PCG, s []int8, metropolis bool) *denseSingle {
	c := &denseSingle{d: d, beta: beta, r: r, metropolis: metropolis, s: s, f: make([]float64, d.N)}
	c.refresh()
	return c
}

// refresh recomputes the fields (in denseising.Field's order) and the
// energy from them: E = Offset - sum_i s_i (f_i + h_i) / 2.
func (c *denseSingle) refresh() {
	x := 0.0
	for i := range c.f {
		c.f[i] = denseising.Field(c.d, c.s, i)
		x += float64(c.s[i]) * (c.f[i] + c.d.H[i])
	}
	c.e = c.d.Offset - x/2
}

func (c *denseSingle) Step() {
	var acc int64
	if c.metropolis {
		acc = c.metropolisSweep()
	} else {
		c.gibbsSweep()
	}
	c.sweep(int64(len(c.s)), acc, c.metropolis)
	if c.steps%refreshEvery == 0 {
		c.refresh()
	}
}

// metropolisSweep flips s_i with probability min(1, exp(-beta dE_i)),
// dE_i = 2 s_i f_i, drawing a number only when dE_i > 0 (as the sparse
// float sweep does).
func (c *denseSingle) metropolisSweep() int64 {
	s, f, beta := c.s, c.f, c.beta
	f = f[:len(s)]
	x0, x1 := sweepRNG(c.r)
	var acc int64
	for i := range s {
		d := 2 * float64(s[i]) * f[i]
		if d > 0 {
			var v uint64
			v, x0, x1 = xoroshiro(x0, x1)
			u, y := float64(v>>11)*0x1p-53, beta*d
			// Most proposals of a cold chain fail by far: e^y > 1 + y +
			// y^2/2 + y^3/6, so u (that sum) >= 1 (plus a margin for
			// rounding) means u >= e^-y, as math.Exp would find, at the
			// cost of three multiplications.
			if u*(1+y*(1+y*(0.5+y*(1.0/6)))) >= 1+1e-12 || !belowExpNeg(u, y) {
				continue
			}
		}
		s[i] = -s[i]
		c.e += d
		denseising.AddRow(c.d, f, i, 2*float64(s[i]))
		acc++
	}
	return acc
}

// gibbsSweep sets s_i = +1 with probability 1/(1+exp(-2 beta f_i)).
func (c *denseSingle) gibbsSweep() {
	s, f := c.s, c.f
	f = f[:len(s)]
	x0, x1 := sweepRNG(c.r)
	b2 := min(2*c.beta, math.MaxFloat64) // finite, so that b2 * 0 is 0
	for i := range s {
		var v uint64
		v, x0, x1 = xoroshiro(x0, x1)
		nw := int8(-1)
		if belowLogistic(float64(v>>11)*0x1p-53, b2*f[i]) {
			nw = 1
		}
		if nw == s[i] {
			continue
		}
		c.e += 2 * float64(s[i]) * f[i]
		s[i] = nw
		denseising.AddRow(c.d, f, i, 2*float64(nw))
	}
}

func (c *denseSingle) Energy() float64 { return c.e }
func (c *denseSingle) Spins() []int8   { return c.s }
func (c *denseSingle) Stats() sampler.Stats {
	return sampler.Stats{Flips: c.flips, Proposed: c.proposed, Accepted: c.accepted}
}

// SetBeta changes the inverse temperature (see sampler.Tempered).
func (c *denseSingle) SetBeta(beta float64) { c.beta = beta }
