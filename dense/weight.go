package dense

import (
	"math"

	"sardonics/saw"
)

// minWeight is the smallest weight saw.LogWeight allows.
var minWeight = math.Exp(-saw.MaxLogWeight)

// Weight is exp(saw.LogWeight(wf, g, dE)) up to a few ulps (the logistic
// weight is computed as 1/(1+e^x) without the logarithm; only its clamp at
// -690 can bind). It panics on an unknown Weight.
func Weight(wf saw.Weight, g, dE float64) float64 {
	switch wf {
	case saw.Logistic:
		return max(1/(1+exp(min(max(g*dE, -700), 700))), minWeight)
	case saw.Exp:
		return exp(min(max(-g*dE, -saw.MaxLogWeight), saw.MaxLogWeight))
	}
	panic("dense: unknown Weight")
}

// Weights is the hot kernel of both RBM engines: for each bit i it sets
// w0[i], w1[i] to Weight(wf, g0 or g1, s[i]*f[i]) when av[i] and to 0
// otherwise, and returns the sums of w0 and w1 (in index order). All slices
// have the same length.
func Weights(wf saw.Weight, g0, g1 float64, s []int8, f []float64, av []bool, w0, w1 []float64) (z0, z1 float64) {
	n := len(w0)
	s, f, av, w1 = s[:n], f[:n], av[:n], w1[:n]
	if wf != saw.Logistic && wf != saw.Exp {
		panic("dense: unknown Weight")
	}
	logistic := wf == saw.Logistic
	for i := range w0 {
		if !av[i] {
			w0[i], w1[i] = 0, 0
			continue
		}
		dE := float64(s[i]) * f[i]
		x0, x1 := g0*dE, g1*dE
		if logistic {
			x0, x1 = min(max(x0, -700), 700), min(max(x1, -700), 700)
		} else {
			x0, x1 = min(max(-x0, -saw.MaxLogWeight), saw.MaxLogWeight), min(max(-x1, -saw.MaxLogWeight), saw.MaxLogWeight)
		}
		a, b := exp2x(x0, x1)
		if logistic {
			a, b = max(1/(1+a), minWeight), max(1/(1+b), minWeight)
		}
		w0[i], w1[i] = a, b
		z0 += a
		z1 += b
	}
	return z0, z1
}

const (
	log2e = 1.44269504088896338700e+00
	ln2hi = 6.93147180369123816490e-01
	ln2lo = 1.90821492927058770002e-10
	round = 0x1.8p52 // adding and subtracting it rounds to an integer
)

// exp is e^x for |x| <= 708, within about 2 ulps of math.Exp: Cody-Waite
// reduction x = k ln2 + r, |r| <= ln2/2, then the Taylor polynomial of
// degree 12 (truncation error below 2e-16) evaluated by Estrin's scheme,
// times 2^k. Inlinable and branch-free, unlike math.Exp.
func exp(x float64) float64 {
	k := (x*log2e + round) - round
	r := (x - k*ln2hi) - k*ln2lo
	r2 := r * r
	r4 := r2 * r2
	p := (1 + r + r2*(1.0/2+r*(1.0/6))) +
		r4*((1.0/24+r*(1.0/120))+r2*(1.0/720+r*(1.0/5040))) +
		r4*r4*((1.0/40320+r*(1.0/362880))+r2*(1.0/3628800+r*(1.0/39916800))+r4*(1.0/479001600))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
}

// exp2x is exp(x), exp(y), interleaved for instruction-level parallelism.
func exp2x(x, y float64) (float64, float64) {
	k := (x*log2e + round) - round
	l := (y*log2e + round) - round
	r := (x - k*ln2hi) - k*ln2lo
	q := (y - l*ln2hi) - l*ln2lo
	r2, q2 := r*r, q*q
	r4, q4 := r2*r2, q2*q2
	p := (1 + r + r2*(1.0/2+r*(1.0/6))) +
		r4*((1.0/24+r*(1.0/120))+r2*(1.0/720+r*(1.0/5040))) +
		r4*r4*((1.0/40320+r*(1.0/362880))+r2*(1.0/3628800+r*(1.0/39916800))+r4*(1.0/479001600))
	o := (1 + q + q2*(1.0/2+q*(1.0/6))) +
		q4*((1.0/24+q*(1.0/120))+q2*(1.0/720+q*(1.0/5040))) +
		q4*q4*((1.0/40320+q*(1.0/362880))+q2*(1.0/3628800+q*(1.0/39916800))+q4*(1.0/479001600))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52), o * math.Float64frombits(uint64(int64(l)+1023)<<52)
}
