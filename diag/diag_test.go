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

func TestSplitRhat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	iid := make([][]float64, 4)
	for k := range iid {
		iid[k] = make([]float64, 1000)
		for i := range iid[k] {
			iid[k][i] = r.NormFloat64()
		}
	}
	if rh := SplitRhat(iid); !(rh > 0.99 && rh < 1.02) {
		t.Errorf("iid chains: R-hat = %v, want about 1", rh)
	}
	shifted := make([][]float64, 4)
	for k := range shifted {
		shifted[k] = make([]float64, 1000)
		for i := range shifted[k] {
			shifted[k][i] = iid[k][i] + float64(k)
		}
	}
	if rh := SplitRhat(shifted); !(rh > 1.1) {
		t.Errorf("chains with different means: R-hat = %v, want > 1.1", rh)
	}
	// Same mean, different spread: the bulk misses it, the folded one must not.
	wide := [][]float64{iid[0], iid[1], make([]float64, 1000), make([]float64, 1000)}
	for i := range wide[2] {
		wide[2][i] = 5 * iid[2][i]
		wide[3][i] = 5 * iid[3][i]
	}
	if rh := SplitRhat(wide); !(rh > 1.1) {
		t.Errorf("chains with different scales: R-hat = %v, want > 1.1", rh)
	}
	// A trend within one chain shows up through the split.
	trend := make([]float64, 1000)
	for i := range trend {
		trend[i] = float64(i) / 100
	}
	if rh := SplitRhat([][]float64{trend}); !(rh > 1.1) {
		t.Errorf("one trending chain: R-hat = %v, want > 1.1", rh)
	}
	if rh := SplitRhat([][]float64{{1, 2, 3}}); !math.IsNaN(rh) {
		t.Errorf("half-chains of length 1: R-hat = %v, want NaN", rh)
	}
	if rh := SplitRhat([][]float64{{2, 2, 2, 2}, {2, 2, 2, 2}}); rh != 1 {
		t.Errorf("identical constant chains: R-hat = %v, want 1", rh)
	}
	if rh := SplitRhat([][]float64{{2, 2, 2, 2}, {3, 3, 3, 3}}); !math.IsInf(rh, 1) {
		t.Errorf("different constant chains: R-hat = %v, want +Inf", rh)
	}
}
