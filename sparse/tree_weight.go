package sparse

import (
	"fmt"
	"math"

	"sardonics/internal/memo"
	"sardonics/model"
	"sardonics/saw"
)

// fix is the fixed-point form of a model's fields that the tree's pick
// weights are computed from: every field and coupling times 2^S, rounded
// to an int32, with S the largest scale (at most 60) at which no bit's
// fixed-point field can reach 2^30 in magnitude. A fixed-point field is an
// exact integer sum, so it is the same function of the spins however it
// was reached. Only the pick weights use it; the energy uses the float64
// model.
type fix struct {
	s int     // the scale exponent S
	h []int32 // round(2^S h_i)
	j []int32 // round(2^S J_k), CSR order (symmetric: J_ij = J_ji)
}

// maxFixField bounds a fixed-point field.
const maxFixField = 1 << 30

func newFix(m *model.Ising) fix {
	big, deg := 0.0, 0 // the largest sum of |h_i| and |J_ij| of any bit
	for i := range m.N {
		z := math.Abs(m.H[i])
		for _, x := range m.J[m.Start[i]:m.Start[i+1]] {
			z += math.Abs(x)
		}
		big = max(big, z)
		deg = max(deg, int(m.Start[i+1]-m.Start[i]))
	}
	// 2^S big + (deg+1)/2 (rounding) < 2^30.
	room := float64(maxFixField - deg - 1)
	S := 60
	for S > -1100 && math.Ldexp(big, S) >= room {
		S--
	}
	f := fix{s: S, h: make([]int32, m.N), j: make([]int32, len(m.J))}
	q := func(x float64) int32 { return int32(math.RoundToEven(math.Ldexp(x, S))) }
	for i, x := range m.H {
		f.h[i] = q(x)
	}
	for k, x := range m.J {
		f.j[k] = q(x)
	}
	return f
}

// fields fills F with the fixed-point fields of spins s.
func (f *fix) fields(m *model.Ising, s []int8, F []int32) {
	for i := range m.N {
		v := f.h[i]
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			v += f.j[k] * int32(s[m.Adj[k]])
		}
		F[i] = v
	}
}

// Weight classes of the tree: a bit's class is its value x = s F (spin
// times fixed-point field) shifted right and clamped to tClasses values.
const (
	tClasses = 2048
	tHalf    = tClasses / 2
)

// wtab holds the tree's pick weights at two biases by weight class. A bit
// with x = s F is in class
//
//	c = clamp(floor(x / 2^sh), -tClasses/2, tClasses/2-1) + tClasses/2:
//
// its energy change dE = 2 x 2^-S lies in [k Delta, (k+1) Delta) with
// k = c - tClasses/2 and Delta = 2^(sh-S+1) (the end classes take
// everything beyond). Its weight at bias b is w[c][b], the ideal weight of
// the class's midpoint dE_k = (k+1/2) Delta, scaled to 2^wb, rounded and
// at least 1:
//
//	Logistic: 2^wb / (1 + exp(x)),  x = clamp(gamma_b dE_k, -R, R), R = (wb+1) ln 2
//	Exp:      2^wb exp(-x - R),     x = clamp(gamma_b dE_k, -R, R), R = (wb+1) ln 2 / 2
//
// (beyond R the rounded weight is constant anyway), and lw[c][b] is its
// logarithm. One shift serves both biases, so that a bit's class is
// computed once per change: sh is the smallest at which half the classes
// span [0, R] at the smaller bias, so gamma Delta lies in [R/1024, R/512)
// at that bias (3.6-7% from class to class, Logistic, wb = 52) and is
// gamma_H/gamma_L times that at the other. Read-only once built.
type wtab struct {
	sh uint32
	w  [tClasses][2]uint64
	lw [tClasses][2]float64
}

// class is the weight class of a bit with x = s F.
func (tb *wtab) class(x int32) int {
	k := x >> (tb.sh & 31)
	return int(min(max(k, -tHalf), tHalf-1)+tHalf) & (tClasses - 1)
}

// pair is the weights at both biases of a bit with x = s F.
func (tb *wtab) pair(x int32) [2]uint64 { return tb.w[tb.class(x)] }

// logPair is the log-weights at both biases of a bit with x = s F.
func (tb *wtab) logPair(x int32) [2]float64 { return tb.lw[tb.class(x)] }

// newWtab builds the tables of biases g (>= 0) for fixed-point fields of
// scale 2^S and weights up to 2^wb (wb <= 52). It panics on an unknown
// Weight.
func newWtab(S int, wb uint, g [2]float64, wf saw.Weight) *wtab {
	R := float64(wb+1) * math.Ln2
	switch wf {
	case saw.Logistic:
	case saw.Exp:
		R /= 2
	default:
		panic(fmt.Sprintf("sparse: unknown Weight %d", int(wf)))
	}
	one := math.Ldexp(1, int(wb))
	tb := &wtab{}
	sh := 31
	if gmin := min(g[0], g[1]); gmin > 0 && !math.IsInf(gmin, 0) {
		// Delta = 2^(sh-S+1) >= R / (tHalf gmin).
		lg := math.Ceil(math.Log2(R / (tHalf * gmin)))
		lg = min(max(lg, -4096), 4096) // no infinity (denormal products)
		sh = min(max(S-1+int(lg), 0), 31)
	}
	tb.sh = uint32(sh)
	delta := math.Ldexp(1, sh-S+1)
	for b, gb := range g {
		for c := range tClasses {
			x := gb * (float64(c-tHalf) + 0.5) * delta
			wi := uint64(saw.FixedWeight(wf, x, R, one))
			tb.w[c][b] = wi
			tb.lw[c][b] = math.Log(float64(wi))
		}
	}
	return tb
}

// wtabKey identifies a wtab in a cache.
type wtabKey struct {
	s  int
	wb uint
	g  [2]float64
	wf saw.Weight
}

// wtabCache keeps the tables of an engine's recent biases: building one
// costs 4096 exponentials and logarithms (about 0.1 ms), and a chain with
// a mixture of thetas changes biases every step. Tables are shared by every
// engine of the process (memo), so that the R chains of replica exchange,
// each visiting R temperatures, build R in all.
type wtabCache struct{ l memo.Local[wtabKey, *wtab] }

var sharedWtabs = memo.Shared[wtabKey, *wtab]{Max: 256,
	Build: func(k wtabKey) *wtab { return newWtab(k.s, k.wb, k.g, k.wf) }}

// get returns newWtab(S, wb, {g0, g1}, wf), built once.
func (c *wtabCache) get(S int, wb uint, g0, g1 float64, wf saw.Weight) *wtab {
	return c.l.Get(&sharedWtabs, wtabKey{S, wb, [2]float64{g0, g1}, wf})
}
