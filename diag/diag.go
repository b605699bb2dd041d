package diag

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/stat/distuv"
)

// SokalC is the constant of Sokal's automatic window: the smallest W with
// W >= SokalC * tau(W).
const SokalC = 5

// ACF returns the normalized autocorrelation rho(0..maxLag) of x,
//
//	rho(t) = sum_(i<n-t) y_i y_(i+t) / sum_i y_i^2,  y = x - mean(x),
//
// computed by FFT on a zero-padded copy (length >= 2n, so no circular wrap).
// maxLag is clamped to n-1; an empty x gives nil. A constant series (zero
// variance) has rho(0) = 1 and rho(t) = 0 for t > 0: its samples are
// trivially uncorrelated with anything. NaNs in x propagate.
func ACF(x []float64, maxLag int) []float64 {
	n := len(x)
	if n == 0 || maxLag < 0 {
		return nil
	}
	maxLag = min(maxLag, n-1)
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	y := make([]float64, size)
	for i, v := range x {
		y[i] = v - mean
	}
	fft := fourier.NewFFT(size)
	c := fft.Coefficients(nil, y)
	for i, v := range c {
		c[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	acov := fft.Sequence(y, c) // unnormalized: size * sum_i y_i y_(i+t)
	rho := make([]float64, maxLag+1)
	rho[0] = 1
	if !(acov[0] > 0) {
		if math.IsNaN(acov[0]) {
			for t := range rho {
				rho[t] = math.NaN()
			}
		}
		return rho
	}
	for t := 1; t <= maxLag; t++ {
		rho[t] = acov[t] / acov[0]
	}
	return rho
}

// TauInt is the integrated autocorrelation time tau = 1 + 2 sum_(t=1..W) rho(t)
// with Sokal's automatic window: the smallest W >= 1 with W >= 5 tau(W)
// (Sokal, "Monte Carlo methods in statistical mechanics", 1997). If no window
// up to n-1 qualifies, the series is too short for a reliable estimate and
// TauInt returns tau(n-1) with window n-1. Fewer than 2 samples give NaN, 0.
func TauInt(x []float64) (tau float64, window int) {
	n := len(x)
	if n < 2 {
		return math.NaN(), 0
	}
	rho := ACF(x, n-1)
	tau = 1
	for w := 1; w < n; w++ {
		tau += 2 * rho[w]
		if float64(w) >= SokalC*tau {
			return tau, w
		}
	}
	return tau, n - 1
}

// ESS is the effective sample size n / tau.
func ESS(n int, tau float64) float64 { return float64(n) / tau }

// MeanStdErr returns the mean of x and its Monte Carlo standard error
// sqrt(var * tau / n), var being the sample variance (denominator n-1).
// Fewer than 2 samples give a NaN standard error.
func MeanStdErr(x []float64, tau float64) (mean, se float64) {
	n := len(x)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.NaN()
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(n-1) * tau / float64(n))
}

// SplitRhat is the rank-normalized split R-hat of Vehtari, Gelman, Simpson,
// Carpenter and Burkner (2021, Bayesian Analysis 16:667): the larger of the
// bulk R-hat (split chains, pooled ranks mapped to normal scores) and the
// tail R-hat (the same on |x - median|). Chains are truncated to the shortest
// one and split in halves (dropping the middle draw of an odd length). It is
// NaN with fewer than 2 half-chains of length >= 2. When every half-chain is
// constant it is 1 if they all agree and +Inf otherwise.
func SplitRhat(chains [][]float64) float64 {
	if len(chains) == 0 {
		return math.NaN()
	}
	n := len(chains[0])
	for _, c := range chains {
		n = min(n, len(c))
	}
	half := n / 2
	if half < 2 {
		return math.NaN()
	}
	m := 2 * len(chains)
	draws := make([]float64, 0, m*half)
	for _, c := range chains {
		draws = append(draws, c[:half]...)
		draws = append(draws, c[n-half:n]...)
	}
	bulk := rhat(rankNormal(draws), m, half)
	med := median(draws)
	folded := make([]float64, len(draws))
	for i, v := range draws {
		folded[i] = math.Abs(v - med)
	}
	tail := rhat(rankNormal(folded), m, half)
	if math.IsNaN(bulk) || math.IsNaN(tail) {
		return math.NaN()
	}
	return math.Max(bulk, tail)
}

// rhat is the classic potential scale reduction of m chains of length n
// stored one after another: sqrt(((n-1)/n W + B/n) / W).
func rhat(x []float64, m, n int) float64 {
	means := make([]float64, m)
	w := 0.0
	for k := 0; k < m; k++ {
		c := x[k*n : (k+1)*n]
		mu := 0.0
		for _, v := range c {
			mu += v
		}
		mu /= float64(n)
		means[k] = mu
		ss := 0.0
		for _, v := range c {
			ss += (v - mu) * (v - mu)
		}
		w += ss / float64(n-1)
	}
	w /= float64(m)
	grand := 0.0
	for _, mu := range means {
		grand += mu
	}
	grand /= float64(m)
	b := 0.0
	for _, mu := range means {
		b += (mu - grand) * (mu - grand)
	}
	b *= float64(n) / float64(m-1)
	if w == 0 {
		// Pooled ranks tie completely only when all draws are equal.
		if b == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return math.Sqrt(((float64(n-1)/float64(n))*w + b/float64(n)) / w)
}

// rankNormal maps draws to normal scores of their pooled ranks (ties get the
// average rank): z = Phi^-1((r - 3/8) / (S + 1/4)), Blom's offset as in the paper.
func rankNormal(x []float64) []float64 {
	s := len(x)
	idx := make([]int, s)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	z := make([]float64, s)
	for i := 0; i < s; {
		j := i
		for j+1 < s && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1 // average 1-based rank of the tie group
		q := distuv.UnitNormal.Quantile((r - 0.375) / (float64(s) + 0.25))
		for k := i; k <= j; k++ {
			z[idx[k]] = q
		}
		i = j + 1
	}
	return z
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
