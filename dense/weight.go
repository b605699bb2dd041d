package dense

import (
	"math"

	"sardonics/saw"
)

// clamp limits an exponent to [-saw.MaxLogWeight, saw.MaxLogWeight]. Plain
// branches, almost never taken, are cheaper here than float min and max,
// which must handle NaN and signed zeros.
func clamp(x float64) float64 {
	if x > saw.MaxLogWeight {
		return saw.MaxLogWeight
	}
	if x < -saw.MaxLogWeight {
		return -saw.MaxLogWeight
	}
	return x
}

// Weight is exp(saw.LogWeight(wf, g, dE)) to about 1e-13 relative (the
// logistic weight is computed as 1/(1+e^x), x = g dE clamped to +-690, so
// it never falls below 1/(1+e^690), within 1e-300 of saw.LogWeight's floor),
// bit for bit the value the Weights kernel stores. It panics on an unknown
// Weight.
func Weight(wf saw.Weight, g, dE float64) float64 {
	switch wf {
	case saw.Logistic:
		return 1 / (1 + exp(clamp(g*dE)))
	case saw.Exp:
		return exp(clamp(-(g * dE)))
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
	switch wf {
	case saw.Logistic:
		for i := range w0 {
			if !av[i] {
				w0[i], w1[i] = 0, 0
				continue
			}
			dE := float64(s[i]) * f[i]
			a, b := 1/(1+exp(clamp(g0*dE))), 1/(1+exp(clamp(g1*dE)))
			w0[i], w1[i] = a, b
			z0 += a
			z1 += b
		}
	case saw.Exp:
		for i := range w0 {
			if !av[i] {
				w0[i], w1[i] = 0, 0
				continue
			}
			dE := float64(s[i]) * f[i]
			a, b := exp(clamp(-(g0 * dE))), exp(clamp(-(g1 * dE)))
			w0[i], w1[i] = a, b
			z0 += a
			z1 += b
		}
	default:
		panic("dense: unknown Weight")
	}
	return z0, z1
}

const (
	log2e64 = 64 * 1.44269504088896338700e+00
	ln2hi64 = 6.93147180369123816490e-01 / 64
	ln2lo64 = 1.90821492927058770002e-10 / 64
	round   = 0x1.8p52 // adding and subtracting it rounds to an integer
)

// exp2j[j] is 2^(j/64).
var exp2j = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

// exp is e^x for |x| <= 708 within about 1e-13 relative: x = (64m + j) ln2/64
// + r with |r| <= ln2/128, e^x = 2^m 2^(j/64) e^r, e^r by its degree-4
// Taylor polynomial (truncation error below r^5/120 < 4e-14), the table
// exp2j for 2^(j/64) (Tang's method). About a third of the work of a
// full-precision polynomial, inlinable and branch-free. The walk stays exact
// whatever the accuracy: the engines' log-probabilities are logarithms of
// these very weights (Weight), not of the ideal ones.
func exp(x float64) float64 {
	k := (x*log2e64 + round) - round
	r := (x - k*ln2hi64) - k*ln2lo64
	ki := int64(k)
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24))))
	return p * exp2j[ki&63] * math.Float64frombits(uint64((ki>>6)+1023)<<52)
}

// LogWeight is log(Weight(wf, g, dE)): the log-probability terms of the
// engines, taken from the weights actually drawn with.
func LogWeight(wf saw.Weight, g, dE float64) float64 { return math.Log(Weight(wf, g, dE)) }
