package baseline

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// impl is gonum's pure-Go BLAS (assembly kernels on amd64), called as a
// concrete value so a per-flip axpy costs no interface dispatch.
var impl gonum.Implementation

// rbmSingle is single-site Gibbs or Metropolis on an RBM in its bit form,
// sweeping visible units then hidden ones (the order of the Ising form).
// Local fields a = b + W h and g = c + W'v are kept incrementally: a flip
// of one unit is one axpy over a row of W (or of W') into the other side.
type rbmSingle struct {
	r          *model.RBM
	beta       float64
	rng        *rand.PCG
	metropolis bool
	wt         []float64 // W transposed, H x V, so hidden flips read a contiguous row
	a, g       []float64 // visible and hidden local fields
	x          []float64 // bits, visible then hidden
	s          []int8    // the same state in Ising form
	e          float64

	counters
}

func newRBMSingle(r *model.RBM, beta float64, p *rand.PCG, s []int8, metropolis bool) *rbmSingle {
	c := &rbmSingle{r: r, beta: beta, rng: p, metropolis: metropolis, s: s,
		wt: transpose(r.W, r.V, r.H), a: make([]float64, r.V), g: make([]float64, r.H),
		x: make([]float64, r.V+r.H)}
	for i, v := range s {
		c.x[i] = float64((v + 1) / 2)
	}
	c.refresh()
	return c
}

func transpose(w []float64, v, h int) []float64 {
	t := make([]float64, len(w))
	for i := 0; i < v; i++ {
		for j := 0; j < h; j++ {
			t[j*v+i] = w[i*h+j]
		}
	}
	return t
}

// refresh recomputes the fields and the energy from the state, so that
// rounding in the incremental updates never accumulates.
func (c *rbmSingle) refresh() {
	fields(c.r, c.wt, c.x[:c.r.V], c.x[c.r.V:], c.a, c.g)
	c.e = rbmEnergy(c.r, c.x[:c.r.V], c.x[c.r.V:], c.a)
}

// fields sets a = b + W h and g = c + W'v (W' given as wt, H x V).
func fields(r *model.RBM, wt, v, h, a, g []float64) {
	copy(a, r.B)
	impl.Dgemv(blas.NoTrans, r.V, r.H, 1, r.W, r.H, h, 1, 1, a, 1)
	copy(g, r.C)
	impl.Dgemv(blas.NoTrans, r.H, r.V, 1, wt, r.V, v, 1, 1, g, 1)
}

// rbmEnergy is -v'Wh - b'v - c'h = -v'a - c'h with a = b + W h.
func rbmEnergy(r *model.RBM, v, h, a []float64) float64 {
	return -impl.Ddot(r.V, v, 1, a, 1) - impl.Ddot(r.H, r.C, 1, h, 1)
}

func (c *rbmSingle) Step() {
	V, H := c.r.V, c.r.H
	acc := c.half(c.x[:V], c.s[:V], c.a, c.g, c.r.W, H)
	acc += c.half(c.x[V:], c.s[V:], c.g, c.a, c.wt, V)
	c.sweep(int64(V+H), acc, c.metropolis)
	if c.steps%refreshEvery == 0 {
		c.refresh()
	}
}

// half updates the units of one layer (bits x, fields f) in order; a flip of
// unit i adds +-row i of w (stride n) to the other layer's fields.
func (c *rbmSingle) half(x []float64, s []int8, f, other, w []float64, n int) int64 {
	p, beta := c.rng, c.beta
	f = f[:len(x)]
	s = s[:len(x)]
	var acc int64
	for i, xi := range x {
		// Setting bit i to 1 changes E by -f[i] relative to 0.
		if c.metropolis {
			dE := -f[i] // 0 -> 1
			if xi == 1 {
				dE = f[i]
			}
			if dE > 0 && !belowExpNeg(rng.Float64(p), beta*dE) {
				continue
			}
			acc++
		} else {
			nx := 0.0
			if belowLogistic(rng.Float64(p), beta*f[i]) {
				nx = 1
			}
			if nx == xi {
				continue
			}
		}
		d := 1 - 2*xi // +1 for 0->1, -1 for 1->0
		x[i] = xi + d
		s[i] = -s[i]
		c.e -= d * f[i]
		impl.Daxpy(len(other), d, w[i*n:(i+1)*n], 1, other, 1)
	}
	return acc
}

func (c *rbmSingle) Energy() float64 { return c.e }
func (c *rbmSingle) Spins() []int8   { return c.s }
func (c *rbmSingle) Stats() sampler.Stats {
	return sampler.Stats{Flips: c.flips, Proposed: c.proposed, Accepted: c.accepted}
}

// SetBeta changes the inverse temperature (see sampler.Tempered).
func (c *rbmSingle) SetBeta(beta float64) { c.beta = beta }
