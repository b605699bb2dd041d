// Package rbmtest holds the test fixtures shared by the RBM engines' tests
// (dense and parallelsaw): random RBMs, states and paths, and the check that
// a chain samples a small RBM's exact distribution. Test code only.
package rbmtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/internal/stattest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// RandomRBM has N(0, scale^2) weights and biases drawn from PCG(seed, 1).
func RandomRBM(t testing.TB, v, h int, scale float64, seed uint64) *model.RBM {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	w := make([]float64, v*h)
	for i := range w {
		w[i] = scale * r.NormFloat64()
	}
	b, c := make([]float64, v), make([]float64, h)
	for i := range b {
		b[i] = scale * r.NormFloat64()
	}
	for j := range c {
		c[j] = scale * r.NormFloat64()
	}
	m, err := model.NewRBM(v, h, w, b, c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// RandomSpins is a uniform state of n spins.
func RandomSpins(r *rand.PCG, n int) []int8 {
	s := make([]int8, n)
	for i := range s {
		s[i] = int8(2*rng.Intn(r, 2) - 1)
	}
	return s
}

// RandomPath is k distinct bits of 0..n-1 in random order.
func RandomPath(r *rand.PCG, n, k int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	for i := 0; i < k; i++ {
		j := i + rng.Intn(r, n-i)
		p[i], p[j] = p[j], p[i]
	}
	return p[:k]
}

// Close9 is equality to 1e-9, relative above 1.
func Close9(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// CheckExact runs c for steps steps, keeping every thin-th state, and checks
// the kept states against probs (exact probabilities indexed as
// stattest.StateIndex) by chi-square (p > 1e-3) and the means of the first
// visible units within 6 standard errors.
func CheckExact(t *testing.T, c sampler.Chain, probs []float64, steps, thin, visible int) {
	t.Helper()
	counts := make([]float64, len(probs))
	vis := make([]float64, visible)
	for i := 0; i < steps; i++ {
		c.Step()
		if i%thin == 0 {
			s := c.Spins()
			counts[stattest.StateIndex(s)]++
			for k := range vis {
				if s[k] > 0 {
					vis[k]++
				}
			}
		}
	}
	if stat, df, p := stattest.ChiSquare(counts, probs); !(p > 1e-3) {
		t.Errorf("chi-square %.1f on %d df, p = %.2g (expected p > 1e-3)", stat, df, p)
	}
	n := float64(steps / thin)
	for k := range vis {
		want := 0.0
		for x, p := range probs {
			if x>>k&1 == 1 {
				want += p
			}
		}
		if got := vis[k] / n; math.Abs(got-want) > 6*math.Sqrt(want*(1-want)/n) {
			t.Errorf("mean of v_%d = %.4f (exact %.4f)", k, got, want)
		}
	}
}

// RandomDense is a dense Ising model of n spins (every pair coupled) with
// couplings and fields drawn from PCG(seed, 2): real couplings
// N(0, scale^2) and fields U(-scale, scale), or, with integer, couplings
// in {-2, -1, 1, 2} and fields in {-1, 0, 1}, both times scale.
func RandomDense(t testing.TB, n int, scale float64, integer bool, seed uint64) *model.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2))
	j := make([]float64, n*n)
	h := make([]float64, n)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			w := scale * r.NormFloat64()
			if integer {
				w = scale * float64([4]int{-2, -1, 1, 2}[r.IntN(4)])
			}
			j[a*n+b], j[b*n+a] = w, w
		}
		h[a] = scale * (2*r.Float64() - 1)
		if integer {
			h[a] = scale * float64(r.IntN(3)-1)
		}
	}
	d, err := model.NewDense(n, j, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Kind: model.KindIsing, Dense: d}
}

// CheckMeans runs c for steps steps and checks the means of the energy, of
// s_0 and of s_0 s_1 against probs (exact probabilities indexed as
// stattest.StateIndex, energies from energy), each within 5 standard
// errors estimated from 50 batch means.
func CheckMeans(t *testing.T, name string, c sampler.Chain, probs []float64, energy func([]int8) float64, steps int) {
	t.Helper()
	obs := func(s []int8) [3]float64 { return [3]float64{energy(s), float64(s[0]), float64(s[0] * s[1])} }
	var want [3]float64
	s := make([]int8, 0, 32)
	for x, p := range probs {
		if p == 0 {
			continue
		}
		s = s[:0]
		for i := 0; 1<<i < len(probs); i++ {
			s = append(s, int8(2*(x>>i&1)-1))
		}
		o := obs(s)
		for k := range want {
			want[k] += p * o[k]
		}
	}
	const batches = 50
	var sum, sum2 [3]float64
	per := steps / batches
	for range batches {
		var b [3]float64
		for range per {
			c.Step()
			o := obs(c.Spins())
			for k := range b {
				b[k] += o[k] / float64(per)
			}
		}
		for k := range b {
			sum[k] += b[k]
			sum2[k] += b[k] * b[k]
		}
	}
	for k, what := range []string{"E", "s_0", "s_0 s_1"} {
		mean := sum[k] / batches
		se := math.Sqrt(max(sum2[k]/batches-mean*mean, 0) / (batches - 1))
		if math.Abs(mean-want[k]) > 5*se+1e-9 {
			t.Errorf("%s: mean of %s %.5f +- %.5f (exact %.5f)", name, what, mean, se, want[k])
		}
	}
}
