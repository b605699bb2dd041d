package diag

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Spread is the ESS that the spread of several chains' means implies,
// with a 90% interval: a check on the bulk ESS, which sums the pooled
// autocorrelation only up to its first negative pair of lags and so
// misses a slow tail of small autocorrelation behind a fast anticorrelated
// part (q^2 at the target rung of even/odd replica swaps with the cluster
// move: lag 1 0.49, lag 2 -0.02, then about 0.02 out to lag 200, where the
// bulk ESS was 65 times the trials' spread; results/icm). The chains'
// means carry every lag's correlation, at the price of few degrees of
// freedom: with K chains the interval spans a factor of about 2.5 each way
// at K = 8.
type Spread struct {
	ESS    float64 `json:"ess"`
	Lo     float64 `json:"lo"` // 5% quantile
	Hi     float64 `json:"hi"` // 95% quantile
	Chains int     `json:"trials"`
}

// Upper is the p quantile of the ESS (p in (0, 1)): a bound that a
// correct estimate of the ESS exceeds with probability 1 - p.
func (s Spread) Upper(p float64) float64 {
	k := float64(s.Chains - 1)
	return s.ESS / k * distuv.ChiSquared{K: k}.Quantile(p)
}

// MinSpreadChains is the fewest chains TrialSpread estimates from.
const MinSpreadChains = 4

// TrialSpread is the ESS of the pooled chains that the spread of their
// means implies, or nil with fewer than MinSpreadChains chains of 2 or
// more draws, or chains whose means agree exactly. Model: chain k of n_k
// draws has ESS e n_k (one ESS per draw e for all), so that n_k (m_k -
// mu)^2 e / sigma^2 is chi-square with 1 degree of freedom; with m the
// draw-weighted mean, S = sum_k n_k (m_k - m)^2 gives S e / sigma^2
// chi-square with K - 1, sigma^2 the pooled within-chain variance. The
// ESS is e N (N draws in all): (K - 1) sigma^2 N / S, and its interval the
// chi-square quantiles in place of K - 1. For equal lengths it is K
// sigma^2 / var(means).
func TrialSpread(chains [][]float64) *Spread {
	var K, N int
	var sum, within float64
	means := make([]float64, len(chains))
	for k, c := range chains {
		if len(c) < 2 {
			continue
		}
		m := 0.0
		for _, v := range c {
			m += v
		}
		m /= float64(len(c))
		means[k] = m
		for _, v := range c {
			within += (v - m) * (v - m)
		}
		K++
		N += len(c)
		sum += m * float64(len(c))
	}
	if K < MinSpreadChains {
		return nil
	}
	within /= float64(N - K)
	mean := sum / float64(N)
	S := 0.0
	for k, c := range chains {
		if len(c) >= 2 {
			S += float64(len(c)) * (means[k] - mean) * (means[k] - mean)
		}
	}
	if !(S > 0) || !(within > 0) || math.IsInf(within, 0) {
		return nil
	}
	scale := within * float64(N) / S
	chi := distuv.ChiSquared{K: float64(K - 1)}
	return &Spread{ESS: float64(K-1) * scale, Lo: chi.Quantile(0.05) * scale, Hi: chi.Quantile(0.95) * scale, Chains: K}
}
