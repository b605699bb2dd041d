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
