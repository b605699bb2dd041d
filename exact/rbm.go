package exact

import (
	"math"
	"math/bits"

	"sardonics/model"
)

// rbmSums are one chunk's sums over enumerated states x, each weighted by
// r(x) = exp(logw(x) - l), logw being the log marginal weight with the other
// layer summed out. Energy moments are taken about c.
type rbmSums struct {
	l, c   float64
	s0     neumaier
	s1, s2 neumaier   // sum r (m(x)-c), sum r (v(x) + (m(x)-c)^2)
	xs, ys []neumaier // sum r x_i, sum r P(y_j = 1 | x)
}

// shift moves the centre of the moments from c to c2 (exact binomial identity).
func (s *rbmSums) shift(c2 float64) {
	d := s.c - c2
	s0, s1 := s.s0.Sum(), s.s1.Sum()
	s.s2.Add(2*d*s1 + d*d*s0)
	s.s1.Add(d * s0)
	s.c = c2
}

func (s *rbmSums) scale(f float64) {
	s.s0.Scale(f)
	s.s1.Scale(f)
	s.s2.Scale(f)
	for i := range s.xs {
		s.xs[i].Scale(f)
	}
	for j := range s.ys {
		s.ys[j].Scale(f)
	}
}

// enumerateRBM enumerates the smaller layer x (size n) and sums the other
// layer y (size m) out. With phi_j(x) = c_j + sum_i x_i W_ij the field on y_j,
//
//	sum_y exp(-beta E(x,y)) = exp(beta a.x) prod_j (1 + exp(beta phi_j)),
//
// y_j given x is Bernoulli(p_j), p_j = sigmoid(beta phi_j), independently, and
// E = -a.x - sum_j y_j phi_j, so
//
//	E[E | x] = -a.x - sum_j p_j phi_j,  Var[E | x] = sum_j phi_j^2 p_j (1 - p_j),
//
// and by the law of total variance Var E = E_x[Var[E|x]] + Var_x(E[E|x]).
func enumerateRBM(r *model.RBM, beta float64, stop *control) *Result {
	// Orient so that x is the smaller layer; E is symmetric under swapping
	// (v, b) with (h, c) and W with its transpose.
	n, m := r.V, r.H
	a, cb := r.B, r.C
	w := r.W
	visibleX := true
	if r.H < r.V {
		n, m = r.H, r.V
		a, cb = r.C, r.B
		w = make([]float64, n*m)
		for i := 0; i < r.V; i++ {
			for j := 0; j < r.H; j++ {
				w[j*m+i] = r.W[i*r.H+j]
			}
		}
		visibleX = false
	}
	t := splitBits(n, 10)
	chunks := 1 << t
	parts := make([]rbmSums, chunks)
	parallel(chunks, func(c int) {
		parts[c] = rbmChunk(n, m, a, cb, w, beta, uint64(c), n-t, stop)
	})

	g := rbmSums{l: math.Inf(-1), xs: make([]neumaier, n), ys: make([]neumaier, m)}
	for _, p := range parts {
		if p.l > g.l {
			g.l, g.c = p.l, p.c
		}
	}
	for _, p := range parts {
		p.shift(g.c)
		p.scale(math.Exp(p.l - g.l))
		g.s0.Add(p.s0.Sum())
		g.s1.Add(p.s1.Sum())
		g.s2.Add(p.s2.Sum())
		for i := range p.xs {
			g.xs[i].Add(p.xs[i].Sum())
		}
		for j := range p.ys {
			g.ys[j].Add(p.ys[j].Sum())
		}
	}
	z := g.s0.Sum()
	md := g.s1.Sum() / z
	res := &Result{
		Variables:  r.V + r.H,
		Beta:       beta,
		LnZ:        g.l + math.Log(z),
		EnergyMean: g.c + md,
		EnergyVar:  math.Max(0, g.s2.Sum()/z-md*md),
	}
	vis := g.ys
	if visibleX {
		vis = g.xs
	}
	res.VisibleMeans = make([]float64, len(vis))
	for i := range vis {
		res.VisibleMeans[i] = vis[i].Sum() / z
	}
	return res
}

// rbmChunk enumerates x in Gray-code order over bits 0..low-1, the bits
// above fixed by top. Fields phi are updated by one row per flip and
// recomputed from scratch every refresh states.
func rbmChunk(n, m int, a, cb, w []float64, beta float64, top uint64, low int, stop *control) rbmSums {
	s := rbmSums{l: math.Inf(-1), xs: make([]neumaier, n), ys: make([]neumaier, m)}
	x := make([]bool, n)
	phi := make([]float64, m)
	p := make([]float64, m)
	ax := 0.0
	fresh := func() {
		copy(phi, cb)
		ax = 0
		for i := range x {
			if x[i] {
				ax += a[i]
				row := w[i*m : (i+1)*m]
				for j := range phi {
					phi[j] += row[j]
				}
			}
		}
	}
	for i := low; i < n; i++ {
		x[i] = (top>>(i-low))&1 == 1
	}
	fresh()
	for k := uint64(0); k < 1<<low; k++ {
		if k&(stopCheck>>6) == 0 && stop != nil && stop.check(stopCheck>>6+1) { // rows cost ~m: look more often
			return s
		}
		if k > 0 {
			i := bits.TrailingZeros64(k)
			x[i] = !x[i]
			if k%refresh == 0 {
				fresh()
			} else {
				row := w[i*m : (i+1)*m]
				sign := -1.0
				if x[i] {
					sign = 1
				}
				ax += sign * a[i]
				for j := range phi {
					phi[j] += sign * row[j]
				}
			}
		}
		logw := beta * ax
		mean, vr := -ax, 0.0
		for j, f := range phi {
			z := beta * f
			e := math.Exp(-math.Abs(z))
			var pj float64
			if z >= 0 {
				logw += z + math.Log1p(e)
				pj = 1 / (1 + e)
			} else {
				logw += math.Log1p(e)
				pj = e / (1 + e)
			}
			p[j] = pj
			mean -= pj * f
			vr += f * f * pj * (1 - pj)
		}
		if logw > s.l {
			// A new largest weight: rescale what was summed so far and
			// centre the moments on this state's conditional mean energy.
			if !math.IsInf(s.l, -1) {
				s.shift(mean)
				s.scale(math.Exp(s.l - logw))
			}
			s.l, s.c = logw, mean
		}
		rw := math.Exp(logw - s.l)
		d := mean - s.c
		s.s0.Add(rw)
		s.s1.Add(rw * d)
		s.s2.Add(rw * (vr + d*d))
		for i, xi := range x {
			if xi {
				s.xs[i].Add(rw)
			}
		}
		for j, pj := range p {
			s.ys[j].Add(rw * pj)
		}
	}
	return s
}
