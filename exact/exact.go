package exact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"sardonics/model"
)

const (
	// MaxProbs is the largest model Probs tabulates (2^24 float64 = 128 MiB).
	MaxProbs = 24
	// MaxEnumerate is the largest number of enumerated variables.
	MaxEnumerate = 30
	// maxDistinct is the number of distinct energies reported exactly;
	// beyond it the distribution is binned into nBins equal-width bins.
	maxDistinct = 2000
	nBins       = 200
	// rawCap bounds the density-of-states table built during enumeration;
	// models with more distinct (quantized) energies fall back to a second
	// pass with per-state weights.
	rawCap = 1 << 14
	// refresh is how often (in states) energies and fields are recomputed
	// from scratch, so that incremental rounding never accumulates.
	refresh = 1 << 12
	// groupTol is the relative tolerance within which energies count as equal.
	groupTol = 1e-9
)

// Result holds the exact statistics of pi(x) proportional to exp(-beta E(x)).
type Result struct {
	Variables  int     `json:"variables"`
	Beta       float64 `json:"beta"`
	LnZ        float64 `json:"ln_z"`
	EnergyMean float64 `json:"energy_mean"`
	EnergyVar  float64 `json:"energy_var"`
	// EnergyDistribution is [[E, p], ...] sorted by E: every distinct energy
	// when there are at most 2000 of them, else 200 equal-width bins between
	// the lowest and highest energy, E being the bin centre. It is nil for
	// RBMs with more than 24 variables in all (see Enumerate).
	EnergyDistribution [][2]float64 `json:"energy_distribution"`
	// VisibleMeans are the marginal means of the visible bits (RBMs only).
	VisibleMeans []float64 `json:"visible_means,omitempty"`
	// The observables sample reports (see observables.go), with N =
	// Variables spins of the Ising form and M = sum_i s_i.
	Magnetization    float64 `json:"magnetization"`     // <m>, m = M/N
	AbsMagnetization float64 `json:"abs_magnetization"` // <|m|>
	SpecificHeat     float64 `json:"specific_heat"`     // beta^2 Var(E) / N
	Susceptibility   float64 `json:"susceptibility"`    // beta N Var(m or |m|)
	// SusceptibilityOf is "|m|" when every field of the Ising form is
	// zero, else "m" (as in sample's summary.json).
	SusceptibilityOf string `json:"susceptibility_of"`
	// Marginals are <s_i> of the N spins and Correlations [i, j, <s_i
	// s_j>] of the pairs of model.Model.Pairs, in that order (sample
	// --marginals's correlations.npy without the error column); only
	// with Options.Marginals.
	Marginals    []float64    `json:"marginals,omitempty"`
	Correlations [][3]float64 `json:"correlations,omitempty"`

	mag magMoments // the moments of M, for setObservables
}

func checkBeta(beta float64) error {
	if math.IsNaN(beta) || math.IsInf(beta, 0) {
		return fmt.Errorf("beta is %v (expected a finite number)", beta)
	}
	return nil
}

// Probs returns the normalized probability of every state of m at inverse
// temperature beta, indexed as in stattest.Enumerate: state k has s_i = +1
// exactly when bit i of k is set. It refuses models with more than 24 spins.
func Probs(m *model.Ising, beta float64) ([]float64, error) {
	if m == nil {
		return nil, errors.New("exact: nil model")
	}
	if err := checkBeta(beta); err != nil {
		return nil, err
	}
	if m.N > MaxProbs {
		return nil, fmt.Errorf("model has %d variables (expected at most %d for a table of state probabilities)", m.N, MaxProbs)
	}
	p := make([]float64, 1<<m.N)
	grayWalk(m, 0, m.N, nil, func(idx uint64, e float64) { p[idx] = e })
	// The state of largest weight, of energy ref, sets the scale, so every
	// weight exp(-beta (E - ref)) is at most 1 (0 where beta (E - ref)
	// overflows).
	ref := p[0]
	for _, e := range p {
		if beta*(e-ref) < 0 {
			ref = e
		}
	}
	var z neumaier
	for i, e := range p {
		p[i] = math.Exp(-beta * (e - ref))
		z.Add(p[i])
	}
	inv := 1 / z.Sum()
	for i := range p {
		p[i] *= inv
	}
	return p, nil
}

// grayWalk visits the 2^low states whose spins low..N-1 are fixed by the
// bits of top, in Gray-code order over spins 0..low-1, calling visit with the
// state index and its energy. The energy is updated by one local field per
// state and recomputed from scratch every refresh states.
//
// It returns early, leaving states unvisited, once stop (if not nil) is
// raised: the caller then discards the whole result.
func grayWalk(m *model.Ising, top uint64, low int, stop *control, visit func(idx uint64, e float64)) {
	s := make([]int8, m.N)
	idx := top << low
	for i := range s {
		s[i] = int8(2*((idx>>i)&1)) - 1
	}
	e := m.Energy(s)
	visit(idx, e)
	for k := uint64(1); k < 1<<low; k++ {
		if k&stopCheck == 0 && stop != nil && stop.check(stopCheck+1) {
			return
		}
		i := bits.TrailingZeros64(k)
		if k%refresh == 0 {
			s[i] = -s[i]
			e = m.Energy(s)
		} else {
			e += 2 * float64(s[i]) * m.Field(s, i)
			s[i] = -s[i]
		}
		idx ^= 1 << i
		visit(idx, e)
	}
}

// Enumerate computes the exact statistics of m at inverse temperature beta.
// Ising and QUBO models need M <= 30; RBMs (m.RBM != nil) need
// min(V, H) <= 30 and get VisibleMeans. For RBMs the energy distribution is
// computed (from the Ising form) only when V + H <= 24, since summing a layer
// out gives the moments of E but not its distribution.
func Enumerate(m *model.Model, beta float64) (*Result, error) {
	return EnumerateContext(context.Background(), m, beta)
}

// Options are an enumeration's choices beyond the model and beta; the
// zero value computes everything but the marginals, silently.
type Options struct {
	// Marginals adds Result.Marginals and Result.Correlations. An Ising
	// or QUBO model takes one more pass for them, of O(1 + degree) per
	// state; an RBM O(larger layer) more per state, in its one pass.
	Marginals bool
	// Progress, if not nil, is called every Interval (from another
	// goroutine) with the states visited so far, over all passes (see
	// PassStates), and the time since the enumeration started.
	Progress func(visited int64, elapsed time.Duration)
	Interval time.Duration
}

// control is what the caller of an enumeration shares with its workers:
// the flag that abandons it and the states visited so far (counted at
// every stop check), for progress.
type control struct {
	halt    atomic.Bool
	visited atomic.Int64
}

// check counts n states visited since the last check and reports whether
// the enumeration is abandoned.
func (c *control) check(n int64) bool {
	c.visited.Add(n)
	return c.halt.Load()
}

// PassStates is the number of states one pass of m's enumeration visits:
// 2^M for Ising and QUBO models, 2^min(V, H) for RBMs (the other layer
// summed out). An Ising enumeration makes a second, per-state pass when
// its energy levels are too many to keep or the marginals are asked for;
// an RBM with V + H <= 24 also enumerates its Ising form for the energy
// distribution.
func PassStates(m *model.Model) float64 {
	if m.RBM != nil {
		return math.Exp2(float64(min(m.RBM.V, m.RBM.H)))
	}
	return math.Exp2(float64(m.Variables()))
}

// stopCheck masks the state counts at which an enumeration looks at its
// stop flag: every 2^16 states, well under a millisecond.
const stopCheck = 1<<16 - 1

// EnumerateContext is Enumerate, abandoned (with ctx's error) soon after
// ctx is done: a 30-variable model stops within milliseconds.
func EnumerateContext(ctx context.Context, m *model.Model, beta float64) (*Result, error) {
	return EnumerateOptions(ctx, m, beta, Options{})
}

// EnumerateOptions is EnumerateContext with the choices of opt.
func EnumerateOptions(ctx context.Context, m *model.Model, beta float64, opt Options) (*Result, error) {
	progress, interval := opt.Progress, opt.Interval
	var stop control
	defer context.AfterFunc(ctx, func() { stop.halt.Store(true) })()
	if progress != nil && interval > 0 {
		start, quit := time.Now(), make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for {
				select {
				case <-quit:
					return
				case <-tick.C:
					progress(stop.visited.Load(), time.Since(start))
				}
			}
		}()
		defer func() { close(quit); wg.Wait() }()
	}
	res, err := enumerate(m, beta, opt.Marginals, &stop)
	if stop.halt.Load() { // an abandoned enumeration's sums mean nothing
		return nil, ctx.Err()
	}
	return res, err
}

func enumerate(m *model.Model, beta float64, marginals bool, stop *control) (*Result, error) {
	if m == nil || (m.Ising == nil && m.Dense == nil && m.RBM == nil) {
		return nil, errors.New("exact: empty model")
	}
	if err := checkBeta(beta); err != nil {
		return nil, err
	}
	if m.RBM != nil {
		r := m.RBM
		if min(r.V, r.H) > MaxEnumerate {
			return nil, fmt.Errorf("RBM is %d x %d (expected the smaller layer to have at most %d units for exact enumeration)", r.V, r.H, MaxEnumerate)
		}
		res := enumerateRBM(r, beta, marginals, stop)
		if r.V+r.H <= MaxProbs {
			full := enumerateIsing(m.Sparse(), beta, nil, stop)
			res.EnergyDistribution = full.EnergyDistribution
		}
		res.setObservables(res.mag, m.ZeroField())
		return checkFinite(res)
	}
	if n := m.Variables(); n > MaxEnumerate {
		return nil, fmt.Errorf("model has %d variables (expected at most %d for exact enumeration)", n, MaxEnumerate)
	}
	var pairs *pairList
	if marginals {
		pi, pj := m.Pairs()
		pairs = newPairList(m.Variables(), pi, pj)
	}
	res := enumerateIsing(m.Sparse(), beta, pairs, stop)
	res.setObservables(res.mag, m.ZeroField())
	return checkFinite(res)
}

// checkFinite refuses a result that float64 cannot hold: ln Z is beta
// times an energy plus a logarithm, and overflows once beta |E| does
// (beta 1e300 on energies of 1e9), whatever the summation.
func checkFinite(res *Result) (*Result, error) {
	bad := !finite(res.LnZ) || !finite(res.EnergyMean) || !finite(res.EnergyVar) || !finite(res.SpecificHeat)
	for _, d := range res.EnergyDistribution {
		bad = bad || !finite(d[0]) || !finite(d[1])
	}
	for _, v := range res.VisibleMeans {
		bad = bad || !finite(v)
	}
	// The magnetization's moments are bounded, but an RBM's come from
	// weights that NaN would spoil as it would the energy's.
	for _, v := range append([]float64{res.Magnetization, res.AbsMagnetization, res.Susceptibility}, res.Marginals...) {
		bad = bad || !finite(v)
	}
	for _, c := range res.Correlations {
		bad = bad || !finite(c[2])
	}
	if bad {
		return nil, fmt.Errorf("ln Z or the energy moments at beta = %g overflow float64 (expected beta times the largest |energy| well below %g: use a smaller beta)",
			res.Beta, math.MaxFloat64)
	}
	return res, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// splitBits is how many top variables are fixed per chunk: 2^splitBits chunks
// run concurrently and are merged in chunk order, so results do not depend
// on the number of CPUs.
func splitBits(n, threshold int) int {
	if n >= threshold {
		return 2
	}
	return 0
}

// parallel runs f(c) for c in 0..chunks-1 on up to GOMAXPROCS goroutines.
func parallel(chunks int, f func(c int)) {
	workers := min(chunks, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				f(c)
			}
		}()
	}
	wg.Wait()
}

// level is one entry of a density of states: energy E occurs n times,
// up[u] of them with u spins up.
type level struct {
	e  float64
	n  float64
	up []float64
}

// isingChunk is what one chunk of the first pass finds.
type isingChunk struct {
	emin, emax float64
	dos        map[int64]level // nil once it overflowed rawCap
}

// enumerateIsing does one pass that records the extreme energies and, when
// there are few distinct energies (integer couplings, most models), the
// density of states, from which everything follows exactly. Otherwise a
// second pass sums per-state weights relative to the largest one; it also
// gives the marginals of pairs (nil: none).
func enumerateIsing(m *model.Ising, beta float64, pairs *pairList, stop *control) *Result {
	n := m.N
	t := splitBits(n, 16)
	chunks := 1 << t
	// Energies are keyed on a grid far finer than the grouping tolerance, so
	// that rounding differences between incremental and fresh energies do not
	// multiply the keys of one level by much.
	scale := 0.0
	for _, j := range m.J {
		scale += math.Abs(j) / 2
	}
	for _, h := range m.H {
		scale += math.Abs(h)
	}
	scale = math.Max(scale, 1e-300)
	quantum := levelGrid(scale, beta)

	parts := make([]isingChunk, chunks)
	parallel(chunks, func(c int) {
		p := isingChunk{emin: math.Inf(1), emax: math.Inf(-1), dos: make(map[int64]level)}
		grayWalk(m, uint64(c), n-t, stop, func(idx uint64, e float64) {
			p.emin = math.Min(p.emin, e)
			p.emax = math.Max(p.emax, e)
			if p.dos == nil {
				return
			}
			key := int64(math.Round((e - m.Offset) / quantum))
			l, ok := p.dos[key]
			if !ok {
				if len(p.dos) >= rawCap {
					p.dos = nil
					return
				}
				l.e, l.up = e, make([]float64, n+1)
			}
			l.n++
			l.up[bits.OnesCount64(idx)]++
			p.dos[key] = l
		})
		parts[c] = p
	})

	emin, emax := math.Inf(1), math.Inf(-1)
	merged := make(map[int64]level)
	for _, p := range parts {
		emin = math.Min(emin, p.emin)
		emax = math.Max(emax, p.emax)
		if merged == nil || p.dos == nil {
			merged = nil
			continue
		}
		keys := make([]int64, 0, len(p.dos))
		for k := range p.dos {
			keys = append(keys, k)
		}
		slices.Sort(keys) // map order is random; keep merging deterministic
		for _, k := range keys {
			l, ok := merged[k]
			if !ok {
				l.e, l.up = p.dos[k].e, make([]float64, n+1)
			}
			l.n += p.dos[k].n
			for u, c := range p.dos[k].up {
				l.up[u] += c
			}
			merged[k] = l
		}
		if len(merged) > rawCap {
			merged = nil
		}
	}
	res := &Result{Variables: n, Beta: beta}
	if merged != nil {
		levels := make([]level, 0, len(merged))
		for _, l := range merged {
			levels = append(levels, l)
		}
		slices.SortFunc(levels, func(a, b level) int { return cmp.Compare(a.e, b.e) })
		fromLevels(res, levels, beta, quantum)
		if pairs == nil || stop.halt.Load() {
			return res
		}
	}
	if stop.halt.Load() {
		return res
	}
	perStatePass(res, m, beta, t, emin, emax, merged == nil, pairs, stop)
	return res
}

// levelGrid is the spacing of the grid on which enumerated energies are
// keyed into levels, for a model whose energies lie within scale of its
// offset. It is far coarser than the rounding of incremental energies
// (about 1e-16 scale), so that rounding rarely splits a level, and so fine
// that merging energies one grid step apart changes beta E by at most
// 1e-9, so that distinct levels are not merged (energies of 1e12 one unit
// apart are two levels at beta = 1). Never below 1e-17 scale, beneath
// float64's resolution of the energies anyway, so keys stay within int64.
func levelGrid(scale, beta float64) float64 {
	g := scale * 1e-12
	if b := math.Abs(beta); b*g > 1e-9 {
		g = 1e-9 / b
	}
	return math.Max(g, scale*1e-17)
}

// fromLevels fills res from a density of states sorted by energy, keyed on
// a grid of spacing quantum.
func fromLevels(res *Result, levels []level, beta, quantum float64) {
	// Weights relative to the level of lowest (beta >= 0) or highest
	// energy, e0: beta (E - e0) >= 0 may be +Inf (a weight of 0) but
	// never -Inf, so no Inf - Inf arises, and energy differences keep
	// their precision where the energies are large.
	e0 := levels[0].e
	if beta < 0 {
		e0 = levels[len(levels)-1].e
	}
	lw := make([]float64, len(levels))
	lmax := math.Inf(-1)
	for i, l := range levels {
		lw[i] = math.Log(l.n) - beta*(l.e-e0)
		lmax = math.Max(lmax, lw[i])
	}
	p := make([]float64, len(levels))
	var z neumaier
	for i := range levels {
		p[i] = math.Exp(lw[i] - lmax)
		z.Add(p[i])
	}
	zs := z.Sum()
	// Moments of E - e0, exact differences for nearby levels, so that the
	// variance of levels 1 apart near 3e12 is not lost to rounding.
	var mean neumaier
	for i := range p {
		p[i] /= zs
		mean.Add(p[i] * (levels[i].e - e0))
	}
	md := mean.Sum()
	var v neumaier
	for i, l := range levels {
		d := (l.e - e0) - md
		v.Add(p[i] * d * d)
	}
	mu := e0 + md
	res.LnZ = -beta*e0 + (lmax + math.Log(zs))
	res.EnergyMean = mu
	res.EnergyVar = v.Sum()
	// The weight of u spins up: each level's probability shared among its
	// states in proportion to their counts (integers, exact).
	pu := make([]neumaier, len(levels[0].up))
	for i, l := range levels {
		for u, c := range l.up {
			if c > 0 {
				pu[u].Add(p[i] * (c / l.n))
			}
		}
	}
	res.mag = upMoments(sums(pu))

	// Group energies equal within the tolerance (the grid and incremental
	// rounding can split one level into neighbouring keys), but never
	// those more than 1000 grid steps (and a few ulps) apart, so that
	// levels whose weights differ stay apart however large the energies.
	var dist [][2]float64
	for i, l := range levels {
		if k := len(dist) - 1; k >= 0 {
			prev := dist[k][0]
			big := math.Max(math.Abs(prev), math.Abs(l.e))
			tol := min(groupTol*big+quantum, 1e3*quantum+1e-14*big)
			if l.e-prev <= tol {
				dist[k][1] += p[i]
				continue
			}
		}
		dist = append(dist, [2]float64{l.e, p[i]})
	}
	if len(dist) <= maxDistinct {
		res.EnergyDistribution = dist
		return
	}
	emin, emax := levels[0].e, levels[len(levels)-1].e
	bins := make([]float64, nBins)
	for i, l := range levels {
		bins[binOf(l.e, emin, emax)] += p[i]
	}
	res.EnergyDistribution = binned(bins, emin, emax)
}

func binOf(e, emin, emax float64) int {
	if !(emax > emin) {
		return 0
	}
	b := int((e - emin) / (emax - emin) * nBins)
	return max(0, min(nBins-1, b))
}

func binned(bins []float64, emin, emax float64) [][2]float64 {
	w := (emax - emin) / nBins
	out := make([][2]float64, nBins)
	for k, p := range bins {
		out[k] = [2]float64{emin + (float64(k)+0.5)*w, p}
	}
	return out
}

// isingSums are the per-chunk sums of the per-state pass: weights
// w = exp(-beta (E - ref)) <= 1, moments of d = E - ref, the weights by
// energy bin and by number of up spins, and the marginals' sums.
type isingSums struct {
	s0, s1, s2 neumaier
	bins, up   []neumaier
	marg       *lazyMarginals
}

// perStatePass sums weights state by state; ref is the energy of largest
// weight (known from the first pass), so no weight exceeds 1 and the moments
// are taken about a nearby point. It sets res's energy statistics and
// moments of M if energy (else the first pass has), and the marginals of
// pairs (nil: none).
func perStatePass(res *Result, m *model.Ising, beta float64, t int, emin, emax float64, energy bool, pairs *pairList, stop *control) {
	ref := emin
	if beta < 0 {
		ref = emax
	}
	chunks := 1 << t
	parts := make([]isingSums, chunks)
	parallel(chunks, func(c int) {
		p := isingSums{bins: make([]neumaier, nBins), up: make([]neumaier, m.N+1)}
		prev := uint64(0)
		grayWalk(m, uint64(c), m.N-t, stop, func(idx uint64, e float64) {
			d := e - ref
			w := math.Exp(-beta * d)
			p.s0.Add(w)
			p.s1.Add(w * d)
			p.s2.Add(w * d * d)
			p.bins[binOf(e, emin, emax)].Add(w)
			p.up[bits.OnesCount64(idx)].Add(w)
			if pairs != nil {
				if p.marg == nil {
					p.marg = newLazyMarginals(pairs, spinsOf(make([]int8, m.N), idx))
				} else {
					p.marg.flip(bits.TrailingZeros64(idx ^ prev))
				}
				p.marg.cum.add(w)
				prev = idx
			}
		})
		if p.marg != nil {
			p.marg.finish()
		}
		parts[c] = p
	})
	var s0, s1, s2 neumaier
	bins, up := make([]neumaier, nBins), make([]neumaier, m.N+1)
	for _, p := range parts {
		s0.Add(p.s0.Sum())
		s1.Add(p.s1.Sum())
		s2.Add(p.s2.Sum())
		for k := range bins {
			bins[k].Add(p.bins[k].Sum())
		}
		for u := range up {
			up[u].Add(p.up[u].Sum())
		}
	}
	z := s0.Sum()
	if pairs != nil && !stop.halt.Load() {
		spins, pair := make([]neumaier, m.N), make([]neumaier, len(pairs.pi))
		for _, p := range parts {
			for i := range spins {
				spins[i].Add(p.marg.spin[i].Sum())
			}
			for k := range pair {
				pair[k].Add(p.marg.pair[k].Sum())
			}
		}
		res.setMarginals(spins, pair, pairs.pi, pairs.pj, z)
	}
	if !energy {
		return
	}
	md := s1.Sum() / z
	res.LnZ = -beta*ref + math.Log(z)
	res.EnergyMean = ref + md
	res.EnergyVar = math.Max(0, s2.Sum()/z-md*md)
	pb := make([]float64, nBins)
	for k := range bins {
		pb[k] = bins[k].Sum() / z
	}
	res.EnergyDistribution = binned(pb, emin, emax)
	res.mag = upMoments(sums(up))
}

// sums are the sums of s.
func sums(s []neumaier) []float64 {
	out := make([]float64, len(s))
	for i := range s {
		out[i] = s[i].Sum()
	}
	return out
}
