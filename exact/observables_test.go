package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"sardonics/internal/stattest"
	"sardonics/model"
)

// obsRef are a model's observables by brute force over the 2^N states of
// its Ising form, written plainly from summary/observables.go's
// definitions: weights exp(-beta E) relative to the largest, two-pass
// variances, chi of |m| exactly when every h_i is 0, the pairs those of
// Ising.Edges.
type obsRef struct {
	m, absM, c, chi float64
	varM, varA      float64 // Var(M), Var(|M|)
	marg            []float64
	corr            [][3]float64
}

func bruteObservables(is *model.Ising, beta float64) obsRef {
	n := is.N
	type state struct{ e, w, mag float64 }
	var st []state
	var spins [][]int8
	lmax := math.Inf(-1)
	stattest.Enumerate(n, func(s []int8) {
		mag := 0.0
		for _, v := range s {
			mag += float64(v)
		}
		e := is.Energy(s)
		st = append(st, state{e: e, mag: mag})
		spins = append(spins, slices.Clone(s))
		lmax = math.Max(lmax, -beta*e)
	})
	z := 0.0
	for k := range st {
		st[k].w = math.Exp(-beta*st[k].e - lmax)
		z += st[k].w
	}
	mean := func(f func(k int) float64) float64 {
		s := 0.0
		for k := range st {
			s += st[k].w * f(k)
		}
		return s / z
	}
	e := mean(func(k int) float64 { return st[k].e })
	varE := mean(func(k int) float64 { return (st[k].e - e) * (st[k].e - e) })
	mm := mean(func(k int) float64 { return st[k].mag })
	am := mean(func(k int) float64 { return math.Abs(st[k].mag) })
	r := obsRef{m: mm / float64(n), absM: am / float64(n), c: beta * beta * varE / float64(n)}
	r.varM = mean(func(k int) float64 { return (st[k].mag - mm) * (st[k].mag - mm) })
	r.varA = mean(func(k int) float64 { return (math.Abs(st[k].mag) - am) * (math.Abs(st[k].mag) - am) })
	zero := true
	for _, h := range is.H {
		zero = zero && h == 0
	}
	// chi = beta N Var(x), x = M/N or |M|/N.
	x := r.varM
	if zero {
		x = r.varA
	}
	r.chi = beta * float64(n) * x / float64(n*n)
	for i := range n {
		r.marg = append(r.marg, mean(func(k int) float64 { return float64(spins[k][i]) }))
	}
	for _, ed := range is.Edges() {
		c := mean(func(k int) float64 { return float64(spins[k][ed.I] * spins[k][ed.J]) })
		r.corr = append(r.corr, [3]float64{float64(ed.I), float64(ed.J), c})
	}
	return r
}

// obsTol is the tolerance of the observables' checks: 1e-12 relative,
// and for the quantities bounded by 1 (m, |m|, <s_i>, <s_i s_j>), which
// vanish by symmetry on models without fields, 1e-12 absolute at least.
const obsTol = 1e-12

// obsMisses lists where res differs from the reference.
func obsMisses(res *Result, want obsRef) []string {
	var out []string
	check := func(what string, got, want, floor float64) {
		if !(math.Abs(got-want) <= obsTol*math.Max(math.Abs(want), floor)) {
			out = append(out, fmt.Sprintf("%s = %.16g, want %.16g", what, got, want))
		}
	}
	check("<m>", res.Magnetization, want.m, 1)
	check("<|m|>", res.AbsMagnetization, want.absM, 1)
	check("C", res.SpecificHeat, want.c, 1e-300)
	check("chi", res.Susceptibility, want.chi, 1e-300)
	check("Var M", res.mag.varM, want.varM, 1e-300)
	check("Var |M|", res.mag.varA, want.varA, 1e-300)
	if res.Marginals == nil {
		return out
	}
	if len(res.Marginals) != len(want.marg) || len(res.Correlations) != len(want.corr) {
		return append(out, fmt.Sprintf("%d marginals and %d correlations, want %d and %d", len(res.Marginals), len(res.Correlations), len(want.marg), len(want.corr)))
	}
	for i, v := range want.marg {
		check(fmt.Sprintf("<s_%d>", i), res.Marginals[i], v, 1)
	}
	for k, c := range want.corr {
		g := res.Correlations[k]
		if g[0] != c[0] || g[1] != c[1] {
			out = append(out, fmt.Sprintf("pair %d is (%v, %v), want (%v, %v)", k, g[0], g[1], c[0], c[1]))
			continue
		}
		check(fmt.Sprintf("<s_%v s_%v>", c[0], c[1]), g[2], c[2], 1)
	}
	return out
}

// zeroFieldIsing is randomIsing without fields.
func zeroFieldIsing(t testing.TB, n int, seed uint64, integer bool) *model.Ising {
	m := randomIsing(t, n, seed, integer)
	z, err := model.NewIsing(n, m.Edges(), nil, m.Offset)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// randomRBM has normal weights and biases, or (zeroField) weights in
// multiples of 1/8 and the biases b_i = -sum_j W_ij / 2, c_j = -sum_i
// W_ij / 2 that make every field of its Ising form exactly 0.
func randomRBM(t testing.TB, v, h int, seed uint64, zeroField bool) *model.Model {
	r := rand.New(rand.NewPCG(seed, 2))
	w := make([]float64, v*h)
	b, c := make([]float64, v), make([]float64, h)
	for k := range w {
		w[k] = r.NormFloat64()
		if zeroField {
			w[k] = float64(r.IntN(17)-8) / 8
		}
	}
	for i := range b {
		b[i] = r.NormFloat64()
	}
	for j := range c {
		c[j] = r.NormFloat64()
	}
	if zeroField {
		clear(b)
		clear(c)
		for i := range v {
			for j := range h {
				b[i] -= w[i*h+j] / 2
				c[j] -= w[i*h+j] / 2
			}
		}
	}
	rbm, err := model.NewRBM(v, h, w, b, c)
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Model{Kind: model.KindRBM, RBM: rbm}
	if m.ZeroField() != zeroField {
		t.Fatalf("%dx%d RBM: ZeroField %v, want %v", v, h, m.ZeroField(), zeroField)
	}
	return m
}

// obsCases are the models of the observables' checks: sparse Ising
// models with and without fields, integer couplings (density of states)
// and real ones (per-state pass at 16 spins), at 16 spins in four chunks;
// a QUBO; RBMs of either orientation, with and without fields.
func obsCases(t *testing.T) []struct {
	name string
	m    *model.Model
	beta float64
} {
	qubo, err := model.FromQUBO(7, []float64{2, -3, 1, 0, -1, 2, -2},
		[]model.Edge{{I: 0, J: 1, W: 4}, {I: 1, J: 2, W: -2}, {I: 2, J: 5, W: 3}, {I: 3, J: 4, W: -1}, {I: 4, J: 6, W: 2}, {I: 0, J: 6, W: -3}}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	ising := func(is *model.Ising) *model.Model { return &model.Model{Kind: model.KindIsing, Ising: is} }
	return []struct {
		name string
		m    *model.Model
		beta float64
	}{
		{"ising10-int-fields", ising(randomIsing(t, 10, 3, true)), 0.7},
		{"ising10-real-fields", ising(randomIsing(t, 10, 4, false)), 1.3},
		{"ising11-int-zero", ising(zeroFieldIsing(t, 11, 5, true)), 0.9},
		{"ising11-real-zero", ising(zeroFieldIsing(t, 11, 6, false)), 1.1},
		{"ising9-real-fields-negative-beta", ising(randomIsing(t, 9, 7, false)), -0.4},
		{"ising16-int-fields-chunks", ising(randomIsing(t, 16, 8, true)), 0.5},
		{"ising16-real-zero-per-state", ising(zeroFieldIsing(t, 16, 9, false)), 0.6},
		{"ising16-real-fields-per-state", ising(randomIsing(t, 16, 10, false)), 0.8},
		{"qubo7", &model.Model{Kind: model.KindQUBO, Ising: qubo}, 0.8},
		{"rbm4x7", randomRBM(t, 4, 7, 1, false), 1.2},
		{"rbm8x3", randomRBM(t, 8, 3, 2, false), 0.9},
		{"rbm5x8-zero-field", randomRBM(t, 5, 8, 3, true), 1.0},
		{"rbm9x4-zero-field", randomRBM(t, 9, 4, 4, true), 0.7},
		{"rbm11x1", randomRBM(t, 11, 1, 5, false), 1.5},
	}
}

// TestObservablesMatchBruteForce: <m>, <|m|>, C, chi (and Var M, Var |M|
// behind them) and the marginals agree with bruteObservables to 1e-12 on
// every model of obsCases; the results without marginals are the same.
func TestObservablesMatchBruteForce(t *testing.T) {
	for _, tc := range obsCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			want := bruteObservables(tc.m.Sparse(), tc.beta)
			res, err := EnumerateOptions(context.Background(), tc.m, tc.beta, Options{Marginals: true})
			if err != nil {
				t.Fatal(err)
			}
			wantOf := "m"
			if tc.m.ZeroField() {
				wantOf = "|m|"
			}
			if res.SusceptibilityOf != wantOf {
				t.Errorf("susceptibility of %q, want %q", res.SusceptibilityOf, wantOf)
			}
			for _, miss := range obsMisses(res, want) {
				t.Error(miss)
			}
			plain, err := Enumerate(tc.m, tc.beta)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Marginals != nil || plain.Correlations != nil || plain.Magnetization != res.Magnetization ||
				plain.Susceptibility != res.Susceptibility || plain.LnZ != res.LnZ {
				t.Errorf("without marginals: m %v chi %v ln Z %v, with: %v %v %v (and marginals %v)",
					plain.Magnetization, plain.Susceptibility, plain.LnZ, res.Magnetization, res.Susceptibility, res.LnZ, plain.Marginals != nil)
			}
		})
	}
}

// TestObservablesBrokenVariantsFail: the check of
// TestObservablesMatchBruteForce catches a susceptibility of m where it
// must be of |m| (zero field), and correlations in another pair order.
func TestObservablesBrokenVariantsFail(t *testing.T) {
	for _, m := range []*model.Model{
		{Ising: zeroFieldIsing(t, 11, 6, false)},
		randomRBM(t, 5, 8, 3, true),
	} {
		const beta = 1.0
		want := bruteObservables(m.Sparse(), beta)
		res, err := EnumerateOptions(context.Background(), m, beta, Options{Marginals: true})
		if err != nil {
			t.Fatal(err)
		}
		if miss := obsMisses(res, want); len(miss) > 0 {
			t.Fatalf("the correct result fails: %v", miss)
		}
		broken := *res
		broken.setObservables(res.mag, false) // chi of m at zero field
		if miss := obsMisses(&broken, want); len(miss) != 1 {
			t.Errorf("chi of m at zero field: misses %v (want chi's alone)", miss)
		}
		broken = *res
		broken.Correlations = slices.Clone(res.Correlations)
		slices.Reverse(broken.Correlations)
		if len(obsMisses(&broken, want)) == 0 {
			t.Error("correlations in reverse order pass")
		}
	}
}

// TestRBMAbsMagnetizationLargeLayer: on a 3 x 150 RBM (no fields, so chi
// is of |m|) <|m|> and Var |M| agree with enumerating the 8 visible states
// by hand, each with the whole law of the hidden layer's count of up
// units (a plain O(H^2) recurrence, both tails).
func TestRBMAbsMagnetizationLargeLayer(t *testing.T) {
	const v, h, beta = 3, 150, 0.8
	m := randomRBM(t, v, h, 7, true)
	r := m.RBM
	n := float64(v + h)
	lw := make([]float64, 1<<v)
	pk := make([][]float64, 1<<v)
	for x := range 1 << v {
		lw[x] = 0
		f := []float64{1}
		for i := range v {
			if x>>i&1 == 1 {
				lw[x] += beta * r.B[i]
			}
		}
		for j := range h {
			phi := r.C[j]
			for i := range v {
				if x>>i&1 == 1 {
					phi += r.W[i*h+j]
				}
			}
			lw[x] += math.Log1p(math.Exp(beta * phi))
			p := 1 / (1 + math.Exp(-beta*phi))
			g := make([]float64, len(f)+1)
			for k, fk := range f {
				g[k] += fk * (1 - p)
				g[k+1] += fk * p
			}
			f = g
		}
		pk[x] = f
	}
	lmax := slices.Max(lw)
	var z, sa, sm float64
	type pm struct{ p, a, m float64 }
	var all []pm
	for x := range 1 << v {
		u := 0
		for i := range v {
			u += x >> i & 1
		}
		w := math.Exp(lw[x] - lmax)
		for k, p := range pk[x] {
			mm := 2*float64(u+k) - n
			all = append(all, pm{w * p, math.Abs(mm), mm})
			z += w * p
			sa += w * p * math.Abs(mm)
			sm += w * p * mm
		}
	}
	meanA, meanM := sa/z, sm/z
	varA, varM := 0.0, 0.0
	for _, q := range all {
		varA += q.p * (q.a - meanA) * (q.a - meanA)
		varM += q.p * (q.m - meanM) * (q.m - meanM)
	}
	varA, varM = varA/z, varM/z
	res, err := Enumerate(m, beta)
	if err != nil {
		t.Fatal(err)
	}
	relClose(t, "<|m|>", res.AbsMagnetization, meanA/n, 1e-12)
	if math.Abs(res.Magnetization-meanM/n) > 1e-12 { // 0 by symmetry
		t.Errorf("<m> = %v, want %v", res.Magnetization, meanM/n)
	}
	relClose(t, "Var |M|", res.mag.varA, varA, 1e-11)
	relClose(t, "Var M", res.mag.varM, varM, 1e-11)
	relClose(t, "chi", res.Susceptibility, beta*varA/n, 1e-11)
	if res.SusceptibilityOf != "|m|" {
		t.Errorf("susceptibility of %q, want |m|", res.SusceptibilityOf)
	}
}

// TestTailMean: E[(c - K)^+] of a Poisson binomial against its whole law,
// below, at and above every integer and half-integer threshold.
func TestTailMean(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, m := range []int{0, 1, 5, 40} {
		p, q := make([]float64, m), make([]float64, m)
		f := []float64{1}
		for j := range p {
			p[j] = r.Float64()
			q[j] = 1 - p[j]
			g := make([]float64, len(f)+1)
			for k, fk := range f {
				g[k] += fk * q[j]
				g[k+1] += fk * p[j]
			}
			f = g
		}
		for c := -1.0; c <= float64(m)+2; c += 0.5 {
			want := 0.0
			for k, fk := range f {
				want += math.Max(0, c-float64(k)) * fk
			}
			got := tailMean(p, q, c, make([]float64, m+1))
			if math.Abs(got-want) > 1e-13*math.Max(1, want) {
				t.Errorf("m %d, c %v: %v, want %v", m, c, got, want)
			}
		}
	}
}

// TestObservablesDeterministic: the observables and marginals do not
// depend on how many threads enumerate (chunks merge in order).
func TestObservablesDeterministic(t *testing.T) {
	for _, m := range []*model.Model{
		{Ising: randomIsing(t, 16, 8, true)},
		{Ising: zeroFieldIsing(t, 16, 9, false)},
		randomRBM(t, 12, 9, 6, false),
	} {
		var res [2]*Result
		for k, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			r, err := EnumerateOptions(context.Background(), m, 0.7, Options{Marginals: true})
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			res[k] = r
		}
		a, b := res[0], res[1]
		if a.Magnetization != b.Magnetization || a.AbsMagnetization != b.AbsMagnetization || a.SpecificHeat != b.SpecificHeat ||
			a.Susceptibility != b.Susceptibility || !slices.Equal(a.Marginals, b.Marginals) || !slices.Equal(a.Correlations, b.Correlations) {
			t.Errorf("%s: results differ between 1 and 4 threads", m.Describe())
		}
	}
}
