package exact

import "math"

// The observables of `sardonics sample` (summary/observables.go), exact:
// with N = Result.Variables spins of the model's Ising form (an RBM's
// visible and hidden units together, as +-1) and M = sum_i s_i,
//
//   - m = M/N and |m|, their means under pi;
//   - C = beta^2 Var(E) / N;
//   - chi = beta N Var(x) = beta Var(X) / N, x = |m| (X = |M|) when every
//     field of the Ising form is zero (model.Model.ZeroField, the rule
//     sample uses), else x = m (X = M);
//   - with Options.Marginals, <s_i> of every spin and <s_i s_j> of every
//     pair of model.Model.Pairs (sample --marginals's pairs, in its order).
//
// Ising and QUBO models get the distribution of the number u of up spins
// (M = 2u - N) from the enumeration's pass, exactly as the energy's: per
// energy level, the count of its states with u spins up. RBMs take the
// conditional moments of M and |M| given the enumerated layer (see
// enumerateRBM). The marginals need each state's weight, so Ising models
// get them from a pass of per-state weights (perStatePass), accumulated
// lazily (lazyMarginals): O(degree) per flip, not O(pairs) per state.

// magMoments are the mean and variance of M and of |M|.
type magMoments struct {
	meanM, varM, meanA, varA float64
}

// upMoments are the moments of M = 2u - n under pu, the weights of the
// numbers u = 0..n of up spins (normalized here): means first, then the
// variances about them (two passes, compensated), so that a variance far
// below M^2 keeps its precision.
func upMoments(pu []float64) magMoments {
	n := len(pu) - 1
	var z, sm, sa neumaier
	for u, p := range pu {
		x := float64(2*u - n)
		z.Add(p)
		sm.Add(p * x)
		sa.Add(p * math.Abs(x))
	}
	zs := z.Sum()
	mo := magMoments{meanM: sm.Sum() / zs, meanA: sa.Sum() / zs}
	var vm, va neumaier
	for u, p := range pu {
		x := float64(2*u - n)
		dm, da := x-mo.meanM, math.Abs(x)-mo.meanA
		vm.Add(p * dm * dm)
		va.Add(p * da * da)
	}
	mo.varM, mo.varA = vm.Sum()/zs, va.Sum()/zs
	return mo
}

// setObservables sets res's observables from the moments of M, res's
// energy variance and whether the model's fields vanish.
func (res *Result) setObservables(mo magMoments, zeroField bool) {
	n := float64(res.Variables)
	res.Magnetization = mo.meanM / n
	res.AbsMagnetization = mo.meanA / n
	// beta (beta Var E), not beta^2 Var E: a beta whose square overflows
	// times a variance of 0 is 0, not NaN.
	res.SpecificHeat = res.Beta * (res.Beta * res.EnergyVar) / n
	v := mo.varM
	res.SusceptibilityOf = "m"
	if zeroField {
		v, res.SusceptibilityOf = mo.varA, "|m|"
	}
	res.Susceptibility = res.Beta * v / n
}

// setMarginals sets res.Marginals and res.Correlations from the sums of
// w s_i (spins) and w s_i s_j (pairs, in the order of pi, pj), z being
// the sum of the weights w.
func (res *Result) setMarginals(spins, pairs []neumaier, pi, pj []int32, z float64) {
	res.Marginals = make([]float64, len(spins))
	for i := range spins {
		res.Marginals[i] = spins[i].Sum() / z
	}
	res.Correlations = make([][3]float64, len(pairs))
	for k := range pairs {
		res.Correlations[k] = [3]float64{float64(pi[k]), float64(pj[k]), pairs[k].Sum() / z}
	}
}

// ddsum is a running sum kept as an unevaluated pair hi + lo (Knuth's
// TwoSum: lo holds hi's rounding errors), so that the difference of two of
// its values is the sum of the terms added between them to within the
// rounding of that difference itself, however large the running total:
// hi - hi' rounds relative to its own size, and lo - lo' is far smaller.
type ddsum struct{ hi, lo float64 }

func (s *ddsum) add(x float64) {
	t := s.hi + x
	b := t - s.hi
	s.lo += (s.hi - (t - b)) + (x - b)
	s.hi = t
}

// since is s - a: what was added since s was a.
func (s ddsum) since(a ddsum) float64 { return (s.hi - a.hi) + (s.lo - a.lo) }

// pairList is model.Model.Pairs with, for each spin, the pairs it is in
// (CSR: spin i's are inc[start[i]:start[i+1]]).
type pairList struct {
	pi, pj     []int32
	start, inc []int32
}

func newPairList(n int, pi, pj []int32) *pairList {
	p := &pairList{pi: pi, pj: pj, start: make([]int32, n+1), inc: make([]int32, 2*len(pi))}
	for k := range pi {
		p.start[pi[k]+1]++
		p.start[pj[k]+1]++
	}
	for i := range n {
		p.start[i+1] += p.start[i]
	}
	next := append([]int32(nil), p.start[:n]...)
	for k := range pi {
		for _, i := range [2]int32{pi[k], pj[k]} {
			p.inc[next[i]] = int32(k)
			next[i]++
		}
	}
	return p
}

// lazyMarginals accumulates sum_x w(x) s_i(x) and sum_x w(x) s_i(x) s_j(x)
// over a Gray-code walk at O(degree) per flip rather than O(N + pairs) per
// state: a spin, or a pair's product, is constant between flips of its
// spins, so each run of it is added once, times the weight accumulated
// over the run (a difference of the running sum cum).
type lazyMarginals struct {
	p              *pairList
	s              []int8 // the spins of the current state
	cum            ddsum  // the weights of the states visited so far
	spinAt, pairAt []ddsum
	spin, pair     []neumaier
}

func newLazyMarginals(p *pairList, s []int8) *lazyMarginals {
	return &lazyMarginals{p: p, s: s, spinAt: make([]ddsum, len(s)), pairAt: make([]ddsum, len(p.pi)),
		spin: make([]neumaier, len(s)), pair: make([]neumaier, len(p.pi))}
}

// settle adds the runs of spin i and of its pairs up to now, and starts
// new ones.
func (l *lazyMarginals) settle(i int) {
	l.spin[i].Add(float64(l.s[i]) * l.cum.since(l.spinAt[i]))
	l.spinAt[i] = l.cum
	for _, k := range l.p.inc[l.p.start[i]:l.p.start[i+1]] {
		l.pair[k].Add(float64(l.s[l.p.pi[k]]*l.s[l.p.pj[k]]) * l.cum.since(l.pairAt[k]))
		l.pairAt[k] = l.cum
	}
}

// flip flips spin i, before the new state's weight is added.
func (l *lazyMarginals) flip(i int) {
	l.settle(i)
	l.s[i] = -l.s[i]
}

// finish settles every run, after the last state's weight.
func (l *lazyMarginals) finish() {
	for i := range l.s {
		l.settle(i)
	}
}

// spinsOf sets s_i = +1 exactly when bit i of idx is set.
func spinsOf(s []int8, idx uint64) []int8 {
	for i := range s {
		s[i] = int8(2*((idx>>i)&1)) - 1
	}
	return s
}

// tailMean is E[(c - K)^+] for K the number of successes of independent
// trials with success probabilities p_j and failure probabilities q_j
// (given apart, each to full precision): the Poisson-binomial law of K
// below c by the recurrence P'(k) = P(k) q_j + P(k-1) p_j over the
// ceil(c) values k < c only, whose terms are all positive, in
// O(len(p) ceil(c)); f is scratch of at least len(p)+1 values. Trials are
// taken two at a time (P'(k) = P(k) q q' + P(k-1) (p q' + q p') + P(k-2)
// p p'), which halves the sweeps.
func tailMean(p, q []float64, c float64, f []float64) float64 {
	l := min(int(math.Ceil(c)), len(p)+1)
	if l <= 0 {
		return 0
	}
	f = f[:l]
	clear(f)
	f[0] = 1
	top := 0 // f[k] = 0 for k > top
	j := 0
	for ; j+1 < len(p); j += 2 {
		a0, a1, a2 := q[j]*q[j+1], p[j]*q[j+1]+q[j]*p[j+1], p[j]*p[j+1]
		top = min(top+2, l-1)
		g := f[:top+1]
		for k := len(g) - 1; k >= 2; k-- {
			g[k] = g[k]*a0 + g[k-1]*a1 + g[k-2]*a2
		}
		if len(g) > 1 {
			g[1] = g[1]*a0 + g[0]*a1
		}
		g[0] *= a0
	}
	if j < len(p) {
		pj, qj := p[j], q[j]
		top = min(top+1, l-1)
		g := f[:top+1]
		for k := len(g) - 1; k >= 1; k-- {
			g[k] = g[k]*qj + g[k-1]*pj
		}
		g[0] *= qj
	}
	t := 0.0
	for k, v := range f {
		t += (c - float64(k)) * v
	}
	return t
}
