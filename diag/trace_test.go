package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// On an AR(1) series, whose integrated autocorrelation time is
// (1+phi)/(1-phi), ESSTau recovers it from the semivariogram at any lag.
func TestESSTauAR1(t *testing.T) {
	const n, phi = 200000, 0.95
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n)
	v := 0.0
	for i := range x {
		v = phi*v + r.NormFloat64()
		x[i] = v
	}
	variance := 1 / (1 - phi*phi)
	want := (1 + phi) / (1 - phi)
	for _, lag := range []int{1, 5, 20} {
		got := ESSTau(Semivariogram(x, lag), lag, variance, 1e6)
		if math.Abs(got/want-1) > 0.1 {
			t.Errorf("lag %d: tau %.2f, want %.2f", lag, got, want)
		}
	}
	if got := ESSTau(0, 5, variance, 777); got != 777 {
		t.Errorf("a chain that never moved: tau %v, want the cap 777", got)
	}
	if got := ESSTau(2*variance, 5, variance, 777); got != 1 {
		t.Errorf("anticorrelated window: tau %v, want 1", got)
	}
	if !math.IsNaN(Semivariogram(x[:3], 3)) {
		t.Error("semivariogram of 3 values at lag 3 is not NaN")
	}
}

// TrendZ names a drift in standard errors: a stationary series stays
// within a few, the same with a slope well beyond, a short one gets NaN;
// TauOrFloor is about 1 on independent draws and a floor (false) on a
// frozen or a too-short trace.
func TestTrendAndTauFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 4000)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	if z := TrendZ(x); !(math.Abs(z) < 4) {
		t.Errorf("stationary: z %v", z)
	}
	y := make([]float64, len(x))
	for i := range y {
		y[i] = x[i] - float64(i)/500
	}
	if z := TrendZ(y); !(z < -10) {
		t.Errorf("falling: z %v", z)
	}
	if z := TrendZ(x[:60]); !math.IsNaN(z) {
		t.Errorf("60 draws: z %v (expected NaN)", z)
	}
	if tau, ok := TauOrFloor(x); !ok || tau < 0.5 || tau > 1.5 {
		t.Errorf("independent: tau %v, %v", tau, ok)
	}
	if tau, ok := TauOrFloor(make([]float64, 50)); ok || tau != 50 {
		t.Errorf("frozen: tau %v, %v (expected its length, a floor)", tau, ok)
	}
}
