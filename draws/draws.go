package draws

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"sardonics/internal/fsum"
)

// DefaultCap is the most draws a phase of a trial keeps unless told
// otherwise (--trace-draws): 2^16 draws of the energy, magnetization (and
// overlap) take about 1.3 MB a phase, and the pooled diagnostics of 16
// such trials take well under a second, while 2^15 to 2^16 draws estimate
// an ESS or R-hat to a few percent.
const DefaultCap = 1 << 16

// MinCap is the smallest Cap allowed: the split diagnostics need a few
// dozen draws a chain.
const MinCap = 64

// Thinning decides which steps of a phase are kept: the steps Origin +
// m*Every, m = 1, 2, ..., at most Cap of them. Its zero value is unusable:
// make it with New.
type Thinning struct {
	Origin int `json:"origin"` // the step before the phase's first step
	Every  int `json:"every"`  // steps between kept draws
	Cap    int `json:"cap"`    // the most draws kept (even)
	Kept   int `json:"kept"`   // draws kept now
}

// New is the thinning of a phase that starts after step origin, keeping at
// most capacity draws (rounded down to even, at least MinCap).
func New(origin, capacity int) Thinning {
	return Thinning{Origin: origin, Every: 1, Cap: max(MinCap, capacity&^1)}
}

// Next says what to do with step s (> Origin, called for every step in
// order): halve is true when the kept draws must first be halved (Halve,
// on every series of the phase), keep when the step's draw is to be
// appended.
func (t *Thinning) Next(s int) (keep, halve bool) {
	u := s - t.Origin
	if u%t.Every != 0 {
		return false, false
	}
	if t.Kept == t.Cap {
		t.Every *= 2
		t.Kept /= 2
		halve = true
		if u%t.Every != 0 {
			return false, true
		}
	}
	t.Kept++
	return true, halve
}

// Step is the step of kept draw j (0-based).
func (t Thinning) Step(j int) int { return t.Origin + (j+1)*t.Every }

// Thinned reports whether some steps of the phase were dropped.
func (t Thinning) Thinned() bool { return t.Every > 1 }

// Valid checks a thinning read from a file or checkpoint.
func (t Thinning) Valid() error {
	if t.Origin < 0 || t.Every < 1 || t.Every&(t.Every-1) != 0 || t.Cap < MinCap || t.Cap%2 != 0 || t.Kept < 0 || t.Kept > t.Cap {
		return fmt.Errorf("thinning %+v is not one sardonics writes (origin >= 0, every a power of 2, cap even and >= %d, 0 <= kept <= cap)", t, MinCap)
	}
	return nil
}

// Halve keeps the draws at odd indices 1, 3, 5, ... of x (those at even
// multiples of the interval), in place, and returns them.
func Halve[T any](x []T) []T {
	n := len(x) / 2
	for j := range n {
		x[j] = x[2*j+1]
	}
	return x[:n]
}

// Subsample keeps the draws of x at indices f-1, 2f-1, ... (those at
// multiples of f times its interval), f a power of 2, into a new slice.
func Subsample[T any](x []T, f int) []T {
	if f <= 1 {
		return x
	}
	out := make([]T, 0, len(x)/f)
	for j := f - 1; j < len(x); j += f {
		out = append(out, x[j])
	}
	return out
}

// Moments are the exact (compensated) sums of a float series about a
// shift, its first value: N values, S = sum (x - Shift), S2 = sum (x -
// Shift)^2. The shift keeps the variance free of the cancellation that
// sum x^2 - (sum x)^2/N suffers when the spread is small against the mean
// (an energy of -7200 +- 10).
type Moments struct {
	N     int64         `json:"n"`
	Shift float64       `json:"shift"`
	S     fsum.Neumaier `json:"s"`
	S2    fsum.Neumaier `json:"s2"`
}

// Add adds x.
func (m *Moments) Add(x float64) {
	if m.N == 0 {
		m.Shift = x
	}
	m.N++
	d := x - m.Shift
	m.S.Add(d)
	m.S2.Add(d * d)
}

// PooledMean is the mean of every value added to ms, NaN for none.
func PooledMean(ms []*Moments) float64 {
	var s fsum.Neumaier
	var n int64
	for _, m := range ms {
		s.Add(m.Shift * float64(m.N))
		s.Add(m.S.Sum())
		n += m.N
	}
	if n == 0 {
		return math.NaN()
	}
	return s.Sum() / float64(n)
}

// PooledVariance is the mean of (x - mu)^2 over every value added to ms,
// mu their pooled mean (denominator n, as summary's meanSquaredDeviation);
// NaN for none.
func PooledVariance(ms []*Moments) float64 {
	mu := PooledMean(ms)
	var s fsum.Neumaier
	var n int64
	for _, m := range ms {
		c := m.Shift - mu
		s.Add(m.S2.Sum())
		s.Add(2 * c * m.S.Sum())
		s.Add(float64(m.N) * c * c)
		n += m.N
	}
	if n == 0 {
		return math.NaN()
	}
	return max(0, s.Sum()/float64(n))
}

// IntMoments are the exact sums of an integer series (the sum of the
// spins M): sum M, sum |M| and sum M^2 in 128 bits, so that a chain of
// 10^9 steps of 10^6 spins sums without rounding or overflow.
type IntMoments struct {
	N   int64     `json:"n"`
	Sum int64     `json:"sum"`
	Abs int64     `json:"abs"`
	Sq  [2]uint64 `json:"sq"` // sum M^2: high and low words
}

// Add adds v.
func (m *IntMoments) Add(v int64) {
	m.N++
	m.Sum += v
	a := v
	if a < 0 {
		a = -a
	}
	m.Abs += a
	hi, lo := bits.Mul64(uint64(a), uint64(a))
	var c uint64
	m.Sq[1], c = bits.Add64(m.Sq[1], lo, 0)
	m.Sq[0], _ = bits.Add64(m.Sq[0], hi, c)
}

// PooledInt is the pooled mean of x/scale and of |x|/scale, and the
// variances (denominator n) of x/scale and of |x|/scale, over every value
// added to ms, computed exactly in integers and rounded once; NaN for
// none.
func PooledInt(ms []*IntMoments, scale float64) (mean, absMean, v, absV float64) {
	n, s, a, q := new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	for _, m := range ms {
		n.Add(n, big.NewInt(m.N))
		s.Add(s, big.NewInt(m.Sum))
		a.Add(a, big.NewInt(m.Abs))
		sq := new(big.Int).SetUint64(m.Sq[0])
		sq.Lsh(sq, 64)
		sq.Add(sq, new(big.Int).SetUint64(m.Sq[1]))
		q.Add(q, sq)
	}
	if n.Sign() == 0 {
		nan := math.NaN()
		return nan, nan, nan, nan
	}
	ratio := func(num, den *big.Int) float64 {
		f, _ := new(big.Rat).SetFrac(num, den).Float64()
		return f
	}
	nf := new(big.Int).Mul(n, n)
	// n sum x^2 - (sum x)^2, over n^2: the variance, exact until divided.
	varNum := func(sum *big.Int) *big.Int {
		return new(big.Int).Sub(new(big.Int).Mul(n, q), new(big.Int).Mul(sum, sum))
	}
	mean, absMean = ratio(s, n)/scale, ratio(a, n)/scale
	v, absV = ratio(varNum(s), nf)/(scale*scale), ratio(varNum(a), nf)/(scale*scale)
	return mean, absMean, v, absV
}

// compile-time check that the sums marshal (fsum.Neumaier implements it).
var _ json.Marshaler = fsum.Neumaier{}

// HalveFrom halves the draws of x from index b on (Halve), leaving x[:b]
// as it is.
func HalveFrom[T any](x []T, b int) []T { return x[:b+len(Halve(x[b:]))] }
