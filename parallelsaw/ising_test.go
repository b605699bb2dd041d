package parallelsaw

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"sardonics/denseising"
	"sardonics/exact"
	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

func newDense(t testing.TB, d *model.Dense, s []int8, P int) *DenseEngine {
	e, err := NewDense(d, s, P, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// denseModels are the dense models the tests run on: a float32 SK glass
// (rows whose dots the sections split), real float64 couplings (rows
// whose dots the coordinator computes whole), integer couplings in
// float32 and in float64 (scaled by 0.3).
func denseModels(t testing.TB, n int) map[string]*model.Model {
	sk, err := model.SK(n, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*model.Model{
		"sk":          sk,
		"real":        rbmtest.RandomDense(t, n, 0.7, false, 11),
		"integer":     rbmtest.RandomDense(t, n, 1, true, 12),
		"integer*0.3": rbmtest.RandomDense(t, n, 0.3, true, 13),
	}
}

// engineRun drives e through walks, replays, reverse scoring, undos and
// flips from a fixed seed and returns everything it reported, as bytes.
func engineRun(e saw.Engine, moves int) []byte {
	r := rand.NewPCG(5, 6)
	fr := e.(saw.FastReverser)
	var out []byte
	put := func(x ...any) { out = fmt.Appendf(out, "%v\n", x) }
	n := e.N()
	for i := range moves {
		b := i % 2
		switch i % 7 {
		case 0, 1, 2, 3:
			e.SetBiases(0.8+0.1*float64(i%3), 1.1, saw.Weight(i/7%2))
			p, lf, dE := e.Walk(r, 1+rng.Intn(r, min(n, 12)), b, nil)
			p, lf2, dE2 := e.Walk(r, 1+rng.Intn(r, min(n, 6)), 1-b, p)
			var rev [2][2]float64
			ok := fr.ReverseLogProbs(p, []int{0, len(p) - len(p)/2, len(p)}, rev[:])
			put(p, lf, dE, lf2, dE2, ok, rev, e.Energy())
			if i%2 == 0 {
				fr.Undo(p)
			}
		case 4:
			p := rbmtest.RandomPath(r, n, 1+rng.Intn(r, n))
			lf, dE := e.Replay(p, i%3 == 0)
			put(lf, dE, e.Energy())
		case 5:
			p := rbmtest.RandomPath(r, n, rng.Intn(r, n+1))
			e.Flip(p)
			put(e.Energy())
		case 6:
			put(e.Spins())
		}
	}
	return out
}

// TestDenseMatchesSerial: on every kind of dense model and P = 1..4 (with
// free threads and under GOMAXPROCS 1), the engine reports exactly what
// denseising.Engine reports for the same calls and seed: paths,
// log-probabilities, reverse scores, energies and spins, byte for byte.
func TestDenseMatchesSerial(t *testing.T) {
	moves := 3000
	if raceEnabled {
		moves = 300
	}
	for name, m := range denseModels(t, 150) {
		want := engineRun(denseising.New(m.Dense, nil), moves)
		for P := 1; P <= 4; P++ {
			for _, procs := range []int{0, 1} {
				t.Run(fmt.Sprintf("%s/P=%d/GOMAXPROCS=%d", name, P, procs), func(t *testing.T) {
					if procs > 0 {
						defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					}
					got := engineRun(newDense(t, m.Dense, nil, P), moves)
					if i := firstDiff(got, want); i >= 0 {
						t.Fatalf("output differs from the serial engine's at byte %d: %q (serial %q)", i, excerpt(got, i), excerpt(want, i))
					}
				})
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func excerpt(b []byte, i int) string { return string(b[max(0, i-80):min(len(b), i+80)]) }

// TestDenseAligned: sections are non-empty, contiguous, cover the spins and
// start on multiples of 64 when every section can.
func TestDenseAligned(t *testing.T) {
	for _, c := range []struct{ n, P int }{{8192, 2}, {8192, 3}, {1000, 2}, {1000, 7}, {150, 4}, {20, 4}, {5, 5}} {
		b := denseBounds(c.n, c.P)
		if b[0] != 0 || b[c.P] != c.n {
			t.Fatalf("n=%d P=%d: bounds %v", c.n, c.P, b)
		}
		for p := 0; p < c.P; p++ {
			if b[p+1] <= b[p] || c.n >= 64*c.P && b[p]%64 != 0 {
				t.Fatalf("n=%d P=%d: bounds %v", c.n, c.P, b)
			}
		}
	}
	sk, err := model.SK(1000, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	e := newDense(t, sk.Dense, nil, 2)
	n := 0
	for _, x := range e.sh.exact {
		if x {
			n++
		}
	}
	t.Logf("sk:N=1000: %d of 1000 rows exact", n)
}

// denseKernelBalance is the detailed-balance violation and the row-sum
// error of the exact one-move transition matrix of the engine (P = 2) on
// m.
func denseKernelBalance(t *testing.T, m *model.Model, opts saw.Options) (db, rows float64) {
	t.Helper()
	theta, err := saw.ParseTheta("kl=1,ku=3,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=1")
	if err != nil {
		t.Fatal(err)
	}
	e := newDense(t, m.Dense, nil, 2)
	K, err := saw.Kernel(func(s []int8) saw.Engine { e.SetSpins(s); return e }, m.Dense.N, 1, theta, opts)
	if err != nil {
		t.Fatal(err)
	}
	return saw.CheckDetailedBalance(K, saw.Boltzmann(m.Sparse(), 1)), saw.CheckRows(K)
}

// TestDenseKernelDetailedBalance: the exact one-move transition matrix of
// the engine (P = 2) is reversible (<= 1e-12) and stochastic, for real and
// integer couplings and both weights and rules (the check can fail:
// TestDenseKernelBrokenSumsCaught, under the tag inject).
func TestDenseKernelDetailedBalance(t *testing.T) {
	for _, integer := range []bool{false, true} {
		m := rbmtest.RandomDense(t, 5, 0.7, integer, 11)
		for _, opts := range []saw.Options{{}, {Weight: saw.Exp, Accept: saw.Joint}} {
			if db, rows := denseKernelBalance(t, m, opts); db > 1e-12 || rows > 1e-12 {
				t.Errorf("integer %v %+v: detailed balance %.3g, rows %.3g (expected <= 1e-12)", integer, opts, db, rows)
			}
		}
	}
}

// TestDenseChainExact: SARDONICS chains on the engine (P = 2 and 3) match
// exact enumeration of dense models of 20 spins, real and integer
// couplings (means of the energy, of s_0 and of s_0 s_1).
func TestDenseChainExact(t *testing.T) {
	if raceEnabled {
		t.Skip("too slow under the race detector")
	}
	steps := 100000
	if testing.Short() {
		steps = 30000
	}
	for _, integer := range []bool{false, true} {
		big := rbmtest.RandomDense(t, 20, 0.3, integer, 22)
		probs, err := exact.Probs(big.Sparse(), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, P := range []int{2, 3} {
			c, err := saw.NewChain(newDense(t, big.Dense, nil, P), 1, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(6, uint64(P)))
			if err != nil {
				t.Fatal(err)
			}
			rbmtest.CheckMeans(t, fmt.Sprintf("parallel dense N=20 P=%d integer=%v", P, integer), c, probs, big.Dense.Energy, steps)
		}
	}
}

// TestDenseChainTrace: a SARDONICS chain on the engine gives the serial
// engine's energy trace and spins, bit for bit, at P = 1..4.
func TestDenseChainTrace(t *testing.T) {
	sk, err := model.SK(300, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	theta, err := saw.ParseTheta("kl=5,ku=40,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	steps := 2000
	if raceEnabled {
		steps = 200
	}
	trace := func(e saw.Engine) ([]float64, []int8) {
		c, err := saw.NewChain(e, 1, []saw.Theta{theta}, saw.Options{}, rand.NewPCG(9, 9))
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, steps)
		for i := range out {
			c.Step()
			out[i] = c.Energy()
		}
		return out, slices.Clone(c.Spins())
	}
	want, ws := trace(denseising.New(sk.Dense, nil))
	for P := 1; P <= 4; P++ {
		got, gs := trace(newDense(t, sk.Dense, nil, P))
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("P=%d step %d: energy %v (serial %v)", P, i, got[i], want[i])
			}
		}
		if !slices.Equal(gs, ws) {
			t.Fatalf("P=%d: final spins differ from the serial engine's", P)
		}
	}
}

// TestDenseState: a state saved by either engine restores into the other
// (and into another P), which continue identically.
func TestDenseState(t *testing.T) {
	m := denseModels(t, 70)["sk"]
	r := rand.NewPCG(3, 3)
	a := newDense(t, m.Dense, rbmtest.RandomSpins(r, 70), 3)
	a.SetBiases(0.9, 1.1, saw.Logistic)
	for range 50 {
		p, _, _ := a.Walk(r, 5, 0, nil)
		a.Flip(p[:2])
	}
	st := a.AppendState(nil)
	for _, b := range []saw.StateEngine{denseising.New(m.Dense, nil), newDense(t, m.Dense, nil, 2)} {
		if err := b.RestoreState(st); err != nil {
			t.Fatal(err)
		}
		b.SetBiases(0.9, 1.1, saw.Logistic)
		ra, rb := *r, *r
		for i := range 50 {
			pa, la, ea := a.Walk(&ra, 6, i%2, nil)
			pb, lb, eb := b.Walk(&rb, 6, i%2, nil)
			if !slices.Equal(pa, pb) || la != lb || ea != eb || a.Energy() != b.Energy() {
				t.Fatalf("%T: walk %d after restore differs", b, i)
			}
		}
		a.RestoreState(st)
		a.SetBiases(0.9, 1.1, saw.Logistic)
	}
	if err := a.RestoreState(st[:len(st)-1]); err == nil {
		t.Fatal("bad state accepted")
	}
}

func TestNewDenseErrors(t *testing.T) {
	m := rbmtest.RandomDense(t, 5, 1, false, 1)
	for _, P := range []int{0, 6} {
		if e, err := NewDense(m.Dense, nil, P, nil); err == nil {
			e.Close()
			t.Errorf("NewDense with P=%d succeeded (expected an error)", P)
		}
	}
	if _, err := NewDense(m.Dense, make([]int8, 4), 1, nil); err == nil {
		t.Error("NewDense with 4 spins for 5 succeeded")
	}
}
