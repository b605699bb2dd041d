package diag

import (
	"math"
	"slices"
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
	if len(x) == 0 || maxLag < 0 {
		return nil
	}
	sc := getScratch()
	defer putScratch(sc)
	return slices.Clone(acfAll(x, sc)[:min(maxLag, len(x)-1)+1])
}

// acfAll is ACF(x, len(x)-1) computed in sc's FFT input array, in place of
// the autocovariances: a summary of 10^6 draws needs a 2^21-point
// transform, and its plan and arrays are then the largest it holds. The
// result is valid until sc is used again.
func acfAll(x []float64, sc *scratch) []float64 {
	n := len(x)
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	y, c := sc.fft(size)
	for i, v := range x {
		y[i] = v - mean
	}
	clear(y[n:])
	fft := getFFT(size)
	defer putFFT(size, fft)
	c = fft.Coefficients(c, y)
	for i, v := range c {
		c[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	rho := fft.Sequence(y, c)[:n] // unnormalized: size * sum_i y_i y_(i+t)
	a0 := rho[0]
	switch {
	case math.IsNaN(a0):
		for t := range rho {
			rho[t] = math.NaN()
		}
	case !(a0 > 0): // constant
		rho[0] = 1
		clear(rho[1:])
	default:
		rho[0] = 1
		for t := 1; t < n; t++ {
			rho[t] /= a0
		}
	}
	return rho
}

// TauInt is the integrated autocorrelation time tau = 1 + 2 sum_(t=1..W) rho(t)
// with Sokal's automatic window: the smallest W >= 1 with W >= 5 tau(W)
// (Sokal, "Monte Carlo methods in statistical mechanics", 1997). If no window
// up to n-1 qualifies, the series is too short for a reliable estimate and
// TauInt returns tau(n-1) with window n-1. Fewer than 2 samples give NaN, 0.
func TauInt(x []float64) (tau float64, window int) {
	tau, window, _ = TauACF(x, -1)
	return tau, window
}

// TauACF is TauInt(x) and ACF(x, maxLag) (nil for a negative maxLag), bit
// for bit, from one transform, holding no array of len(x) besides the
// transform's own.
func TauACF(x []float64, maxLag int) (tau float64, window int, rho []float64) {
	if len(x) == 0 {
		return math.NaN(), 0, nil
	}
	sc := getScratch()
	defer putScratch(sc)
	all := acfAll(x, sc)
	tau, window = TauIntACF(all)
	if maxLag >= 0 {
		rho = slices.Clone(all[:min(maxLag, len(x)-1)+1])
	}
	return tau, window, rho
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

// plan keeps the FFT plan last used for reuse: making one computes its
// twiddle factors (a sine and a cosine each), which cost about as much as
// the transform itself, and a summary transforms many series of one
// length (Diagnose) before it moves to another (the quarters of its trend
// test, then the ACF at twice the length). A plan of n points holds 3n
// float64s (48 MB for the ACF of 10^6 draws), so only one is kept, and
// only until Release; a call that finds it taken or of another size makes
// its own.
var plan struct {
	sync.Mutex
	fft *fourier.FFT
}

func getFFT(size int) *fourier.FFT {
	plan.Lock()
	defer plan.Unlock()
	if f := plan.fft; f != nil && f.Len() == size {
		plan.fft = nil
		return f
	}
	return fourier.NewFFT(size)
}

func putFFT(size int, f *fourier.FFT) {
	plan.Lock()
	plan.fft = f
	plan.Unlock()
}

// Release drops the work arrays and the FFT plan kept between calls, so
// that the memory of a long series' diagnostics can be collected before
// the caller allocates something else; the next call makes new ones. It
// returns the bytes released.
func Release() int {
	plan.Lock()
	f := plan.fft
	plan.fft = nil
	plan.Unlock()
	spare.Lock()
	sc := spare.sc
	spare.sc = nil
	spare.Unlock()
	b := 0
	if f != nil {
		b += 3 * 8 * f.Len()
	}
	if sc != nil {
		b += sc.bytes()
	}
	return b
}
