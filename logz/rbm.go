package logz

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/gonum"

	"sardonics/model"
	"sardonics/rng"
)

// rbmKernel names the RBM path's kernel in reports.
const rbmKernel = "rbm-blockgibbs"

// impl is gonum's BLAS, called as a concrete value (no interface call per
// axpy).
var impl gonum.Implementation

// rbmPath is annealing on an RBM's visible units with the hidden units
// summed out (Salakhutdinov and Murray 2008). With phi_j(v) = c_j +
// sum_i v_i W_ij, the marginal of exp(-beta E(v,h)) is
//
//	f_beta(v) = sum_h exp(-beta E(v,h)) = exp(beta b.v) prod_j (1 + exp(beta phi_j(v))),
//
// so ln f_beta(v) = beta b.v + sum_j softplus(beta phi_j(v)), and Z(beta)
// = sum_v f_beta(v). The path joins the base-rate model p_A(v) ~ exp(a.v)
// (independent units; a = 0 is uniform) to the target:
//
//	ln p*_t(v) = (1 - t) a.v + ln f_{t beta}(v),  t in [0, 1],
//
// whose t = 0 normalizer is Z_0 = 2^H prod_i (1 + e^a_i) (the hidden
// units, free there, each count 2) and t = 1 is the target's. p*_t is
// the visible marginal of the RBM with weights t beta W, hidden biases t
// beta c and visible biases t beta b + (1 - t) a, so its block Gibbs
// step (h ~ p_t(h | v), then v ~ p_t(v | h)) leaves p*_t(v) invariant and
// is a Markov chain on v alone: the weights may use the exact marginal
// ln p*_t(v), without the hidden units' noise, and the path exists at any
// beta.
type rbmPath struct {
	r    *model.RBM
	wt   []float64 // W transposed, H x V
	beta float64
	a    []float64 // base-rate biases (zeros: uniform)
	z0   float64
	seed uint64
}

func newRBMPath(r *model.RBM, beta float64, base []float64) (*rbmPath, error) {
	a := base
	if a == nil {
		a = make([]float64, r.V)
	}
	if len(a) != r.V {
		return nil, fmt.Errorf("logz: base rate of %d units for an RBM of %d visible units", len(a), r.V)
	}
	z0 := float64(r.H) * math.Ln2
	for _, x := range a {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("logz: base-rate biases must be finite")
		}
		z0 += softplus(x)
	}
	wt := make([]float64, len(r.W))
	for i := range r.V {
		for j := range r.H {
			wt[j*r.V+i] = r.W[i*r.H+j]
		}
	}
	return &rbmPath{r: r, wt: wt, beta: beta, a: a, z0: z0}, nil
}

func (p *rbmPath) lnZ0() float64 { return p.z0 }

// rbmState is one run's visible bits, the hidden fields phi = c + W'v,
// and scratch.
type rbmState struct {
	v, h, phi, act []float64
}

// setPhi recomputes phi = c + W'v from v.
func (p *rbmPath) setPhi(s *rbmState) {
	H := p.r.H
	copy(s.phi, p.r.C)
	for i, x := range s.v {
		if x != 0 {
			impl.Daxpy(H, 1, p.r.W[i*H:(i+1)*H], 1, s.phi, 1)
		}
	}
}

// lnP is ln p*_t(v) up to the terms of v that do not depend on t, split
// as (b.v, a.v, sum_j softplus(t beta phi_j)): ln p*_t = t beta b.v +
// (1 - t) a.v + the sum.
func (p *rbmPath) lnP(s *rbmState, t float64) float64 {
	bv, av := dot(p.r.B, s.v), dot(p.a, s.v)
	sp := 0.0
	for _, f := range s.phi {
		sp += softplus(t * p.beta * f)
	}
	return t*p.beta*bv + (1-t)*av + sp
}

// grad is g = d ln p*_t / dt = beta b.v - a.v + beta sum_j sigmoid(t beta phi_j) phi_j.
func (p *rbmPath) grad(s *rbmState, t float64) float64 {
	g := p.beta*dot(p.r.B, s.v) - dot(p.a, s.v)
	for _, f := range s.phi {
		g += p.beta * sigmoid(t*p.beta*f) * f
	}
	return g
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i, v := range y {
		s += x[i] * v
	}
	return s
}

// refreshEvery is how often (in steps) phi is recomputed from v, so that
// its incremental rounding never accumulates.
const refreshEvery = 1024

func (p *rbmPath) run(ctx context.Context, i int, key uint64, lam, rec []float64) (float64, error) {
	r := rngFor(p.seed, i, key)
	V, H := p.r.V, p.r.H
	s := &rbmState{v: make([]float64, V), h: make([]float64, H), phi: make([]float64, H), act: make([]float64, V)}
	for k := range s.v { // the exact draw from the base rate
		if rng.Float64(r) < sigmoid(p.a[k]) {
			s.v[k] = 1
		}
	}
	p.setPhi(s)
	K := len(lam) - 1
	lw := 0.0
	for k := 1; k <= K; k++ {
		if k&255 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if rec != nil {
			rec[k-1] = p.grad(s, lam[k-1])
		}
		if !(truncated && 10*k > 9*K) {
			lw += p.lnP(s, lam[k]) - p.lnP(s, lam[k-1])
		}
		if k == K {
			break
		}
		p.step(s, r, lam[k], k)
	}
	return lw, nil
}

// step is one block Gibbs step at t: h ~ p_t(h | v), then v ~ p_t(v | h),
// phi kept in step with v (k counts the steps, for the refresh).
func (p *rbmPath) step(s *rbmState, r *rand.PCG, t float64, k int) {
	V, H := p.r.V, p.r.H
	tb := t * p.beta
	for j, f := range s.phi {
		s.h[j] = 0
		if rng.Float64(r) < sigmoid(tb*f) {
			s.h[j] = 1
		}
	}
	copy(s.act, p.r.B)
	for j, x := range s.h {
		if x != 0 {
			impl.Daxpy(V, 1, p.wt[j*V:(j+1)*V], 1, s.act, 1)
		}
	}
	for i, f := range s.act {
		x := 0.0
		if rng.Float64(r) < sigmoid(tb*f+(1-t)*p.a[i]) {
			x = 1
		}
		if d := x - s.v[i]; d != 0 {
			s.v[i] = x
			if k%refreshEvery != 0 {
				impl.Daxpy(H, d, p.r.W[i*H:(i+1)*H], 1, s.phi, 1)
			}
		}
	}
	if k%refreshEvery == 0 {
		p.setPhi(s)
	}
}

// FreeEnergies are ln f_beta(v) = -beta F(v) = beta b.v + sum_j
// softplus(beta phi_j(v)) of each row of v (0/1 visible units): the
// exact log marginal weight with the hidden units summed out, so that ln
// p(v) = ln f_beta(v) - ln Z(beta).
func FreeEnergies(r *model.RBM, beta float64, rows [][]uint8) []float64 {
	out := make([]float64, len(rows))
	phi := make([]float64, r.H)
	for n, row := range rows {
		copy(phi, r.C)
		bv := 0.0
		for i, x := range row {
			if x != 0 {
				bv += r.B[i]
				impl.Daxpy(r.H, 1, r.W[i*r.H:(i+1)*r.H], 1, phi, 1)
			}
		}
		l := beta * bv
		for _, f := range phi {
			l += softplus(beta * f)
		}
		out[n] = l
	}
	return out
}

// BaseRateFromData are the base-rate model's biases fitted to rows of
// visible units (Salakhutdinov and Murray 2008): the log-odds of each
// unit's mean, smoothed as (count + 1) / (rows + 2) so that a unit always
// or never on in the data keeps a finite bias.
func BaseRateFromData(v int, rows [][]uint8) []float64 {
	a := make([]float64, v)
	for i := range a {
		c := 0
		for _, row := range rows {
			c += int(row[i])
		}
		q := (float64(c) + 1) / (float64(len(rows)) + 2)
		a[i] = math.Log(q / (1 - q))
	}
	return a
}
