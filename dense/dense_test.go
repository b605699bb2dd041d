package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

func rbmEnergy(m *model.RBM, s []int8) float64 {
	v, h := make([]uint8, m.V), make([]uint8, m.H)
	model.SpinsToBits(s[:m.V], v)
	model.SpinsToBits(s[m.V:], h)
	return m.Energy(v, h)
}

func TestExp(t *testing.T) {
	r := rand.NewPCG(1, 1)
	for i := 0; i < 200000; i++ {
		x := (2*rng.Float64(r) - 1) * 708
		if i%2 == 0 {
			x /= 300
		}
		if got, want := exp(x), math.Exp(x); math.Abs(got-want) > 1e-13*want {
			t.Fatalf("exp(%v) = %v (math.Exp %v, %.2g relative)", x, got, want, (got-want)/want)
		}
	}
}

func TestWeightMatchesLogWeight(t *testing.T) {
	for _, wf := range []saw.Weight{saw.Logistic, saw.Exp} {
		for x := -800.0; x <= 800; x += 0.37 {
			got, want := Weight(wf, 1.3, x), math.Exp(saw.LogWeight(wf, 1.3, x))
			if !(got > 0) || math.IsInf(got, 0) || math.Abs(got-want) > 1e-13*want {
				t.Fatalf("%v weight(1.3, %g) = %g (expected exp(LogWeight) = %g)", wf, x, got, want)
			}
		}
	}
}

// TestReplayMatchesNaive compares Replay (both directions) and Walk with the
// reference engine on random paths of random small RBMs.
func TestReplayMatchesNaive(t *testing.T) {
	r := rand.NewPCG(7, 7)
	for trial := 0; trial < 40; trial++ {
		v, h := 1+rng.Intn(r, 7), 1+rng.Intn(r, 7)
		m := rbmtest.RandomRBM(t, v, h, 0.3+2*rng.Float64(r), uint64(trial))
		im, err := m.Ising()
		if err != nil {
			t.Fatal(err)
		}
		n := v + h
		wf := saw.Weight(trial % 2)
		gl, gh := 0.2+rng.Float64(r), 0.5+rng.Float64(r)
		s0 := rbmtest.RandomSpins(r, n)
		d, ref := New(m, s0), saw.NewNaive(im, s0)
		d.SetBiases(gl, gh, wf)
		ref.SetBiases(gl, gh, wf)
		for rep := 0; rep < 10; rep++ {
			path := rbmtest.RandomPath(r, n, 1+rng.Intn(r, n))
			back := rep%3 == 2
			lf, dE := d.Replay(path, back)
			lfr, dEr := ref.Replay(path, back)
			if !rbmtest.Close9(lf[0], lfr[0]) || !rbmtest.Close9(lf[1], lfr[1]) || !rbmtest.Close9(dE, dEr) {
				t.Fatalf("trial %d: Replay = %v, %g (naive %v, %g)", trial, lf, dE, lfr, dEr)
			}
			if e := rbmEnergy(m, d.Spins()); !rbmtest.Close9(d.Energy(), e) || !rbmtest.Close9(e, im.Energy(d.Spins())) {
				t.Fatalf("trial %d: Energy %g, RBM %g, Ising %g", trial, d.Energy(), e, im.Energy(d.Spins()))
			}
			// A walk's reported probabilities equal the naive replay of its path.
			start := append([]int8(nil), d.Spins()...)
			b := rep % 2
			wp, lw, dEw := d.Walk(r, 1+rng.Intn(r, n), b, nil)
			ref.SetSpins(start)
			lfr, dEr = ref.Replay(wp, false)
			if !rbmtest.Close9(lw[0], lfr[0]) || !rbmtest.Close9(lw[1], lfr[1]) || !rbmtest.Close9(dEw, dEr) {
				t.Fatalf("trial %d: Walk %v = %v, %g (naive replay %v, %g)", trial, wp, lw, dEw, lfr, dEr)
			}
			f := rbmtest.RandomPath(r, n, rng.Intn(r, n+1))
			d.Flip(f)
			ref.Flip(f)
			if !rbmtest.Close9(d.Energy(), ref.Energy()) {
				t.Fatalf("trial %d: after Flip energy %g (naive %g)", trial, d.Energy(), ref.Energy())
			}
		}
	}
}

// TestWalkDistribution checks the first pick of a walk against w_l / Z.
func TestWalkDistribution(t *testing.T) {
	m := rbmtest.RandomRBM(t, 3, 2, 1, 3)
	s0 := []int8{1, -1, 1, -1, 1}
	d := New(m, s0)
	d.SetBiases(0.7, 1.2, saw.Logistic)
	r := rand.NewPCG(1, 2)
	const n = 200000
	counts := make([]float64, 5)
	for i := 0; i < n; i++ {
		p, _, _ := d.Walk(r, 1, 1, nil)
		counts[p[0]]++
		d.Flip(p)
	}
	z := 0.0
	var w [5]float64
	for l := range w {
		w[l] = math.Exp(saw.LogWeight(saw.Logistic, 1.2, float64(s0[l])*d.field[l]))
		z += w[l]
	}
	for l := range w {
		p := w[l] / z
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(counts[l]/n-p) > 5*sd {
			t.Errorf("bit %d picked with frequency %.4f (expected %.4f +- %.4f)", l, counts[l]/n, p, sd)
		}
	}
}

// TestDrift bounds the rounding drift of the incremental fields and energy.
func TestDrift(t *testing.T) {
	m := rbmtest.RandomRBM(t, 60, 40, 1, 5)
	r := rand.NewPCG(3, 4)
	d := New(m, rbmtest.RandomSpins(r, 100))
	for i := 0; i < 3*RefreshEvery+1234; i++ {
		d.Flip([]int32{int32(rng.Intn(r, 100))})
	}
	if d.since >= RefreshEvery || d.since == 0 {
		t.Fatalf("%d flips since the last refresh (expected 1..%d)", d.since, RefreshEvery-1)
	}
	fresh := New(m, d.Spins())
	for i, f := range d.field {
		if math.Abs(f-fresh.field[i]) > 1e-9 {
			t.Fatalf("field %d drifted: %g (from scratch %g)", i, f, fresh.field[i])
		}
	}
	if math.Abs(d.Energy()-rbmEnergy(m, d.Spins())) > 1e-9 {
		t.Fatalf("energy drifted: %g (from scratch %g)", d.Energy(), rbmEnergy(m, d.Spins()))
	}
}

// TestHugeCouplings: |W| up to 1e3 at gamma 1 keeps every weight positive and
// finite and every log-probability finite.
func TestHugeCouplings(t *testing.T) {
	m := rbmtest.RandomRBM(t, 20, 15, 1000, 9)
	r := rand.NewPCG(5, 6)
	for _, wf := range []saw.Weight{saw.Logistic, saw.Exp} {
		d := New(m, rbmtest.RandomSpins(r, 35))
		d.SetBiases(1, 1.1, wf)
		for rep := 0; rep < 50; rep++ {
			p, lf, dE := d.Walk(r, 35, rep%2, nil)
			lr, dEr := d.Replay(p, true)
			for _, x := range []float64{lf[0], lf[1], lr[0], lr[1], dE} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%v: walk gave %v, %g; reverse %v", wf, lf, dE, lr)
				}
			}
			if !rbmtest.Close9(dE, -dEr) {
				t.Fatalf("%v: walk dE %g, reverse %g", wf, dE, dEr)
			}
			for l := range d.avail {
				if !(d.t.W[0][l] > 0 && d.t.W[1][l] > 0) && !d.stale {
					t.Fatalf("%v: weight of bit %d is %g, %g", wf, l, d.t.W[0][l], d.t.W[1][l])
				}
			}
		}
	}
}

func TestKernelDetailedBalance(t *testing.T) {
	m := rbmtest.RandomRBM(t, 3, 2, 1, 11)
	im, err := m.Ising()
	if err != nil {
		t.Fatal(err)
	}
	theta, err := saw.ParseTheta("kl=1,ku=3,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=1")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []saw.Options{{}, {Weight: saw.Exp, Accept: saw.Joint}} {
		K, err := saw.Kernel(func(s []int8) saw.Engine { return New(m, s) }, 5, 1, theta, opts)
		if err != nil {
			t.Fatal(err)
		}
		pi := saw.Boltzmann(im, 1)
		if v := saw.CheckDetailedBalance(K, pi); v > 1e-12 {
			t.Errorf("%+v: detailed balance violated by %g", opts, v)
		}
		if v := saw.CheckRows(K); v > 1e-12 {
			t.Errorf("%+v: rows off by %g", opts, v)
		}
	}
}

func TestWeightsKernel(t *testing.T) {
	r := rand.NewPCG(2, 2)
	const n = 300
	s, f, av := rbmtest.RandomSpins(r, n), make([]float64, n), make([]bool, n)
	w0, w1 := make([]float64, n), make([]float64, n)
	for i := range f {
		f[i] = (2*rng.Float64(r) - 1) * 1000 * math.Pow(10, -4*rng.Float64(r))
		av[i] = rng.Intn(r, 5) != 0
	}
	for _, wf := range []saw.Weight{saw.Logistic, saw.Exp} {
		z0, z1 := Weights(wf, 0.9, 1.2, s, f, av, w0, w1)
		var y0, y1 float64
		for i := range f {
			a, b := 0.0, 0.0
			if av[i] {
				dE := float64(s[i]) * f[i]
				a, b = Weight(wf, 0.9, dE), Weight(wf, 1.2, dE)
			}
			if math.Abs(w0[i]-a) > 1e-15*a || math.Abs(w1[i]-b) > 1e-15*b {
				t.Fatalf("%v bit %d: Weights gives %g, %g (Weight %g, %g)", wf, i, w0[i], w1[i], a, b)
			}
			y0 += a
			y1 += b
		}
		if math.Abs(z0-y0) > 1e-14*y0 || math.Abs(z1-y1) > 1e-14*y1 {
			t.Fatalf("%v sums %g, %g (expected %g, %g)", wf, z0, z1, y0, y1)
		}
	}
}
