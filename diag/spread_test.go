package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1Slow is an AR(1) chain of n draws with coefficient phi (ESS n (1 - phi) /
// (1 + phi)) plus, with slow > 0, an AR(1) of coefficient 0.999 and that
// standard deviation, a slow tail.
func ar1Slow(r *rand.Rand, n int, phi, slow float64) []float64 {
	x := make([]float64, n)
	a, b := r.NormFloat64(), r.NormFloat64()*slow
	for i := range x {
		a = phi*a + math.Sqrt(1-phi*phi)*r.NormFloat64()
		b = 0.999*b + math.Sqrt(1-0.999*0.999)*slow*r.NormFloat64()
		x[i] = a + b
	}
	return x
}

// maSlow is the shape of q^2 at the target rung with the cluster move: an
// MA(2) e_t + e_{t-1} - 0.15 e_{t-2} (lag 1 0.42, lag 2 -0.07) plus an AR(1)
// of coefficient 0.995 holding 4% of the variance (0.04 at lag 1, falling
// over hundreds of lags).
func maSlow(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	e1, e2 := r.NormFloat64(), r.NormFloat64()
	const fast = 1 + 1 + 0.15*0.15
	sd := math.Sqrt(fast * 0.04 / 0.96)
	b := r.NormFloat64() * sd
	for i := range x {
		e := r.NormFloat64()
		b = 0.995*b + math.Sqrt(1-0.995*0.995)*sd*r.NormFloat64()
		x[i] = e + e1 - 0.15*e2 + b
		e1, e2 = e, e1
	}
	return x
}

// TestTrialSpread: on independent AR(1) chains the trials' ESS covers the
// true ESS in about 90% of 200 replications (between 80% and 97%: a
// binomial 200 x 0.9 falls outside with probability below 1e-4), with
// unequal lengths too; on chains with a slow tail that the bulk ESS misses
// by far, the interval's top is below the bulk ESS.
func TestTrialSpread(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const phi = 0.5
	for _, unequal := range []bool{false, true} {
		cover := 0
		for range 200 {
			chains := make([][]float64, 8)
			N := 0
			for k := range chains {
				n := 2000
				if unequal {
					n = 1000 + 300*k
				}
				chains[k] = ar1Slow(r, n, phi, 0)
				N += n
			}
			want := float64(N) * (1 - phi) / (1 + phi)
			s := TrialSpread(chains)
			if s == nil {
				t.Fatal("no spread estimate from 8 chains")
			}
			if s.Lo <= want && want <= s.Hi {
				cover++
			}
		}
		t.Logf("unequal %v: the 90%% interval covered the true ESS in %d of 200", unequal, cover)
		if cover < 160 || cover > 194 {
			t.Errorf("unequal %v: the 90%% interval covered the true ESS in %d of 200 (expected about 180)", unequal, cover)
		}
	}
	chains := make([][]float64, 8)
	for k := range chains {
		chains[k] = maSlow(r, 20000)
	}
	bulk := Diagnose(chains).BulkESS
	s := TrialSpread(chains)
	t.Logf("slow tail: bulk ESS %.0f, trials' ESS %.0f [%.0f, %.0f]", bulk, s.ESS, s.Lo, s.Hi)
	if !(s.Hi < bulk) {
		t.Errorf("slow tail: the trials' interval [%.0f, %.0f] reaches the bulk ESS %.0f", s.Lo, s.Hi, bulk)
	}
	if u := s.Upper(0.95); math.Abs(u-s.Hi) > 1e-9*s.Hi {
		t.Errorf("Upper(0.95) %v, Hi %v", u, s.Hi)
	}
	if TrialSpread(chains[:3]) != nil {
		t.Error("an estimate from 3 chains")
	}
}
