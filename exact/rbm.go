package exact

import (
	"math"
	"math/bits"

	"sardonics/model"
)

// centred are the sums sum r (mu - c) and sum r (v + (mu - c)^2) over
// states of weight r in which a quantity has conditional mean mu and
// variance v: its moments about c (law of total variance).
type centred struct {
	c      float64
	s1, s2 neumaier
}

func (m *centred) add(r, mu, v float64) {
	d := mu - m.c
	m.s1.Add(r * d)
	m.s2.Add(r * (v + d*d))
}

// shift moves the centre from c to c2 (exact binomial identity), s0 being
// the sum of the weights.
func (m *centred) shift(c2, s0 float64) {
	d := m.c - c2
	s1 := m.s1.Sum()
	m.s2.Add(2*d*s1 + d*d*s0)
	m.s1.Add(d * s0)
	m.c = c2
}

func (m *centred) scale(f float64) {
	m.s1.Scale(f)
	m.s2.Scale(f)
}

// merge adds o's sums, about the same centre and on the same scale.
func (m *centred) merge(o *centred) {
	m.s1.Add(o.s1.Sum())
	m.s2.Add(o.s2.Sum())
}

// moments are the mean and variance, z being the sum of the weights.
func (m *centred) moments(z float64) (mean, vr float64) {
	md := m.s1.Sum() / z
	return m.c + md, math.Max(0, m.s2.Sum()/z-md*md)
}

// rbmSums are one chunk's sums over enumerated states x, each weighted by
// r(x) = exp(logw(x) - l), logw being the log marginal weight with the other
// layer summed out: the moments of E, M and |M| (each about its own
// centre), and the means of the units.
type rbmSums struct {
	l          float64
	s0         neumaier
	e, mag, ab centred
	xs, ys     []neumaier // sum r x_i, sum r P(y_j = 1 | x)
	marg       *rbmMarginals
}

// shift moves the centres to those of o.
func (s *rbmSums) shift(o *rbmSums) {
	s0 := s.s0.Sum()
	s.e.shift(o.e.c, s0)
	s.mag.shift(o.mag.c, s0)
	s.ab.shift(o.ab.c, s0)
}

func (s *rbmSums) scale(f float64) {
	s.s0.Scale(f)
	s.e.scale(f)
	s.mag.scale(f)
	s.ab.scale(f)
	for i := range s.xs {
		s.xs[i].Scale(f)
	}
	for j := range s.ys {
		s.ys[j].Scale(f)
	}
	if s.marg != nil {
		s.marg.scale(f)
	}
}

// rbmMarginals are one chunk's sums of r s_i (x layer), r t_j and
// r s_i t_j (pairs, i major), t_j = E[s_j | x] = tanh(beta phi_j / 2) for
// the summed-out layer. The pairs are accumulated lazily, as
// lazyMarginals does: s_i is constant between its flips, so a run of it
// adds s_i times the change of sum r t_j over the run, O(m) per flip
// rather than O(n m) per state. The running sums are kept relative to the
// chunk's largest weight so far, and settled and restarted (flush) when
// it changes.
type rbmMarginals struct {
	n, m         int
	r            ddsum   // sum r over the run so far
	t            []ddsum // sum r t_j
	xAt, pairAt  []ddsum // r, and t_j, when x_i last flipped
	xs, ys, pair []neumaier
}

func newRBMMarginals(n, m int) *rbmMarginals {
	return &rbmMarginals{n: n, m: m, t: make([]ddsum, m), xAt: make([]ddsum, n), pairAt: make([]ddsum, n*m),
		xs: make([]neumaier, n), ys: make([]neumaier, m), pair: make([]neumaier, n*m)}
}

// settle adds the runs of x_i (of spin si) and of its pairs, and starts
// new ones.
func (g *rbmMarginals) settle(i int, si float64) {
	g.xs[i].Add(si * g.r.since(g.xAt[i]))
	g.xAt[i] = g.r
	at, acc := g.pairAt[i*g.m:(i+1)*g.m], g.pair[i*g.m:(i+1)*g.m]
	for j := range at {
		acc[j].Add(si * g.t[j].since(at[j]))
		at[j] = g.t[j]
	}
}

// add adds a state of weight r and conditional spins t.
func (g *rbmMarginals) add(r float64, t []float64) {
	g.r.add(r)
	for j, tj := range t {
		g.t[j].add(r * tj)
	}
}

// flush settles every run (x is the current state) and restarts the
// running sums from 0.
func (g *rbmMarginals) flush(x []bool) {
	for i, xi := range x {
		g.settle(i, spin(xi))
	}
	for j := range g.t {
		g.ys[j].Add(g.t[j].hi)
		g.ys[j].Add(g.t[j].lo)
	}
	g.r = ddsum{}
	clear(g.t)
	clear(g.xAt)
	clear(g.pairAt)
}

// scale scales the settled sums (flushed first).
func (g *rbmMarginals) scale(f float64) {
	for _, a := range [][]neumaier{g.xs, g.ys, g.pair} {
		for k := range a {
			a[k].Scale(f)
		}
	}
}

// merge adds o's settled sums, on the same scale.
func (g *rbmMarginals) merge(o *rbmMarginals) {
	for k, a := range [][]neumaier{g.xs, g.ys, g.pair} {
		b := [][]neumaier{o.xs, o.ys, o.pair}[k]
		for i := range a {
			a[i].Add(b[i].Sum())
		}
	}
}

func spin(x bool) float64 {
	if x {
		return 1
	}
	return -1
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
// Likewise for M = sum of the N = n + m spins s = 2 x - 1: with u = sum_i
// x_i and K = sum_j y_j, M = 2 (u + K) - N, so
//
//	E[M | x] = 2u - n + sum_j t_j (t_j = 2 p_j - 1),  Var[M | x] = 4 sum_j p_j (1 - p_j).
//
// |M| needs the law of K, a Poisson binomial: with M^+ and M^- the
// positive and negative parts (M = M^+ - M^-, |M| = M^+ + M^-) and c = N/2
// - u, E[M^- | x] = 2 E[(c - K)^+], the mean of the lower tail of K
// (tailMean). Only the tail on the minority side is computed (that of
// M^- when E[M | x] >= 0, else that of M^+ through m - K), so that the
// other part follows without cancellation, and
//
//	E[|M| | x] = E[M^+] + E[M^-],  Var[|M| | x] = Var[M | x] - 4 E[M^+] E[M^-]
//
// (E|M|^2 - (E M)^2 = (E|M| - E M)(E|M| + E M)). The tail costs O(m) per
// value of K below the threshold: up to O(m^2 / 2) per state, several
// times the rest of the state's work once m reaches hundreds.
func enumerateRBM(r *model.RBM, beta float64, marginals bool, stop *control) *Result {
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
		parts[c] = rbmChunk(n, m, a, cb, w, beta, uint64(c), n-t, marginals, stop)
	})

	g := rbmSums{l: math.Inf(-1), xs: make([]neumaier, n), ys: make([]neumaier, m)}
	if marginals {
		g.marg = newRBMMarginals(n, m)
	}
	for _, p := range parts {
		if p.l > g.l {
			g.l = p.l
			g.e.c, g.mag.c, g.ab.c = p.e.c, p.mag.c, p.ab.c
		}
	}
	for _, p := range parts {
		p.shift(&g)
		p.scale(math.Exp(p.l - g.l))
		g.s0.Add(p.s0.Sum())
		g.e.merge(&p.e)
		g.mag.merge(&p.mag)
		g.ab.merge(&p.ab)
		for i := range p.xs {
			g.xs[i].Add(p.xs[i].Sum())
		}
		for j := range p.ys {
			g.ys[j].Add(p.ys[j].Sum())
		}
		if marginals {
			g.marg.merge(p.marg)
		}
	}
	z := g.s0.Sum()
	res := &Result{
		Variables: r.V + r.H,
		Beta:      beta,
		LnZ:       g.l + math.Log(z),
	}
	res.EnergyMean, res.EnergyVar = g.e.moments(z)
	res.mag.meanM, res.mag.varM = g.mag.moments(z)
	res.mag.meanA, res.mag.varA = g.ab.moments(z)
	vis := g.ys
	if visibleX {
		vis = g.xs
	}
	res.VisibleMeans = make([]float64, len(vis))
	for i := range vis {
		res.VisibleMeans[i] = vis[i].Sum() / z
	}
	if marginals {
		rbmMarginalsOf(res, r, g.marg, visibleX, z)
	}
	return res
}

// rbmMarginalsOf sets res's marginals in the Ising form's order (visible
// units, then hidden) and its pairs' (model.Model.Pairs: visible i major)
// from the sums g over x (the visible layer if visibleX).
func rbmMarginalsOf(res *Result, r *model.RBM, g *rbmMarginals, visibleX bool, z float64) {
	spins := append(append([]neumaier(nil), g.xs...), g.ys...)
	if !visibleX {
		spins = append(append(spins[:0:0], g.ys...), g.xs...)
	}
	pi, pj := make([]int32, 0, r.V*r.H), make([]int32, 0, r.V*r.H)
	pair := make([]neumaier, 0, r.V*r.H)
	for i := range r.V {
		for j := range r.H {
			pi, pj = append(pi, int32(i)), append(pj, int32(r.V+j))
			if visibleX {
				pair = append(pair, g.pair[i*g.m+j])
			} else {
				pair = append(pair, g.pair[j*g.m+i])
			}
		}
	}
	res.setMarginals(spins, pair, pi, pj, z)
}

// rbmChunk enumerates x in Gray-code order over bits 0..low-1, the bits
// above fixed by top. Fields phi are updated by one row per flip and
// recomputed from scratch every refresh states.
func rbmChunk(n, m int, a, cb, w []float64, beta float64, top uint64, low int, marginals bool, stop *control) rbmSums {
	s := rbmSums{l: math.Inf(-1), xs: make([]neumaier, n), ys: make([]neumaier, m)}
	if marginals {
		s.marg = newRBMMarginals(n, m)
	}
	x := make([]bool, n)
	phi := make([]float64, m)
	p, q, tj := make([]float64, m), make([]float64, m), make([]float64, m)
	scratch := make([]float64, m+1)
	ax := 0.0
	up := 0 // sum_i x_i
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
		if x[i] {
			up++
		}
	}
	fresh()
	for k := uint64(0); k < 1<<low; k++ {
		if k&(stopCheck>>6) == 0 && stop != nil && stop.check(stopCheck>>6+1) { // rows cost ~m: look more often
			return s
		}
		if k > 0 {
			i := bits.TrailingZeros64(k)
			if s.marg != nil {
				s.marg.settle(i, spin(x[i]))
			}
			x[i] = !x[i]
			if x[i] {
				up++
			} else {
				up--
			}
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
		tsum, pq := 0.0, 0.0
		for j, f := range phi {
			z := beta * f
			e := math.Exp(-math.Abs(z))
			var pj, qj, t float64
			if z >= 0 {
				logw += z + math.Log1p(e)
				pj = 1 / (1 + e)
				qj, t = e*pj, (1-e)*pj
			} else {
				logw += math.Log1p(e)
				pj = e / (1 + e)
				qj = 1 / (1 + e)
				t = -(1 - e) * qj
			}
			p[j], q[j], tj[j] = pj, qj, t
			mean -= pj * f
			vr += f * f * pj * (1 - pj)
			tsum += t
			pq += pj * qj
		}
		// M given x: mean, variance, and the means of its two parts.
		muM, vM := float64(2*up-n)+tsum, 4*pq
		c := float64(n+m)/2 - float64(up)
		var mPlus, mMinus float64
		if muM >= 0 {
			mMinus = 2 * tailMean(p, q, c, scratch)
			mPlus = muM + mMinus
		} else {
			mPlus = 2 * tailMean(q, p, float64(m)-c, scratch)
			mMinus = mPlus - muM
		}
		muA, vA := mPlus+mMinus, math.Max(0, vM-4*mPlus*mMinus)
		if logw > s.l {
			// A new largest weight: rescale what was summed so far and
			// centre the moments on this state's conditional means.
			if !math.IsInf(s.l, -1) {
				s.shift(&rbmSums{e: centred{c: mean}, mag: centred{c: muM}, ab: centred{c: muA}})
				if s.marg != nil {
					s.marg.flush(x)
				}
				s.scale(math.Exp(s.l - logw))
			}
			s.l, s.e.c, s.mag.c, s.ab.c = logw, mean, muM, muA
		}
		rw := math.Exp(logw - s.l)
		s.s0.Add(rw)
		s.e.add(rw, mean, vr)
		s.mag.add(rw, muM, vM)
		s.ab.add(rw, muA, vA)
		for i, xi := range x {
			if xi {
				s.xs[i].Add(rw)
			}
		}
		for j, pj := range p {
			s.ys[j].Add(rw * pj)
		}
		if s.marg != nil {
			s.marg.add(rw, tj)
		}
	}
	if s.marg != nil {
		s.marg.flush(x)
	}
	return s
}
