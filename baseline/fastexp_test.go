package baseline

import (
	"math"
	"testing"

	"sardonics/rng"
)

func TestExpApprox(t *testing.T) {
	worst := 0.0
	for z := -fastRange; z <= fastRange; z++ {
		for _, f := range []float64{0, 0.1234, 0.3466, 0.3467, 0.5, 0.75, 0.999} {
			x := float64(z) + f
			if x > fastRange {
				continue
			}
			want := math.Exp(x)
			worst = max(worst, math.Abs(expApprox(x)-want)/want)
		}
	}
	t.Logf("worst relative error %.3g", worst)
	if worst > 5e-6 {
		t.Errorf("expApprox relative error %.3g (expected below 5e-6)", worst)
	}
}

// TestFastDecisions checks that the fast comparisons agree with math.Exp on
// random draws, including draws placed right at the threshold.
func TestFastDecisions(t *testing.T) {
	r := rng.Stream(8, 8)
	for k := range 2_000_000 {
		x := (rng.Float64(r) - 0.5) * 60
		if k%100 == 0 {
			x = (rng.Float64(r) - 0.5) * 2000
		}
		u := rng.Float64(r)
		p := 1 / (1 + math.Exp(-x))
		if k%3 == 0 { // near the threshold, where the slow path decides
			u = p + (rng.Float64(r)-0.5)*4e-5
		}
		if got, want := belowLogistic(u, x), u < p; got != want {
			t.Fatalf("belowLogistic(%v, %v) = %v (expected %v)", u, x, got, want)
		}
		y := math.Abs(x)
		q := math.Exp(-y)
		if k%3 == 0 {
			u = q + (rng.Float64(r)-0.5)*4e-5
		}
		if got, want := belowExpNeg(u, y), u < q; got != want {
			t.Fatalf("belowExpNeg(%v, %v) = %v (expected %v)", u, y, got, want)
		}
	}
}
