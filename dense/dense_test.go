package dense

import (
	"math"
	"math/rand/v2"
	"slices"
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

// refReplay is the log-probability at both biases of replaying path from
// spins s0 with the quantized weights of q and tb, everything computed
// from scratch at every pick (fields, classes, sums): the definition the
// engines' incremental sums and ReverseLogProbs must equal exactly.
func refReplay(q *Quant, tb *Bias, s0 []int8, path []int32) [2]float64 {
	s := append([]int8(nil), s0...)
	F := make([]int32, len(s))
	taken := make([]bool, len(s))
	var lf [2]float64
	for _, l := range path {
		q.Fields(s, F)
		var z [2]uint64
		for u := range s {
			if !taken[u] {
				c := tb.Class(s[u], F[u])
				z[0] += uint64(tb.W[0][c])
				z[1] += uint64(tb.W[1][c])
			}
		}
		c := tb.Class(s[l], F[l])
		lf[0] += tb.Log[0][c] - math.Log(float64(z[0]))
		lf[1] += tb.Log[1][c] - math.Log(float64(z[1]))
		taken[l] = true
		s[l] = -s[l]
	}
	return lf
}

// TestReplayMatchesNaive compares Replay (both directions) and Walk with the
// reference engine (energies) and with refReplay (log-probabilities,
// exactly) on random paths of random small RBMs, and the fast reverse
// with Replay.
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
			rp := path
			if back {
				rp = slices.Clone(path)
				slices.Reverse(rp)
			}
			want := refReplay(d.q, d.bias, d.Spins(), rp)
			lf, dE := d.Replay(path, back)
			_, dEr := ref.Replay(path, back)
			if lf != want || !rbmtest.Close9(dE, dEr) {
				t.Fatalf("trial %d: Replay = %v, %g (reference %v, naive dE %g)", trial, lf, dE, want, dEr)
			}
			if e := rbmEnergy(m, d.Spins()); !rbmtest.Close9(d.Energy(), e) || !rbmtest.Close9(e, im.Energy(d.Spins())) {
				t.Fatalf("trial %d: Energy %g, RBM %g, Ising %g", trial, d.Energy(), e, im.Energy(d.Spins()))
			}
			// A walk's reported probabilities equal the naive replay of its path.
			start := append([]int8(nil), d.Spins()...)
			b := rep % 2
			wp, lw, dEw := d.Walk(r, 1+rng.Intn(r, n), b, nil)
			ref.SetSpins(start)
			_, dEr = ref.Replay(wp, false)
			if want := refReplay(d.q, d.bias, start, wp); lw != want || !rbmtest.Close9(dEw, dEr) {
				t.Fatalf("trial %d: Walk %v = %v, %g (reference %v, naive dE %g)", trial, wp, lw, dEw, want, dEr)
			}
			// The fast reverse equals the backward replay from the end state.
			var rev [1][2]float64
			if !d.ReverseLogProbs(wp, []int{0, len(wp)}, rev[:]) {
				t.Fatalf("trial %d: no fast reverse after a walk", trial)
			}
			end := slices.Clone(d.Spins())
			rw := slices.Clone(wp)
			slices.Reverse(rw)
			if want := refReplay(d.q, d.bias, end, rw); rev[0] != want {
				t.Fatalf("trial %d: fast reverse %v (reference %v)", trial, rev[0], want)
			}
			if !slices.Equal(d.Spins(), end) {
				t.Fatalf("trial %d: ReverseLogProbs changed the state", trial)
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

// TestWalkDistribution checks the first pick of a walk against w_l / Z
// (the engine's integer weights).
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
		c := d.bias.Class(s0[l], d.F[l])
		w[l] = float64(d.bias.W[1][c])
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
	for i, f := range d.fields() {
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
			for l := range d.mask {
				if !(d.t.W[0][l] > 0 && d.t.W[1][l] > 0) && !d.stale {
					t.Fatalf("%v: weight of bit %d is %d, %d", wf, l, d.t.W[0][l], d.t.W[1][l])
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

// TestBiasTables: every weight is an integer in [1, 2^31] with its
// logarithm beside it, non-increasing in dE, and within 2% of the ideal
// weight (saw.LogWeight, up to the tables' normalization) wherever the
// ideal weight is not below 2^-20 of the largest.
func TestBiasTables(t *testing.T) {
	for _, wf := range []saw.Weight{saw.Logistic, saw.Exp} {
		for _, S := range []int{24, 10, -3} {
			for _, g := range [][2]float64{{0.9, 1.1}, {1, 1}, {0.05, 3}, {0, 1}, {1e6, 2e6}} {
				tb := NewBias(S, g[0], g[1], wf)
				delta := math.Ldexp(1, int(tb.Shift)-S)
				for b := range 2 {
					norm := 0.0
					if wf == saw.Exp {
						norm = -rangeExp
					}
					for c := range Classes {
						w := tb.W[b][c]
						if w < 1 || w > WeightOne || tb.Log[b][c] != math.Log(float64(w)) {
							t.Fatalf("%v S=%d g=%v: class %d weight %d, log %g", wf, S, g, c, w, tb.Log[b][c])
						}
						if c > 0 && w > tb.W[b][c-1] {
							t.Fatalf("%v S=%d g=%v: weights increase at class %d", wf, S, g, c)
						}
						dE := (float64(c-Classes/2) + 0.5) * delta
						ideal := math.Exp(saw.LogWeight(wf, g[b], dE)+norm) * WeightOne
						if ideal >= WeightOne/(1<<20) && ideal <= WeightOne && math.Abs(float64(w)/ideal-1) > 0.02 {
							t.Fatalf("%v S=%d g=%v: class %d (dE %g) weight %d (ideal %g)", wf, S, g, c, dE, w, ideal)
						}
					}
				}
				// Classes are floor(s F / 2^Shift), clamped.
				for _, F := range []int32{0, 1, -1, 1 << 29, -(1 << 29), 12345, -777} {
					for _, s := range []int8{1, -1} {
						k := int64(s) * int64(F) >> tb.Shift
						k = min(max(k, -Classes/2), Classes/2-1) + Classes/2
						if c := tb.Class(s, F); c != int(k) {
							t.Fatalf("Class(%d, %d) = %d (expected %d)", s, F, c, k)
						}
					}
				}
			}
		}
	}
}

// TestQuant: fixed-point fields stay below 2^30 and approximate the float
// fields to the rounding of the couplings.
func TestQuant(t *testing.T) {
	r := rand.NewPCG(4, 4)
	for _, scale := range []float64{1e-6, 0.1, 1, 1e3, 1e9} {
		m := rbmtest.RandomRBM(t, 13, 9, scale, 2)
		q := NewQuant(m)
		d := New(m, rbmtest.RandomSpins(r, 22))
		for i, F := range d.F {
			if F >= maxField || F <= -maxField {
				t.Fatalf("scale %g: field %d is %d", scale, i, F)
			}
			if got := math.Ldexp(float64(F), -q.S); math.Abs(got-d.field[i]) > 23*math.Ldexp(1, -q.S) {
				t.Fatalf("scale %g: fixed-point field %d is %g (float %g)", scale, i, got, d.field[i])
			}
		}
	}
}

// TestUpdateKernel: Table.Update equals the weights and sums computed bit by
// bit, with and without a field change.
func TestUpdateKernel(t *testing.T) {
	r := rand.NewPCG(2, 2)
	const n0, n1 = 70, 300
	tb := NewBias(20, 0.9, 1.2, saw.Logistic)
	tab := NewTable(n0, n1)
	s := rbmtest.RandomSpins(r, n1)
	F, f, mask := make([]int32, n1), make([]float64, n1), make([]uint32, n1)
	rowq, row := make([]int32, n1), make([]float64, n1)
	for i := range F {
		F[i] = int32(rng.Intn(r, 1<<24)) - 1<<23
		rowq[i] = int32(rng.Intn(r, 1<<20)) - 1<<19
		row[i] = float64(rowq[i]) / (1 << 20)
		f[i] = float64(F[i]) / (1 << 20)
		if rng.Intn(r, 5) != 0 {
			mask[i] = ^uint32(0)
		}
	}
	for rep, d := range []int32{0, 1, -1, 1} {
		if d == 0 {
			tab.Update(1, tb, s, F, nil, mask, nil, nil, 0)
		} else {
			tab.Update(1, tb, s, F, f, mask, rowq, row, d)
		}
		var z [2]uint64
		for i := range F {
			c := tb.Class(s[i], F[i])
			for b := range 2 {
				w := tb.W[b][c] & mask[i]
				if tab.W[b][n0+i] != w {
					t.Fatalf("rep %d bit %d: weight %d (expected %d)", rep, i, tab.W[b][n0+i], w)
				}
				z[b] += uint64(w)
			}
		}
		if tab.Sum[1] != z || tab.Z(0) != z[0] || tab.Z(1) != z[1] {
			t.Fatalf("rep %d: sums %v (expected %v)", rep, tab.Sum[1], z)
		}
		// Draw finds the bit whose cumulative weight covers u.
		for _, u := range []uint64{0, 1, z[0] / 3, z[0] - 1} {
			l, c := tab.Draw(0, u), uint64(0)
			for k := n0; k < n0+n1; k++ {
				if u < c+uint64(tab.W[0][k]) {
					if l != k {
						t.Fatalf("Draw(%d) = %d (expected %d)", u, l, k)
					}
					break
				}
				c += uint64(tab.W[0][k])
			}
		}
		if tab.Draw(0, z[0]) != -1 {
			t.Fatal("Draw past the end did not return -1")
		}
	}
}

// TestUndoExact: a rejected move undone with Undo leaves the spins, the
// fixed-point fields, the weights and the energy exactly as they were.
func TestUndoExact(t *testing.T) {
	m := rbmtest.RandomRBM(t, 9, 7, 1, 4)
	r := rand.NewPCG(9, 9)
	d := New(m, rbmtest.RandomSpins(r, 16))
	d.SetBiases(0.9, 1.1, saw.Logistic)
	for rep := 0; rep < 200; rep++ {
		d.prepare()
		s0, F0, e0 := slices.Clone(d.s), slices.Clone(d.F), d.e
		w0 := slices.Clone(d.t.W[0])
		path, _, _ := d.Walk(r, 1+rng.Intn(r, 8), rep%2, nil)
		path, _, _ = d.Walk(r, 1+rng.Intn(r, 8), 1-rep%2, path)
		var rev [2][2]float64
		if !d.ReverseLogProbs(path, d.rec.Bounds(), rev[:]) {
			t.Fatal("no fast reverse")
		}
		d.Undo(path)
		d.prepare()
		if !slices.Equal(d.s, s0) || !slices.Equal(d.F, F0) || d.e != e0 || !slices.Equal(d.t.W[0], w0) {
			t.Fatalf("rep %d: Undo did not restore the state", rep)
		}
	}
}

// TestStateRoundTrip: a restored engine continues identically, and bad
// states are refused without a panic.
func TestStateRoundTrip(t *testing.T) {
	m := rbmtest.RandomRBM(t, 11, 6, 1, 8)
	r := rand.NewPCG(3, 3)
	a := New(m, rbmtest.RandomSpins(r, 17))
	a.SetBiases(0.9, 1.1, saw.Logistic)
	for range 50 {
		p, _, _ := a.Walk(r, 5, 0, nil)
		a.Flip(p[:2])
	}
	st := a.AppendState(nil)
	b := New(m, nil)
	if err := b.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	b.SetBiases(0.9, 1.1, saw.Logistic)
	r2 := *r
	for i := range 50 {
		pa, la, ea := a.Walk(r, 6, i%2, nil)
		pb, lb, eb := b.Walk(&r2, 6, i%2, nil)
		if !slices.Equal(pa, pb) || la != lb || ea != eb || a.Energy() != b.Energy() {
			t.Fatalf("walk %d after restore differs", i)
		}
	}
	bad := slices.Clone(st)
	bad[8] = 3 // a spin
	for _, x := range [][]byte{nil, st[:len(st)-1], bad, append(slices.Clone(st), 0)} {
		if err := b.RestoreState(x); err == nil {
			t.Fatal("bad state accepted")
		}
	}
}
