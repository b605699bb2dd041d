package diag

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
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
	sc := getScratch()
	defer putScratch(sc)
	y := sc.y.grow(size)
	for i, v := range x {
		y[i] = v - mean
	}
	clear(y[n:])
	fft := getFFT(size)
	defer putFFT(size, fft)
	c := fft.Coefficients(sc.coef(size/2+1), y)
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
	return TauIntACF(ACF(x, n-1))
}

// TauIntACF is TauInt from the series' autocorrelations rho (ACF(x,
// len(x)-1)), for a caller that needs them anyway.
func TauIntACF(rho []float64) (tau float64, window int) {
	n := len(rho)
	if n < 2 {
		return math.NaN(), 0
	}
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

// plans keeps the FFT plans of the last two sizes used for reuse: making
// one computes its twiddle factors (a sine and a cosine each), which cost
// about as much as the transform itself, and a summary transforms many
// series of one length (Diagnose) and twice that (ACF). A plan of n points
// holds 3n float64s, so only one of a size is kept (a sync.Pool would keep
// one per processor); a call that finds it taken makes its own.
var plans struct {
	sync.Mutex
	last [2]*fourier.FFT // the most recently returned first
}

func getFFT(size int) *fourier.FFT {
	plans.Lock()
	defer plans.Unlock()
	for i, f := range plans.last {
		if f != nil && f.Len() == size {
			plans.last[i] = nil
			return f
		}
	}
	return fourier.NewFFT(size)
}

func putFFT(size int, f *fourier.FFT) {
	plans.Lock()
	defer plans.Unlock()
	if plans.last[0] == nil || plans.last[0].Len() != size {
		plans.last[1] = plans.last[0]
	}
	plans.last[0] = f
}
