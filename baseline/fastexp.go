package baseline

import "math"

// Heat-bath and Metropolis draws compare a uniform u with logistic(x) or
// exp(-y). A cheap exp with a proven error bound decides almost every
// comparison; only when u falls within the bound of the threshold is
// math.Exp called, so every decision equals the one math.Exp would give.

const (
	log2e = 1.4426950408889634
	ln2   = 0.6931471805599453
	// round is 1.5 * 2^52: adding and subtracting it rounds a float64 of
	// magnitude below 2^51 to the nearest integer (the compiler does not
	// reassociate floating-point arithmetic, so this is safe).
	round = 0x1.8p52
	// fastMargin is twice the error bound of the quantities compared below
	// (expApprox's relative error is below 5e-6, see there).
	fastMargin = 1e-5
	// fastRange keeps 2^k normal and away from overflow in expApprox.
	fastRange = 700
)

// expApprox is e^z for |z| <= fastRange with relative error below 5e-6:
// z = k ln2 + r with |r| <= ln2/2, e^r by its degree-5 Taylor polynomial
// (remainder at most |r|^6/720 e^|r| <= 2.4e-6 e^|r|, and e^r >= e^-|r|,
// so relative error below 2.4e-6 e^ln2 < 5e-6; measured 3.2e-6), then 2^k
// added to the exponent bits.
func expApprox(z float64) float64 {
	k := (z*log2e + round) - round
	r := z - k*ln2
	// Estrin's scheme: a shorter dependency chain than Horner's.
	r2 := r * r
	p := (1 + r) + r2*((0.5+r*(1.0/6))+r2*(1.0/24+r*(1.0/120)))
	return math.Float64frombits(math.Float64bits(p) + uint64(int64(k))<<52)
}

// belowLogistic reports u < 1/(1+exp(-x)) exactly as computed with math.Exp.
// It tests u (1 + e^-x) < 1, which needs no division: with e^-x off by a
// relative 5e-6 the product is off by at most 5e-6 of itself, so any
// product beyond 1 +- fastMargin decides.
func belowLogistic(u, x float64) bool {
	if x > fastRange || x < -fastRange {
		return u < 1/(1+math.Exp(-x))
	}
	q := u * (1 + expApprox(-x))
	if d := q - 1; d > fastMargin || d < -fastMargin {
		return d < 0
	}
	return u < 1/(1+math.Exp(-x))
}

// belowExpNeg reports u < exp(-y) for y >= 0, exactly as math.Exp gives it.
func belowExpNeg(u, y float64) bool {
	if y > fastRange {
		return u < math.Exp(-y)
	}
	p := expApprox(-y)
	if d := u - p; d > fastMargin || d < -fastMargin {
		return d < 0
	}
	return u < math.Exp(-y)
}
