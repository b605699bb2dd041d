package diag

import (
	"math"
	"slices"

	"sardonics/internal/fsum"
)

// Estimators of one trace beside the pooled ones of diag.go: the
// semivariogram and the autocorrelation time it implies (the tuner's ess
// reward), tau with its floor where a trace cannot resolve it (the cycle
// tuners), and a trial's drift in standard errors (the summary's trend_z).

// Semivariogram is half the mean squared change of x over lag steps,
// sum_t (x_(t+lag) - x_t)^2 / (2 (n - lag)): an estimate of
// var * (1 - rho(lag)) that needs no estimate of the mean, so a window
// shorter than the autocorrelation time does not bias it (the variogram
// form of the autocorrelation that Stan's ESS uses, Vehtari et al. 2021,
// eq. 11, and Geyer 1992). NaN when x has lag or fewer values.
func Semivariogram(x []float64, lag int) float64 {
	if lag < 1 || len(x) <= lag {
		return math.NaN()
	}
	s := 0.0
	for t := lag; t < len(x); t++ {
		d := x[t] - x[t-lag]
		s += d * d
	}
	return s / float64(2*(len(x)-lag))
}

// ESSTau is the integrated autocorrelation time (in steps) that a window's
// semivariogram semi at lag (Semivariogram) implies for an AR(1)-shaped
// autocorrelation, given the variance of the energy at equilibrium:
//
//	rho(lag) = 1 - semi/variance,  r = rho(lag)^(1/lag),  tau = (1+r)/(1-r),
//
// capped at maxTau (a chain that never moved). Every kernel samples the
// same distribution, so variance is pooled over all the tuner's windows;
// a window of a few hundred steps would underestimate it (its own mean
// absorbs the slow fluctuations), which is the bias the paper's reward
// suffers from. Why a short lag: the lag-5 rate is stable on windows of a
// few hundred steps (log-tau spread 0.13-0.2 per 500-step window on
// frustrated2d:L=60 at T=1, against 1.3-1.7 for Geyer's initial monotone
// sequence on the same windows). The tuner takes the lag at equal work,
// the steps that propose Config.ESSWork flips (LagFor), because a fixed lag
// in steps favours long walks: their ACF drops fast over the first steps
// and keeps a slow tail that no window of a few hundred steps resolves.
// Measured against the long-run tau (4 x 10^5 steps) of 15 settings on
// frustrated2d:L=60 at T = 1 and 7 on chimera:M=4,N=4,T=4 at T = 1
// (kl..ku from 1..5 to 1..40, N 1 to 4; windows of 500 steps), log(tau /
// ESSTau) spread over 0.25 (chimera 0.30) with the lag of 55 flips,
// against 0.36 (chimera 0.68, falling with the walk length) with a lag of
// 5 steps.
func ESSTau(semi float64, lag int, variance, maxTau float64) float64 {
	if !(variance > 0) || !(semi > 0) {
		return maxTau
	}
	rho := 1 - semi/variance
	if rho <= 0 {
		return 1
	}
	r := math.Pow(rho, 1/float64(lag))
	if r >= 1 {
		return maxTau
	}
	return math.Min((1+r)/(1-r), maxTau)
}

// TauOrFloor is the integrated autocorrelation time of e, and false where the
// estimate is a floor: a trace that never changed (diag's ACF calls it
// uncorrelated, but the chain was frozen: tau is taken as its length, one
// effective sample) or one too short for Sokal's window (tau is at least
// (n-1)/SokalC, since no window up to n-1 satisfied W >= SokalC tau).
// Anticorrelated traces' tau is kept at 0.5 or more: a short trace's
// negative autocorrelations are mostly noise.
func TauOrFloor(e []float64) (float64, bool) {
	n := len(e)
	if n < 2 || slices.Min(e) == slices.Max(e) {
		return float64(max(n, 1)), false
	}
	tau, w := TauInt(e)
	if w >= n-1 {
		return max(tau, float64(n-1)/SokalC), false
	}
	return max(tau, 0.5), true
}

// TrendZ is the last quarter's mean of x minus the first quarter's, over
// the standard error of that difference: each quarter's SD over the root
// of the bulk ESS of the quarter less its least-squares line. A chain
// still relaxing falls within each quarter too, and that fall, counted as
// autocorrelation, made the ESS a few draws and hid the drift
// (summary's TestSlowRelaxationNamed); for a stationary chain whose autocorrelation
// time is well below a quarter, removing a line changes the ESS little.
// Where it is not (a quarter of 2.5 autocorrelation times), a stationary
// trial exceeds 6 standard errors 4% of the time (1% before), and every
// trial of a run the same way far less; such a run has too few effective
// draws to be trusted either way. NaN with fewer than 4 x 20 draws or no
// spread.
func TrendZ(x []float64) float64 {
	q := len(x) / 4
	if q < 20 {
		return math.NaN()
	}
	a, b := x[:q], x[len(x)-q:]
	se2 := 0.0
	for _, part := range [][]float64{a, b} {
		r := detrended(part)
		ess := BulkOnly([][]float64{r}).BulkESS
		se2 += SampleVariance(part) / ess
	}
	z := (neumaierMean(b) - neumaierMean(a)) / math.Sqrt(se2)
	if math.IsNaN(z) || math.IsInf(z, 0) {
		return math.NaN()
	}
	return z
}

// detrended is x less its least-squares line in the index.
func detrended(x []float64) []float64 {
	n := float64(len(x))
	tm, xm := (n-1)/2, neumaierMean(x)
	var sxy, sxx float64
	for i, v := range x {
		d := float64(i) - tm
		sxy += d * (v - xm)
		sxx += d * d
	}
	slope := sxy / sxx
	r := make([]float64, len(x))
	for i, v := range x {
		r[i] = v - xm - slope*(float64(i)-tm)
	}
	return r
}

// SampleVariance is the unbiased variance of x (at least 2 values).
func SampleVariance(x []float64) float64 {
	mu := 0.0
	for _, v := range x {
		mu += v
	}
	mu /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mu) * (v - mu)
	}
	return ss / float64(len(x)-1)
}

// neumaierMean is the mean of x summed in order by Neumaier's summation
// (as summary's pooled means are), NaN for none.
func neumaierMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s fsum.Neumaier
	for _, v := range x {
		s.Add(v)
	}
	return s.Sum() / float64(len(x))
}
