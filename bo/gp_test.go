package bo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// inv3 inverts a 3x3 matrix by the adjugate: independent of the Cholesky
// path in GP.
func inv3(a [3][3]float64) [3][3]float64 {
	det := a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) -
		a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) +
		a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	var b [3][3]float64
	for i := range 3 {
		for j := range 3 {
			// cofactor C_ji / det
			r0, r1 := (j+1)%3, (j+2)%3
			c0, c1 := (i+1)%3, (i+2)%3
			b[i][j] = (a[r0][c0]*a[r1][c1] - a[r0][c1]*a[r1][c0]) / det
		}
	}
	return b
}

func TestGPClosedForm1D(t *testing.T) {
	X := [][]float64{{0}, {0.5}, {1}}
	y := []float64{1, 2, 0}
	l, sf2, sn2 := 0.5, 1.3, 0.01
	h := Hyper{LogLen: []float64{math.Log(l)}, LogSf2: math.Log(sf2), LogSn2: math.Log(sn2)}
	g := NewGP(1, GPOptions{Fixed: &h}, nil)
	if err := g.Fit(X, y); err != nil {
		t.Fatal(err)
	}
	// Standardization by hand: mean 1, population sd sqrt(2/3).
	m, s := 1.0, math.Sqrt(2.0/3)
	ys := [3]float64{0, 1 / s, -1 / s}
	k := func(a, b float64) float64 { return sf2 * math.Exp(-0.5*(a-b)*(a-b)/(l*l)) }
	var K [3][3]float64
	for i := range 3 {
		for j := range 3 {
			K[i][j] = k(X[i][0], X[j][0])
		}
		K[i][i] += sn2 + jitter
	}
	Ki := inv3(K)
	// Sanity of the hand inverse itself.
	for i := range 3 {
		for j := range 3 {
			var p float64
			for r := range 3 {
				p += K[i][r] * Ki[r][j]
			}
			if want := map[bool]float64{true: 1, false: 0}[i == j]; math.Abs(p-want) > 1e-12 {
				t.Fatalf("hand inverse wrong at %d,%d: %v", i, j, p)
			}
		}
	}
	for _, xs := range []float64{0, 0.25, 0.8, 1.7} {
		var ks [3]float64
		for i := range 3 {
			ks[i] = k(xs, X[i][0])
		}
		var mu, q float64
		for i := range 3 {
			for j := range 3 {
				mu += ks[i] * Ki[i][j] * ys[j]
				q += ks[i] * Ki[i][j] * ks[j]
			}
		}
		wantMu, wantVar := m+s*mu, s*s*(sf2-q)
		gotMu, gotVar := g.Predict([]float64{xs})
		if math.Abs(gotMu-wantMu) > 1e-10 || math.Abs(gotVar-wantVar) > 1e-10 {
			t.Errorf("x=%v: got (%.12g, %.12g), want (%.12g, %.12g)", xs, gotMu, gotVar, wantMu, wantVar)
		}
	}
	// Log likelihood: -0.5 ys' K^-1 ys - 0.5 log det K - 1.5 log 2pi.
	var fit float64
	for i := range 3 {
		for j := range 3 {
			fit += ys[i] * Ki[i][j] * ys[j]
		}
	}
	detK := K[0][0]*(K[1][1]*K[2][2]-K[1][2]*K[2][1]) - K[0][1]*(K[1][0]*K[2][2]-K[1][2]*K[2][0]) +
		K[0][2]*(K[1][0]*K[2][1]-K[1][1]*K[2][0])
	want := -0.5*fit - 0.5*math.Log(detK) - 1.5*math.Log(2*math.Pi)
	got, err := g.LogLikelihood(h)
	if err != nil || math.Abs(got-want) > 1e-9 {
		t.Errorf("log likelihood %v (err %v), want %v", got, err, want)
	}
}

func TestGPLogLikelihoodGradient(t *testing.T) {
	r := rand.NewPCG(1, 2)
	const dim, n = 3, 12
	X := LatinHypercube(n, dim, r)
	y := make([]float64, n)
	rr := rand.New(r)
	for i, x := range X {
		y[i] = math.Sin(4*x[0]) + x[1]*x[1] + 0.1*rr.NormFloat64()
	}
	g := NewGP(dim, GPOptions{Fixed: &Hyper{LogLen: []float64{0, 0, 0}}}, nil)
	if err := g.Fit(X, y); err != nil {
		t.Fatal(err)
	}
	for _, h := range []Hyper{
		{LogLen: []float64{math.Log(0.3), math.Log(0.7), math.Log(2)}, LogSf2: 0.2, LogSn2: math.Log(0.05)},
		{LogLen: []float64{math.Log(0.1), math.Log(1.5), math.Log(0.4)}, LogSf2: -0.5, LogSn2: math.Log(0.3)},
	} {
		grad := make([]float64, dim+2)
		if _, err := g.LogLikelihoodGrad(h, grad); err != nil {
			t.Fatal(err)
		}
		v := h.vec()
		for j := range v {
			const eps = 1e-5
			vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
			vp[j] += eps
			vm[j] -= eps
			fp, _ := g.LogLikelihood(hyperFromVec(vp))
			fm, _ := g.LogLikelihood(hyperFromVec(vm))
			fd := (fp - fm) / (2 * eps)
			if math.Abs(fd-grad[j]) > 1e-5*math.Max(1, math.Abs(fd)) {
				t.Errorf("hyper %d: analytic %.9g, finite difference %.9g", j, grad[j], fd)
			}
		}
	}
}

// Fitting must not do worse than its first start, and ARD must tell a
// relevant dimension from an irrelevant one.
func TestGPFitARD(t *testing.T) {
	r := rand.NewPCG(3, 4)
	X := LatinHypercube(30, 2, r)
	y := make([]float64, len(X))
	rr := rand.New(r)
	for i, x := range X {
		y[i] = math.Sin(6*x[0]) + 0.05*rr.NormFloat64()
	}
	g := NewGP(2, GPOptions{}, r)
	if err := g.Fit(X, y); err != nil {
		t.Fatal(err)
	}
	h := g.Hyper()
	ll, _ := g.LogLikelihood(h)
	ll0, _ := g.LogLikelihood(DefaultHyper(2))
	if ll < ll0 {
		t.Errorf("fitted log likelihood %v below the default start's %v", ll, ll0)
	}
	l0, l1 := math.Exp(h.LogLen[0]), math.Exp(h.LogLen[1])
	if !(l1 > 5*l0) {
		t.Errorf("length scales %v (relevant), %v (irrelevant): want the second much longer", l0, l1)
	}
	if mu, _ := g.Predict([]float64{0.25, 0.5}); math.Abs(mu-math.Sin(1.5)) > 0.1 {
		t.Errorf("prediction %v at x0=0.25, want about %v", mu, math.Sin(1.5))
	}
	t.Logf("l=(%.3g, %.3g) sf2=%.3g sn2=%.3g ll=%.4g (default %.4g)", l0, l1, math.Exp(h.LogSf2), math.Exp(h.LogSn2), ll, ll0)
}

// BenchmarkGPFit times one hyperparameter fit (default options, cold start)
// in 8 dimensions and reports the log likelihood reached.
func BenchmarkGPFit(b *testing.B) {
	for _, n := range []int{50, 100, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			const dim = 8
			r := rand.NewPCG(5, 6)
			rr := rand.New(r)
			X := LatinHypercube(n, dim, r)
			y := make([]float64, n)
			for i, x := range X {
				for k, v := range x {
					y[i] += math.Sin(float64(k+1) * v)
				}
				y[i] += 0.1 * rr.NormFloat64()
			}
			var ll float64
			for i := range b.N {
				g := NewGP(dim, GPOptions{}, rand.NewPCG(uint64(i), 7))
				if err := g.Fit(X, y); err != nil {
					b.Fatal(err)
				}
				ll, _ = g.LogLikelihood(g.Hyper())
			}
			b.ReportMetric(ll, "loglik")
		})
	}
}
