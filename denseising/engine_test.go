package denseising

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/dense"
	"sardonics/exact"
	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

// refReplay is the log-probability at both biases of replaying path from
// spins s0 with the weights of q and tb, everything computed from scratch
// at every pick (fields, classes, sums): the definition the engine's
// incremental sums and ReverseLogProbs must equal exactly.
func refReplay(q *Quant, tb *dense.Bias, s0 []int8, path []int32) [2]float64 {
	s := slices.Clone(s0)
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

// TestReplayMatchesNaive compares Replay (both directions) and Walk with
// the reference engine (energies) and with refReplay (log-probabilities,
// exactly) on random paths of random dense models, real and integer, and
// the fast reverse with Replay.
func TestReplayMatchesNaive(t *testing.T) {
	r := rand.NewPCG(7, 7)
	for trial := range 40 {
		n := 1 + rng.Intn(r, 40)
		m := rbmtest.RandomDense(t, n, 0.1+2*rng.Float64(r), trial%3 == 0, uint64(trial))
		d, is := m.Dense, m.Sparse()
		wf := saw.Weight(trial % 2)
		gl, gh := 0.2+rng.Float64(r), 0.5+rng.Float64(r)
		s0 := rbmtest.RandomSpins(r, n)
		e, ref := New(d, s0), saw.NewNaive(is, s0)
		e.SetBiases(gl, gh, wf)
		ref.SetBiases(gl, gh, wf)
		for rep := range 10 {
			path := rbmtest.RandomPath(r, n, 1+rng.Intn(r, n))
			back := rep%3 == 2
			rp := path
			if back {
				rp = slices.Clone(path)
				slices.Reverse(rp)
			}
			want := refReplay(e.q, e.bias, e.Spins(), rp)
			lf, dE := e.Replay(path, back)
			_, dEr := ref.Replay(path, back)
			if lf != want || !rbmtest.Close9(dE, dEr) {
				t.Fatalf("trial %d: Replay = %v, %g (reference %v, naive dE %g)", trial, lf, dE, want, dEr)
			}
			if en := is.Energy(e.Spins()); !rbmtest.Close9(e.Energy(), en) {
				t.Fatalf("trial %d: Energy %g, model %g", trial, e.Energy(), en)
			}
			start := slices.Clone(e.Spins())
			b := rep % 2
			wp, lw, dEw := e.Walk(r, 1+rng.Intn(r, n), b, nil)
			ref.SetSpins(start)
			_, dEr = ref.Replay(wp, false)
			if want := refReplay(e.q, e.bias, start, wp); lw != want || !rbmtest.Close9(dEw, dEr) {
				t.Fatalf("trial %d: Walk %v = %v, %g (reference %v, naive dE %g)", trial, wp, lw, dEw, want, dEr)
			}
			var rev [1][2]float64
			if !e.ReverseLogProbs(wp, []int{0, len(wp)}, rev[:]) {
				t.Fatalf("trial %d: no fast reverse after a walk", trial)
			}
			end := slices.Clone(e.Spins())
			rw := slices.Clone(wp)
			slices.Reverse(rw)
			if want := refReplay(e.q, e.bias, end, rw); rev[0] != want {
				t.Fatalf("trial %d: fast reverse %v (reference %v)", trial, rev[0], want)
			}
			if !slices.Equal(e.Spins(), end) {
				t.Fatalf("trial %d: ReverseLogProbs changed the state", trial)
			}
			f := rbmtest.RandomPath(r, n, rng.Intn(r, n+1))
			e.Flip(f)
			ref.Flip(f)
			if !rbmtest.Close9(e.Energy(), ref.Energy()) {
				t.Fatalf("trial %d: after Flip energy %g (naive %g)", trial, e.Energy(), ref.Energy())
			}
		}
	}
}

// TestReverseWithoutPairs: with the path's couplings not recorded (a path
// longer than maxPairPath), the fast reverse reads them from the matrix
// and still equals the reference.
func TestReverseWithoutPairs(t *testing.T) {
	defer func(k int) { maxPairPath = k }(maxPairPath)
	maxPairPath = 3
	r := rand.NewPCG(8, 8)
	m := rbmtest.RandomDense(t, 12, 0.8, false, 3)
	e := New(m.Dense, rbmtest.RandomSpins(r, 12))
	e.SetBiases(0.7, 1.3, saw.Logistic)
	for rep := range 50 {
		start := slices.Clone(e.Spins())
		p1, _, _ := e.Walk(r, 1+rng.Intn(r, 12), rep%2, nil)
		mid := slices.Clone(e.Spins())
		p2, _, _ := e.Walk(r, 1+rng.Intn(r, 12), 1-rep%2, slices.Clone(p1))
		var rev [2][2]float64
		if !e.ReverseLogProbs(p2, []int{0, len(p1), len(p2)}, rev[:]) {
			t.Fatal("no fast reverse")
		}
		w2 := slices.Clone(p2[len(p1):])
		slices.Reverse(w2)
		w1 := slices.Clone(p1)
		slices.Reverse(w1)
		if want := refReplay(e.q, e.bias, e.Spins(), w2); rev[0] != want {
			t.Fatalf("rep %d: reverse of walk 2 %v (reference %v)", rep, rev[0], want)
		}
		if want := refReplay(e.q, e.bias, mid, w1); rev[1] != want {
			t.Fatalf("rep %d: reverse of walk 1 %v (reference %v)", rep, rev[1], want)
		}
		if rep%2 == 0 {
			e.Undo(p2)
			if !slices.Equal(e.Spins(), start) {
				t.Fatal("Undo did not restore the spins")
			}
		}
	}
}

// TestWalkDistribution checks the first pick of a walk against w_l / Z
// (the engine's integer weights).
func TestWalkDistribution(t *testing.T) {
	m := rbmtest.RandomDense(t, 5, 1, false, 3)
	s0 := []int8{1, -1, 1, -1, 1}
	e := New(m.Dense, s0)
	e.SetBiases(0.7, 1.2, saw.Logistic)
	r := rand.NewPCG(1, 2)
	const n = 200000
	counts := make([]float64, 5)
	for range n {
		p, _, _ := e.Walk(r, 1, 1, nil)
		counts[p[0]]++
		e.Flip(p)
	}
	z := 0.0
	var w [5]float64
	for l := range w {
		c := e.bias.Class(s0[l], e.F[l])
		w[l] = float64(e.bias.W[1][c])
		z += w[l]
	}
	for l := range w {
		p := w[l] / z
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(counts[l]/n-p) > 5*sd {
			t.Errorf("spin %d picked with frequency %.4f (expected %.4f +- %.4f)", l, counts[l]/n, p, sd)
		}
	}
}

// kernelBalance is the detailed-balance violation and the row-sum error
// of the engine's exact one-move transition matrix on m.
func kernelBalance(t *testing.T, m *model.Model, opts saw.Options) (db, rows float64) {
	t.Helper()
	theta, err := saw.ParseTheta("kl=1,ku=3,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=1")
	if err != nil {
		t.Fatal(err)
	}
	K, err := saw.Kernel(func(s []int8) saw.Engine { return New(m.Dense, s) }, m.Dense.N, 1, theta, opts)
	if err != nil {
		t.Fatal(err)
	}
	return saw.CheckDetailedBalance(K, saw.Boltzmann(m.Sparse(), 1)), saw.CheckRows(K)
}

// TestKernelDetailedBalance: the exact one-move transition matrix of the
// engine is reversible (<= 1e-12) with respect to pi and stochastic, for
// real and integer couplings and both weights and rules (the check can
// fail: TestKernelBrokenReverseCaught, under the tag inject).
func TestKernelDetailedBalance(t *testing.T) {
	for _, integer := range []bool{false, true} {
		m := rbmtest.RandomDense(t, 5, 0.7, integer, 11)
		for _, opts := range []saw.Options{{}, {Weight: saw.Exp, Accept: saw.Joint}} {
			if db, rows := kernelBalance(t, m, opts); db > 1e-12 || rows > 1e-12 {
				t.Errorf("integer %v %+v: detailed balance %.3g, rows %.3g (expected <= 1e-12)", integer, opts, db, rows)
			}
		}
	}
}

// TestUndoExact: a rejected move undone with Undo leaves the spins, the
// fixed-point fields, the weights and the energy exactly as they were.
func TestUndoExact(t *testing.T) {
	m := rbmtest.RandomDense(t, 37, 0.5, false, 4)
	r := rand.NewPCG(9, 9)
	e := New(m.Dense, rbmtest.RandomSpins(r, 37))
	e.SetBiases(0.9, 1.1, saw.Logistic)
	for rep := range 200 {
		e.prepare()
		s0, F0, e0, w0 := slices.Clone(e.s), slices.Clone(e.F), e.e, slices.Clone(e.t.W)
		path, _, _ := e.Walk(r, 1+rng.Intn(r, 8), rep%2, nil)
		path, _, _ = e.Walk(r, 1+rng.Intn(r, 8), 1-rep%2, path)
		var rev [2][2]float64
		if !e.ReverseLogProbs(path, e.rec.Bounds(), rev[:]) {
			t.Fatal("no fast reverse")
		}
		e.Undo(path)
		e.prepare()
		if !slices.Equal(e.s, s0) || !slices.Equal(e.F, F0) || e.e != e0 || !slices.Equal(e.t.W, w0) {
			t.Fatalf("rep %d: Undo did not restore the state", rep)
		}
	}
}

// TestStateRoundTrip: a restored engine continues identically, and bad
// states are refused without a panic.
func TestStateRoundTrip(t *testing.T) {
	m := rbmtest.RandomDense(t, 23, 1, false, 8)
	r := rand.NewPCG(3, 3)
	a := New(m.Dense, rbmtest.RandomSpins(r, 23))
	a.SetBiases(0.9, 1.1, saw.Logistic)
	for range 50 {
		p, _, _ := a.Walk(r, 5, 0, nil)
		a.Flip(p[:2])
	}
	st := a.AppendState(nil)
	b := New(m.Dense, nil)
	if err := b.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	b.SetBiases(0.9, 1.1, saw.Logistic)
	r2 := *r
	for i := range 50 {
		pa, la, ea := a.Walk(&r2, 6, i%2, nil)
		pb, lb, eb := b.Walk(r, 6, i%2, nil)
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

// TestRefresh: past the refresh, the running energy equals the model's.
func TestRefresh(t *testing.T) {
	m := rbmtest.RandomDense(t, 20, 1, false, 5)
	r := rand.NewPCG(3, 4)
	e := New(m.Dense, rbmtest.RandomSpins(r, 20))
	for range 3*RefreshEvery + 1234 {
		e.Flip([]int32{int32(rng.Intn(r, 20))})
	}
	if e.since >= e.every || e.since == 0 {
		t.Fatalf("%d flips since the last refresh (expected 1..%d)", e.since, e.every-1)
	}
	if want := m.Dense.Energy(e.Spins()); math.Abs(e.Energy()-want) > 1e-9 {
		t.Fatalf("energy drifted: %g (from scratch %g)", e.Energy(), want)
	}
}

// TestQuant: fixed-point couplings fit int16, fields stay below 2^30, and
// F 2^-S approximates the float field to the rounding of the couplings.
func TestQuant(t *testing.T) {
	r := rand.NewPCG(4, 4)
	for _, scale := range []float64{1e-6, 0.1, 1, 1e3, 1e9} {
		m := rbmtest.RandomDense(t, 40, scale, false, 2)
		e := New(m.Dense, rbmtest.RandomSpins(r, 40))
		big := 0
		for _, x := range e.q.Q {
			big = max(big, int(x), -int(x))
		}
		if big > math.MaxInt16 || big < math.MaxInt16/2 {
			t.Fatalf("scale %g: largest |Q| is %d (expected in [2^14, 2^15))", scale, big)
		}
		for i, F := range e.F {
			if F >= maxField || F <= -maxField {
				t.Fatalf("scale %g: field %d is %d", scale, i, F)
			}
			if got, want := math.Ldexp(float64(F), -e.q.S), m.Dense.Field(e.s, i); math.Abs(got-want) > 41*math.Ldexp(1, -e.q.S) {
				t.Fatalf("scale %g: fixed-point field %d is %g (float %g)", scale, i, got, want)
			}
		}
	}
}

// TestChainExact: SARDONICS chains on the engine sample the exact
// distribution of a dense model of 7 spins (chi-square on all states) and
// the means of a dense model of 20 spins, real and integer couplings.
func TestChainExact(t *testing.T) {
	theta, err := saw.ParseTheta("kl=1,ku=4,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=1")
	if err != nil {
		t.Fatal(err)
	}
	for _, integer := range []bool{false, true} {
		small := rbmtest.RandomDense(t, 7, 0.6, integer, 21)
		probs, err := exact.Probs(small.Sparse(), 1)
		if err != nil {
			t.Fatal(err)
		}
		c, err := saw.NewChain(New(small.Dense, nil), 1, []saw.Theta{theta}, saw.Options{}, rand.NewPCG(5, 5))
		if err != nil {
			t.Fatal(err)
		}
		rbmtest.CheckExact(t, c, probs, 40000, 4, 3)
		if testing.Short() {
			continue
		}
		big := rbmtest.RandomDense(t, 20, 0.3, integer, 22)
		probs, err = exact.Probs(big.Sparse(), 1)
		if err != nil {
			t.Fatal(err)
		}
		c, err = saw.NewChain(New(big.Dense, nil), 1, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(6, 6))
		if err != nil {
			t.Fatal(err)
		}
		rbmtest.CheckMeans(t, "sardonics dense N=20", c, probs, big.Dense.Energy, 100000)
	}
}
