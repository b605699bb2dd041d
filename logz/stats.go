package logz

import (
	"math"
)

// LogMeanExp is ln((1/n) sum_i exp(x_i)), computed about the largest x_i
// so that nothing overflows; -Inf for no values.
func LogMeanExp(x []float64) float64 {
	if len(x) == 0 {
		return math.Inf(-1)
	}
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s/float64(len(x)))
}

// WeightStats are the importance weights w_r = exp(lw_r) of n runs as
// AIS reports them: ln of their mean, its standard error by the delta
// method, se(ln wbar) = sd(w) / (sqrt(n) wbar) (the relative error of
// the mean, valid while the weights' variance is finite and n large),
// and Kish's effective sample size (sum w)^2 / sum w^2.
type WeightStats struct {
	LnMean, Stderr, ESS float64
}

// Weights summarizes log-weights lw (at least 2, all finite).
func Weights(lw []float64) WeightStats {
	n := float64(len(lw))
	m := math.Inf(-1)
	for _, v := range lw {
		m = math.Max(m, v)
	}
	var s, s2 float64
	for _, v := range lw {
		w := math.Exp(v - m)
		s += w
		s2 += w * w
	}
	mean := s / n
	vr := math.Max(0, (s2-n*mean*mean)/(n-1))
	return WeightStats{LnMean: m + math.Log(mean), Stderr: math.Sqrt(vr/n) / mean, ESS: s * s / s2}
}

// softplus is ln(1 + e^x) without overflow or loss for large |x|.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// sigmoid is 1 / (1 + e^-x).
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// meanSD are the mean and sample standard deviation of x.
func meanSD(x []float64) (float64, float64) {
	n := float64(len(x))
	s := 0.0
	for _, v := range x {
		s += v
	}
	mean := s / n
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	if len(x) < 2 {
		return mean, 0
	}
	return mean, math.Sqrt(ss / (n - 1))
}
