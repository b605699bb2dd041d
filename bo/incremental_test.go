package bo

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomData is n points in [0,1]^dim with a smooth noisy response.
func randomData(n, dim int, seed uint64) ([][]float64, []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	X := make([][]float64, n)
	y := make([]float64, n)
	for i := range X {
		X[i] = make([]float64, dim)
		for k := range X[i] {
			X[i][k] = r.Float64()
			y[i] += math.Sin(float64(k+2) * X[i][k])
		}
		y[i] += 0.1 * r.NormFloat64()
	}
	return X, y
}

func testHyper(dim int) Hyper {
	h := Hyper{LogLen: make([]float64, dim), LogSf2: 0.3, LogSn2: math.Log(0.02)}
	for k := range h.LogLen {
		h.LogLen[k] = math.Log(0.2 + 0.1*float64(k))
	}
	return h
}

// A GP grown by rank-one Cholesky extensions (Append) equals the GP
// conditioned on all the data at once, and its factor equals an
// independent (LAPACK) Cholesky factorization of K + sn2 I, to 1e-10; with
// and without a prior mean function.
func TestGPAppendMatchesRefactor(t *testing.T) {
	const n, n0, dim = 40, 5, 6
	X, y := randomData(n, dim, 7)
	h := testHyper(dim)
	for _, mean := range []func([]float64) float64{nil, func(x []float64) float64 { return 0.5 + x[0] }} {
		opts := GPOptions{Fixed: &h, Mean: mean}
		inc := NewGP(dim, opts, nil)
		if err := inc.Condition(X[:n0], y[:n0], h); err != nil {
			t.Fatal(err)
		}
		for i := n0; i < n; i++ {
			if err := inc.Append(X[i], y[i]); err != nil {
				t.Fatal(err)
			}
		}
		full := NewGP(dim, opts, nil)
		if err := full.Condition(X, y, h); err != nil {
			t.Fatal(err)
		}
		if inc.Len() != n {
			t.Fatalf("appended GP holds %d observations, want %d", inc.Len(), n)
		}
		var chol mat.Cholesky
		if !chol.Factorize(full.gram(h)) {
			t.Fatal("reference factorization failed")
		}
		var ref mat.TriDense
		chol.LTo(&ref)
		worst := 0.0
		for i := range n {
			for j := 0; j <= i; j++ {
				worst = math.Max(worst, math.Abs(inc.l[i*(i+1)/2+j]-ref.At(i, j)))
			}
		}
		for i := range n {
			worst = math.Max(worst, math.Abs(inc.alpha[i]-full.alpha[i]))
		}
		r := rand.New(rand.NewPCG(8, 9))
		x := make([]float64, dim)
		for range 50 {
			for k := range x {
				x[k] = r.Float64()
			}
			m1, v1 := inc.Predict(x)
			m2, v2 := full.Predict(x)
			worst = math.Max(worst, math.Max(math.Abs(m1-m2), math.Abs(v1-v2)))
		}
		if worst > 1e-10 {
			t.Errorf("prior mean %v: rank-one updates differ from the full factorization by %.3g", mean != nil, worst)
		}
	}
}

// SetY equals conditioning afresh on the new values, and the GP owns its
// data: the caller's slices are not modified by Append.
func TestGPSetY(t *testing.T) {
	const n, dim = 20, 4
	X, y := randomData(n, dim, 3)
	h := testHyper(dim)
	g := NewGP(dim, GPOptions{}, nil)
	if err := g.Condition(X[:n-1], y[:n-1], h); err != nil {
		t.Fatal(err)
	}
	y0 := slices.Clone(y)
	if err := g.Append(X[n-1], y[n-1]+1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y, y0) {
		t.Fatal("Append modified the caller's y")
	}
	y2 := make([]float64, n)
	for i := range y2 {
		y2[i] = 2*y[i] - 1
	}
	if err := g.SetY(y2); err != nil {
		t.Fatal(err)
	}
	ref := NewGP(dim, GPOptions{}, nil)
	if err := ref.Condition(X, y2, h); err != nil {
		t.Fatal(err)
	}
	for _, x := range X[:5] {
		m1, v1 := g.Predict(x)
		m2, v2 := ref.Predict(x)
		if math.Abs(m1-m2) > 1e-10 || math.Abs(v1-v2) > 1e-10 {
			t.Errorf("after SetY: (%v, %v), conditioned afresh (%v, %v)", m1, v1, m2, v2)
		}
	}
	if err := g.SetY(y2[:3]); err == nil {
		t.Error("SetY with the wrong length accepted")
	}
}

// With the hyperparameters it fitted, a GP needs no refit; far from them
// (length scales 100 times too short), it does. The gradient NeedsRefit
// takes from the GP's own factor equals LogLikelihoodGrad's.
func TestGPNeedsRefit(t *testing.T) {
	const n, dim = 30, 3
	X, y := randomData(n, dim, 5)
	g := NewGP(dim, GPOptions{}, rand.NewPCG(1, 1))
	if err := g.Fit(X, y); err != nil {
		t.Fatal(err)
	}
	if g.NeedsRefit(1) {
		t.Error("a fresh fit needs a refit")
	}
	bad := g.Hyper()
	for k := range bad.LogLen {
		bad.LogLen[k] = math.Max(bad.LogLen[k]-math.Log(100), logLenLo+0.5)
	}
	if err := g.Condition(X, y, bad); err != nil {
		t.Fatal(err)
	}
	if !g.NeedsRefit(1) {
		t.Error("length scales 100 times too short need no refit")
	}
	want, got := make([]float64, dim+2), make([]float64, dim+2)
	if _, err := g.LogLikelihoodGrad(bad, want); err != nil {
		t.Fatal(err)
	}
	if err := g.gradient(g.conditioned(), got); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-8*math.Max(1, math.Abs(want[i])) {
			t.Errorf("gradient %d from the GP's factor %v, refactored %v", i, got[i], want[i])
		}
	}
}

// lbfgs finds the minimum of Rosenbrock's function, on the caller's
// goroutine, within its evaluation budget.
func TestLBFGSRosenbrock(t *testing.T) {
	evals := 0
	f := func(x, g []float64) float64 {
		evals++
		a, b := 1-x[0], x[1]-x[0]*x[0]
		g[0] = -2*a - 400*x[0]*b
		g[1] = 200 * b
		return a*a + 100*b*b
	}
	x, fx := lbfgs(f, []float64{-1.2, 1}, lbfgsSettings{maxIter: 200, maxEval: 600, gradTol: 1e-8, fTol: 0})
	if math.Hypot(x[0]-1, x[1]-1) > 1e-4 || fx > 1e-8 {
		t.Errorf("minimum at %v (f %v), want (1, 1)", x, fx)
	}
	if evals > 600 {
		t.Errorf("%d evaluations, budget 600", evals)
	}
}

// With Start, the first point proposed is Start (snapped), the design
// stays within InitRadius of it, LastEI is +Inf during the design and a
// finite non-negative expected improvement after it, shrinking as the
// optimum of a smooth deterministic reward is pinned down (the tuner stops
// on it, see tune.TestStopsOnNegligibleEI).
func TestOptimizerStartDesignAndEI(t *testing.T) {
	space := unitSpace(3)
	start := []float64{0.2, 0.9, 0.5}
	o, err := NewOptimizer(space, Options{Start: start, Init: 6, InitRadius: 0.1}, rand.NewPCG(3, 3))
	if err != nil {
		t.Fatal(err)
	}
	f := func(u []float64) float64 {
		return -((u[0]-0.25)*(u[0]-0.25) + (u[1]-0.8)*(u[1]-0.8) + (u[2]-0.5)*(u[2]-0.5))
	}
	var eis []float64
	for i := range 25 {
		u, err := o.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i == 0 && !slices.Equal(u, start):
			t.Fatalf("first point %v, want Start %v", u, start)
		case i < 7:
			for k, v := range u {
				if lo := math.Min(math.Max(start[k]-0.1, 0), 0.8); v < lo || v > lo+0.2 {
					t.Fatalf("design point %d %v outside the box around Start", i, u)
				}
			}
			if !math.IsInf(o.LastEI(), 1) {
				t.Fatalf("LastEI %v during the design, want +Inf", o.LastEI())
			}
		default:
			if ei := o.LastEI(); !(ei >= 0) || math.IsInf(ei, 0) {
				t.Fatalf("LastEI %v after the design", ei)
			}
			eis = append(eis, o.LastEI())
		}
		if err := o.Observe(u, f(u)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("expected improvements: %.3g", eis)
	if late := slices.Max(eis[len(eis)-5:]); !(late < 0.25*slices.Max(eis[:8])) {
		t.Errorf("expected improvement did not shrink: %.3g", eis)
	}
}

// Next never proposes a point whose EvalCost is +Inf when cheaper ones
// exist, and Relabel gives the surrogate of fresh data.
func TestOptimizerEvalCostAndRelabel(t *testing.T) {
	space := unitSpace(2)
	o, err := NewOptimizer(space, Options{Init: 5, EvalCost: func(u []float64) float64 {
		if u[0] > 0.5 {
			return math.Inf(1)
		}
		return 1 + u[1]
	}}, rand.NewPCG(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	f := func(u []float64) float64 { return u[0] + 0.1*u[1] } // best where it costs too much
	for i := range 15 {
		u, _ := o.Next()
		if i >= 5 && u[0] > 0.5 {
			t.Fatalf("proposal %d %v where EvalCost is +Inf", i, u)
		}
		o.Observe(u, f(u))
	}
	x, y := o.History()
	for i := range y {
		y[i] = 3 - 2*y[i]
	}
	if err := o.Relabel(y); err != nil {
		t.Fatal(err)
	}
	ref, _ := NewOptimizer(space, Options{Init: 5}, rand.NewPCG(4, 4))
	for i := range x {
		ref.Observe(x[i], y[i])
	}
	ref.hyp, ref.fitN = o.hyp, o.fitN
	same := func(when string) {
		t.Helper()
		for _, u := range [][]float64{{0.1, 0.2}, {0.4, 0.9}} {
			m1, s1, _ := o.Predict(u)
			m2, s2, _ := ref.Predict(u)
			if math.Abs(m1-m2) > 1e-9 || math.Abs(s1-s2) > 1e-9 {
				t.Errorf("%s surrogate at %v: (%v, %v), fresh (%v, %v)", when, u, m1, s1, m2, s2)
			}
		}
	}
	same("relabeled")
	// As the tuner does: a new observation, then every reward relabeled,
	// taken by the GP together when next used.
	o.Observe([]float64{0.3, 0.3}, 0)
	y = append(y, 2.5)
	for i := range y {
		y[i] += 0.1 * float64(i%3)
	}
	if err := o.Relabel(y); err != nil {
		t.Fatal(err)
	}
	ref, _ = NewOptimizer(space, Options{Init: 5}, rand.NewPCG(4, 4))
	for i, u := range append(x, []float64{0.3, 0.3}) {
		ref.Observe(u, y[i])
	}
	ref.hyp, ref.fitN = o.hyp, len(y) // no refit: the GP keeps its hyperparameters
	o.fitN = len(y)
	same("observed and relabeled")
	if err := o.Relabel(y[:2]); err == nil {
		t.Error("Relabel with too few rewards accepted")
	}
}

// With PolicyObserved the policy draws only observed points, its first
// being the most frequent, and favours the best of them.
func TestPolicyObserved(t *testing.T) {
	space := unitSpace(2)
	o, _ := NewOptimizer(space, Options{Init: 12, PolicyObserved: true, PolicyLCB: 1}, rand.NewPCG(5, 5))
	f := func(u []float64) float64 { return -4 * ((u[0]-0.3)*(u[0]-0.3) + (u[1]-0.6)*(u[1]-0.6)) }
	for range 12 {
		u, _ := o.Next()
		o.Observe(u, f(u))
	}
	pts, err := o.Policy(200, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	x, y := o.History()
	best := x[slices.Index(y, slices.Max(y))]
	count := map[int]int{}
	for _, p := range pts {
		i := slices.IndexFunc(x, func(v []float64) bool { return slices.Equal(v, p) })
		if i < 0 {
			t.Fatalf("policy point %v was never observed", p)
		}
		count[i]++
	}
	first := slices.IndexFunc(x, func(v []float64) bool { return slices.Equal(v, pts[0]) })
	for i, c := range count {
		if c > count[first] {
			t.Errorf("first policy point drawn %d times, point %d %d times", count[first], i, c)
		}
	}
	if !slices.Equal(pts[0], best) {
		t.Logf("most frequent policy point %v, best observed %v", pts[0], best)
	}
	if f(pts[0]) < slices.Max(y)-0.2 {
		t.Errorf("policy favours %v (reward %.3f), best observed %.3f", pts[0], f(pts[0]), slices.Max(y))
	}
}
