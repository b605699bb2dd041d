package replica

import (
	"fmt"
	"math"
	"slices"
)

// Spacing is how an adapting ladder (Config.Adapt > 0) moves its rungs.
type Spacing int

const (
	// ByAcceptance gives every interval the same length erfcinv(a_k),
	// a_k its swap acceptance since the last move (Adapted).
	ByAcceptance Spacing = iota
	// ByVariance measures each rung's energy spread sigma_k since the
	// last move and gives every interval the same thermodynamic length
	// int sigma_E(beta) d beta (VarianceLadder): Delta beta * sigma_E is
	// then the same between every pair of neighbours.
	ByVariance
)

func (s Spacing) String() string {
	switch s {
	case ByAcceptance:
		return "acceptance"
	case ByVariance:
		return "variance"
	}
	return fmt.Sprintf("Spacing(%d)", int(s))
}

// Why the energy variance, and what it predicts. The swap of rungs at
// beta and beta + d is accepted with probability E[min(1, exp(d (E_b -
// E_a)))]. For Gaussian energy histograms of spread sigma (a large system
// away from a first-order transition), E_a - E_b has mean d sigma^2
// (dE/dbeta = -Var E) and variance 2 sigma^2, and the mean of the min is
//
//	A = erfc(d sigma / 2)
//
// (Kone & Kofke 2005, J. Chem. Phys. 122, 206101; Predescu, Predescu &
// Ciobanu 2004, J. Chem. Phys. 120, 4119). So Delta beta * sigma_E, the
// interval's thermodynamic length int sigma_E d beta (Crooks 2007, Phys.
// Rev. Lett. 99, 100602), fixes each pair's acceptance, and a ladder of R
// rungs spanning the length L, spaced at equal lengths, accepts
// erfc(L / (2 (R - 1))) everywhere. The existing acceptance-based ladder
// aims at the same spacing, but measures it through swaps that, on a
// ladder far too sparse, are almost never accepted (a_k clamped at 0.001
// carries no information); the variance is measured at every rung
// whether its neighbours swap or not. The length also says how many rungs
// the range needs: a replica diffuses along the ladder in about
// (R - 1)^2 / A rounds per traversal, and the CPU per round trip, R times
// that over R replicas, is least where x^2 erfc(x) is largest, x = L /
// (2 (R - 1)): x* = 0.8419, A = erfc(x*) = 0.234, Kone & Kofke's 23%.

// OptimalAcceptance is erfc(x*), the swap acceptance that minimises the
// CPU per round trip of Gaussian rungs (see above).
const OptimalAcceptance = 0.2338

// optimalHalfLength is x*, the root of erfc(x) = x exp(-x^2) / sqrt(pi)
// (where d/dx x^2 erfc(x) = 0).
const optimalHalfLength = 0.8418822163923415

// ThermoLength is the thermodynamic length int sigma(beta) d beta of the
// ladder betas, sigma linear in beta between the rungs (sd[k] at
// betas[k]).
func ThermoLength(betas, sd []float64) float64 {
	l := 0.0
	for k := 0; k+1 < len(betas); k++ {
		l += (betas[k+1] - betas[k]) * (sd[k] + sd[k+1]) / 2
	}
	return l
}

// RungsNeeded is the number of rungs that spans the thermodynamic length
// l at the swap acceptance OptimalAcceptance: 1 + ceil(l / (2 x*)), at
// least 2.
func RungsNeeded(l float64) int {
	if !(l > 0) || math.IsInf(l, 0) {
		return 2
	}
	return max(2, 1+int(math.Ceil(l/(2*optimalHalfLength)-1e-9)))
}

// PredictedAcceptance is erfc(l / (2 (r - 1))), the swap acceptance of r
// rungs at equal lengths along the thermodynamic length l.
func PredictedAcceptance(l float64, r int) float64 {
	if r < 2 {
		return math.NaN()
	}
	return math.Erfc(l / (2 * float64(r-1)))
}

// VarianceLadder is the ladder with the ends of betas that gives every
// interval the same thermodynamic length, sigma being linear in beta
// between the rungs of betas (sd[k] the energy's standard deviation
// measured at betas[k]). Within an interval where sigma(t) = s0 + g t,
// the length from its start is s0 t + g t^2 / 2, solved for t as
// 2 r / (s0 + sqrt(s0^2 + 2 g r)) (the root without cancellation). It
// returns a copy of betas where the lengths cannot be formed (a spread
// NaN, infinite or negative, or all zero).
func VarianceLadder(betas, sd []float64) []float64 {
	R := len(betas)
	same := slices.Clone(betas)
	if len(sd) != R || R < 3 {
		return same
	}
	for _, s := range sd {
		if !(s >= 0) || math.IsInf(s, 0) {
			return same
		}
	}
	cum := make([]float64, R)
	for k := 0; k+1 < R; k++ {
		cum[k+1] = cum[k] + (betas[k+1]-betas[k])*(sd[k]+sd[k+1])/2
	}
	total := cum[R-1]
	if !(total > 0) || math.IsInf(total, 0) {
		return same
	}
	out := make([]float64, R)
	out[0], out[R-1] = betas[0], betas[R-1]
	k, last, den := 0, R-1, float64(R-1)
	if brokenLadder {
		last, den = R, float64(R)
	}
	for j := 1; j < last; j++ {
		l := total * float64(j) / den
		for k+2 < R && cum[k+1] < l {
			k++
		}
		d := betas[k+1] - betas[k]
		s0, g, r := sd[k], (sd[k+1]-sd[k])/d, max(0, l-cum[k])
		t := 0.0
		if den := s0 + math.Sqrt(max(0, s0*s0+2*g*r)); den > 0 {
			t = 2 * r / den
		}
		out[j] = betas[k] + min(max(t, 0), d)
	}
	for j := 1; j < R; j++ { // rounding must not break the order
		if !(out[j] > out[j-1]) {
			return same
		}
	}
	return out
}

// interpolate is sigma at each of at, linear in beta between the rungs of
// betas (constant beyond the ends).
func interpolate(betas, sd, at []float64) []float64 {
	out := make([]float64, len(at))
	for i, b := range at {
		k, _ := slices.BinarySearch(betas, b)
		switch {
		case k == 0:
			out[i] = sd[0]
		case k >= len(betas):
			out[i] = sd[len(sd)-1]
		default:
			f := (b - betas[k-1]) / (betas[k] - betas[k-1])
			out[i] = sd[k-1] + f*(sd[k]-sd[k-1])
		}
	}
	return out
}

// lengthFromAcceptance is the thermodynamic length the swap acceptances
// imply, sum_k 2 erfcinv(a_k) (see above), and whether it is only a lower
// bound: a pair that never accepted is counted at a_k = 1 / (2 tries),
// below which its length is not known. ok is false where some pair was
// never tried.
func lengthFromAcceptance(acc, tries []int64) (l float64, bound, ok bool) {
	for k := range acc {
		if tries[k] == 0 {
			return 0, false, false
		}
		a := float64(acc[k]) / float64(tries[k])
		if acc[k] == 0 {
			a, bound = 0.5/float64(tries[k]), true
		}
		l += 2 * math.Erfcinv(min(a, 0.999))
	}
	return l, bound, true
}
