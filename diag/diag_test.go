package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

func ar1(n int, phi float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	x := make([]float64, n)
	x[0] = r.NormFloat64() / math.Sqrt(1-phi*phi) // stationary start
	for i := 1; i < n; i++ {
		x[i] = phi*x[i-1] + r.NormFloat64()
	}
	return x
}

func TestACFMatchesDirect(t *testing.T) {
	x := ar1(1000, 0.7, 1)
	for i := range x {
		x[i] += 5 // a mean far from zero must not matter
	}
	const maxLag = 60
	got := ACF(x, maxLag)
	if len(got) != maxLag+1 {
		t.Fatalf("len %d, want %d", len(got), maxLag+1)
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	c := func(lag int) float64 {
		s := 0.0
		for i := 0; i+lag < len(x); i++ {
			s += (x[i] - mean) * (x[i+lag] - mean)
		}
		return s
	}
	for lag := 0; lag <= maxLag; lag++ {
		if want := c(lag) / c(0); math.Abs(got[lag]-want) > 1e-10 {
			t.Fatalf("rho(%d) = %v, want %v", lag, got[lag], want)
		}
	}
	// Clamped lag, short and constant series.
	if r := ACF([]float64{1, 2, 3}, 10); len(r) != 3 || math.Abs(r[1]-0) > 1e-15 || math.Abs(r[2]+0.5) > 1e-15 {
		t.Fatalf("ACF(1,2,3) = %v, want [1 0 -0.5]", r)
	}
	if r := ACF([]float64{4, 4, 4, 4}, 3); r[0] != 1 || r[1] != 0 || r[3] != 0 {
		t.Fatalf("constant series ACF %v", r)
	}
	if ACF(nil, 5) != nil {
		t.Fatal("empty series gave a non-nil ACF")
	}
}

func TestTauIntAR1(t *testing.T) {
	for _, phi := range []float64{0.5, 0.9} {
		x := ar1(1<<20, phi, 7)
		want := (1 + phi) / (1 - phi)
		tau, w := TauInt(x)
		if math.Abs(tau-want) > 0.1*want {
			t.Errorf("phi=%v: tau = %v (window %d), want %v", phi, tau, w, want)
		}
		if float64(w) < SokalC*tau || float64(w-1) >= SokalC*(tau+1) {
			t.Errorf("phi=%v: window %d not Sokal's for tau %v", phi, w, tau)
		}
		// The standard error must reflect the correlation: the true
		// variance of the mean of an AR(1) chain is tau/(1-phi^2)/n.
		_, se := MeanStdErr(x, tau)
		wantSE := math.Sqrt(want / (1 - phi*phi) / float64(len(x)))
		if math.Abs(se-wantSE) > 0.1*wantSE {
			t.Errorf("phi=%v: se = %v, want %v", phi, se, wantSE)
		}
		if ess := ESS(len(x), tau); math.Abs(ess-float64(len(x))/tau) > 1e-9 {
			t.Errorf("ESS = %v", ess)
		}
	}
	if tau, w := TauInt([]float64{1}); !math.IsNaN(tau) || w != 0 {
		t.Errorf("TauInt of one sample = %v, %d", tau, w)
	}
}
