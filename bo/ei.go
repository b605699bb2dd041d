package bo

import "math"

// ExpectedImprovement is E[max(f - best - xi, 0)] for f ~ N(mu, sigma^2),
// the acquisition of Mockus (1978) and Jones, Schonlau and Welch (1998) for
// maximization:
//
//	EI = (mu - best - xi) Phi(z) + sigma phi(z),  z = (mu - best - xi)/sigma.
//
// With sigma <= 0 the improvement is deterministic: max(mu - best - xi, 0).
func ExpectedImprovement(mu, sigma, best, xi float64) float64 {
	imp := mu - best - xi
	if !(sigma > 0) {
		return math.Max(imp, 0)
	}
	z := imp / sigma
	ei := imp*normCDF(z) + sigma*normPDF(z)
	// Rounding can make the difference of two nearly equal terms negative.
	return math.Max(ei, 0)
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

func normPDF(z float64) float64 { return math.Exp(-0.5*z*z) / math.Sqrt(2*math.Pi) }

// LogExpectedImprovement is log ExpectedImprovement, accurate where EI
// itself underflows or cancels to zero (far below the incumbent, or where
// sigma is tiny), so an optimizer still sees a slope there instead of a
// plateau of zeros (the remedy of Ament et al. 2023, "Unexpected
// improvements to expected improvement"). -Inf when EI is exactly zero.
func LogExpectedImprovement(mu, sigma, best, xi float64) float64 {
	imp := mu - best - xi
	if !(sigma > 0) {
		return math.Log(math.Max(imp, 0))
	}
	z := imp / sigma
	// EI = sigma tau(z), tau(z) = phi(z) + z Phi(z).
	if z > -20 {
		return math.Log(sigma) + math.Log(math.Max(normPDF(z)+z*normCDF(z), 0))
	}
	// Asymptotic series of the Mills ratio (Abramowitz and Stegun 26.2.12):
	// tau(z) = phi(z)/z^2 (1 - 3/z^2 + 15/z^4 - 105/z^6 + ...).
	w := 1 / (z * z)
	return math.Log(sigma) - 0.5*z*z - 0.5*math.Log(2*math.Pi) + math.Log(w) +
		math.Log1p(w*(-3+w*(15-105*w)))
}
