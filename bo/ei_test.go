package bo

import (
	"math"
	"testing"
)

// eiQuadrature integrates max(f - best - xi, 0) N(f; mu, sigma^2) df by
// Simpson's rule from best+xi (the kink) to mu + 12 sigma: an independent
// check of the formula.
func eiQuadrature(mu, sigma, best, xi float64) float64 {
	const n = 20000
	a, b := math.Max(mu-12*sigma, best+xi), mu+12*sigma
	if a >= b {
		return 0
	}
	h := (b - a) / n
	g := func(f float64) float64 {
		z := (f - mu) / sigma
		return math.Max(f-best-xi, 0) * math.Exp(-0.5*z*z) / (sigma * math.Sqrt(2*math.Pi))
	}
	s := g(a) + g(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * g(a+float64(i)*h)
	}
	return s * h / 3
}

func TestExpectedImprovement(t *testing.T) {
	for _, c := range [][4]float64{
		{0, 1, 0, 0}, {0.5, 0.3, 0.2, 0.01}, {-1, 0.5, 0, 0.01}, {2, 2, 1, 0.1}, {-3, 0.4, 0, 0},
	} {
		got := ExpectedImprovement(c[0], c[1], c[2], c[3])
		want := eiQuadrature(c[0], c[1], c[2], c[3])
		if math.Abs(got-want) > 1e-8*math.Max(1, want) {
			t.Errorf("EI%v = %.12g, quadrature %.12g", c, got, want)
		}
	}
	// At mu = best + xi, EI = sigma phi(0).
	if got, want := ExpectedImprovement(1.01, 2, 1, 0.01), 2/math.Sqrt(2*math.Pi); math.Abs(got-want) > 1e-12 {
		t.Errorf("EI at z=0: %v, want %v", got, want)
	}
	// Zero variance: the improvement itself, never negative.
	if got := ExpectedImprovement(0.5, 0, 1, 0.01); got != 0 {
		t.Errorf("sigma=0, mu<best: EI %v, want 0", got)
	}
	if got := ExpectedImprovement(2, 0, 1, 0.5); got != 0.5 {
		t.Errorf("sigma=0, mu>best: EI %v, want 0.5", got)
	}
	// Monotone increasing in mu (and in sigma).
	prev := -1.0
	for mu := -5.0; mu <= 5; mu += 0.01 {
		ei := ExpectedImprovement(mu, 0.7, 0, 0.01)
		if ei < prev || ei < 0 {
			t.Fatalf("EI not monotone in mu at %v: %v after %v", mu, ei, prev)
		}
		prev = ei
	}
	if ExpectedImprovement(0, 1, 0.5, 0) <= ExpectedImprovement(0, 0.5, 0.5, 0) {
		t.Error("EI not increasing in sigma")
	}
}

func TestLogExpectedImprovement(t *testing.T) {
	// Where EI is representable, log EI is its log; across the switch to the
	// asymptotic series at z = -20 it stays continuous; below, it is finite.
	for _, z := range []float64{3, 0, -1, -5, -15, -19.999} {
		ei := ExpectedImprovement(z*0.7, 0.7, 0, 0)
		if got := LogExpectedImprovement(z*0.7, 0.7, 0, 0); math.Abs(got-math.Log(ei)) > 1e-9*math.Max(1, math.Abs(got)) {
			t.Errorf("z=%v: log EI %v, log of EI %v", z, got, math.Log(ei))
		}
	}
	direct := math.Log(normPDF(-20) - 20*normCDF(-20))
	if series := LogExpectedImprovement(-20, 1, 0, 0); math.Abs(series-direct) > 1e-6 {
		t.Errorf("at z=-20: series %v, direct %v", series, direct)
	}
	prev := math.Inf(-1)
	for z := -200.0; z < 5; z += 0.5 {
		l := LogExpectedImprovement(z, 1, 0, 0)
		if math.IsInf(l, 0) || math.IsNaN(l) || l <= prev {
			t.Fatalf("log EI at z=%v is %v after %v", z, l, prev)
		}
		prev = l
	}
	if l := LogExpectedImprovement(0, 0, 1, 0); !math.IsInf(l, -1) {
		t.Errorf("sigma=0, mu<best: log EI %v, want -Inf", l)
	}
}
