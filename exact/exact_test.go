package exact

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"sardonics/internal/stattest"
	"sardonics/model"
)

func relClose(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if d := math.Abs(got - want); d > tol*math.Max(math.Abs(want), 1e-300) {
		t.Errorf("%s = %.15g, want %.15g (rel err %.3g)", what, got, want, d/math.Abs(want))
	}
}

// brute sums every state directly with Ising.Energy (two passes, no tricks
// beyond subtracting the largest log weight).
func brute(m *model.Ising, beta float64) (lnZ, mean, vr float64) {
	var es []float64
	stattest.Enumerate(m.N, func(s []int8) { es = append(es, m.Energy(s)) })
	lmax := math.Inf(-1)
	for _, e := range es {
		lmax = math.Max(lmax, -beta*e)
	}
	z, s1 := 0.0, 0.0
	for _, e := range es {
		w := math.Exp(-beta*e - lmax)
		z += w
		s1 += w * e
	}
	mean = s1 / z
	for _, e := range es {
		w := math.Exp(-beta*e - lmax)
		vr += w * (e - mean) * (e - mean)
	}
	return lmax + math.Log(z), mean, vr / z
}

func randomIsing(t testing.TB, n int, seed uint64, integer bool) *model.Ising {
	r := rand.New(rand.NewPCG(seed, 1))
	var edges []model.Edge
	h := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if r.Float64() < 0.4 {
				w := r.NormFloat64()
				if integer {
					w = float64(r.IntN(3) - 1)
				}
				edges = append(edges, model.Edge{I: int32(i), J: int32(j), W: w})
			}
		}
		h[i] = r.NormFloat64() * 0.5
		if integer {
			h[i] = float64(r.IntN(3) - 1)
		}
	}
	m, err := model.NewIsing(n, edges, h, 1.25)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEnumerateMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		n       int
		integer bool
		beta    float64
	}{{10, true, 0.7}, {10, false, 0.7}, {12, false, 2.5}, {11, true, 0}, {9, false, -0.4}} {
		m := randomIsing(t, tc.n, uint64(tc.n)*7+1, tc.integer)
		res, err := Enumerate(&model.Model{Kind: model.KindIsing, Ising: m}, tc.beta)
		if err != nil {
			t.Fatal(err)
		}
		lnZ, mean, vr := brute(m, tc.beta)
		relClose(t, "ln Z", res.LnZ, lnZ, 1e-11)
		relClose(t, "mean", res.EnergyMean, mean, 1e-10)
		relClose(t, "var", res.EnergyVar, vr, 1e-9)
		checkDistribution(t, res, mean)
	}
}

// checkDistribution checks the energy distribution is normalized, sorted and
// (when exact) has the right mean.
func checkDistribution(t *testing.T, res *Result, mean float64) {
	t.Helper()
	tot, mu := 0.0, 0.0
	for k, ep := range res.EnergyDistribution {
		if k > 0 && ep[0] <= res.EnergyDistribution[k-1][0] {
			t.Fatalf("energy distribution not sorted at %d", k)
		}
		tot += ep[1]
		mu += ep[0] * ep[1]
	}
	relClose(t, "total probability", tot, 1, 1e-12)
	if len(res.EnergyDistribution) != nBins {
		relClose(t, "mean of distribution", mu, mean, 1e-10)
	}
}

func TestIndependentSpins(t *testing.T) {
	// 18 real fields: 2^18 distinct energies, so this takes the per-state
	// pass, binned distribution and four chunks.
	const n, beta = 18, 1.3
	r := rand.New(rand.NewPCG(3, 4))
	h := make([]float64, n)
	lnZ, mean, vr := 0.0, 0.0, 0.0
	for i := range h {
		h[i] = 2*r.Float64() - 1
		x := beta * h[i]
		lnZ += math.Log(2 * math.Cosh(x))
		mean -= h[i] * math.Tanh(x)
		vr += h[i] * h[i] / (math.Cosh(x) * math.Cosh(x))
	}
	m, err := model.NewIsing(n, nil, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Enumerate(&model.Model{Ising: m}, beta)
	if err != nil {
		t.Fatal(err)
	}
	relClose(t, "ln Z", res.LnZ, lnZ, 1e-12)
	relClose(t, "mean", res.EnergyMean, mean, 1e-11)
	relClose(t, "var", res.EnergyVar, vr, 1e-10)
	if len(res.EnergyDistribution) != nBins {
		t.Fatalf("%d distribution entries, want %d bins", len(res.EnergyDistribution), nBins)
	}
	checkDistribution(t, res, mean)
}

func TestRing(t *testing.T) {
	// 1D ring of N spins, coupling J: Z = (2 cosh bJ)^N + (2 sinh bJ)^N.
	const n, j = 20, 1.0
	edges := make([]model.Edge, n)
	for i := range edges {
		edges[i] = model.Edge{I: int32(i), J: int32((i + 1) % n), W: j}
	}
	m, err := model.NewIsing(n, edges, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, beta := range []float64{0.1, 0.44, 1, 3} {
		c, s := 2*math.Cosh(beta*j), 2*math.Sinh(beta*j)
		cn, sn := math.Pow(c, n), math.Pow(s, n)
		z := cn + sn
		z1 := n * j * (cn*s/c + sn*c/s)
		z2 := n * j * j * ((n-1)*cn*s*s/(c*c) + cn + (n-1)*sn*c*c/(s*s) + sn)
		res, err := Enumerate(&model.Model{Ising: m}, beta)
		if err != nil {
			t.Fatal(err)
		}
		relClose(t, "ln Z", res.LnZ, math.Log(z), 1e-12)
		relClose(t, "mean", res.EnergyMean, -z1/z, 1e-11)
		relClose(t, "var", res.EnergyVar, z2/z-(z1/z)*(z1/z), 1e-10)
		// Energies -N, -N+4, ..., N: 11 levels; the ground level has 2 states.
		d := res.EnergyDistribution
		if len(d) != n/2+1 || d[0][0] != -n {
			t.Fatalf("distribution %v", d)
		}
		relClose(t, "P(ground)", d[0][1], 2*math.Exp(beta*n)/z, 1e-11)
	}
}

func TestQUBOConvention(t *testing.T) {
	// E(x) = 2 x0 - 3 x1 + 4 x0 x1 + 0.5: energies 0.5, 2.5, -2.5, 3.5.
	is, err := model.FromQUBO(2, []float64{2, -3}, []model.Edge{{I: 0, J: 1, W: 4}}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Enumerate(&model.Model{Kind: model.KindQUBO, Ising: is}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-2.5, 0.5, 2.5, 3.5}
	for k, ep := range res.EnergyDistribution {
		if math.Abs(ep[0]-want[k]) > 1e-12 {
			t.Fatalf("energies %v, want %v", res.EnergyDistribution, want)
		}
	}
	z := 0.0
	for _, e := range want {
		z += math.Exp(-e)
	}
	relClose(t, "ln Z", res.LnZ, math.Log(z), 1e-13)
}

func TestRBMMatchesIsingForm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, sh := range [][2]int{{6, 9}, {11, 5}, {12, 1}} {
		v, h := sh[0], sh[1]
		w := make([]float64, v*h)
		b := make([]float64, v)
		c := make([]float64, h)
		for i := range w {
			w[i] = r.NormFloat64()
		}
		for i := range b {
			b[i] = r.NormFloat64()
		}
		for j := range c {
			c[j] = r.NormFloat64()
		}
		rbm, err := model.NewRBM(v, h, w, b, c)
		if err != nil {
			t.Fatal(err)
		}
		is, err := rbm.Ising()
		if err != nil {
			t.Fatal(err)
		}
		const beta = 1.7
		res, err := Enumerate(&model.Model{Kind: model.KindRBM, Ising: is, RBM: rbm}, beta)
		if err != nil {
			t.Fatal(err)
		}
		lnZ, mean, vr := brute(is, beta)
		relClose(t, "RBM ln Z", res.LnZ, lnZ, 1e-11)
		relClose(t, "RBM mean", res.EnergyMean, mean, 1e-10)
		relClose(t, "RBM var", res.EnergyVar, vr, 1e-9)
		checkDistribution(t, res, mean)
		// Visible means from the table of state probabilities.
		p, err := Probs(is, beta)
		if err != nil {
			t.Fatal(err)
		}
		vm := make([]float64, v)
		for k, pk := range p {
			for i := 0; i < v; i++ {
				if k>>i&1 == 1 {
					vm[i] += pk
				}
			}
		}
		for i := range vm {
			if math.Abs(res.VisibleMeans[i]-vm[i]) > 1e-11 {
				t.Errorf("%dx%d visible mean %d = %v, want %v", v, h, i, res.VisibleMeans[i], vm[i])
			}
		}
	}
}

func TestRBMLargeLayerSummedOut(t *testing.T) {
	// 3 x 200: the Ising form (203 spins) is far out of reach; check against
	// enumerating the visible layer by hand with the hidden one summed out
	// in closed form, and the energy moments through d/dbeta of ln Z.
	const v, h = 3, 200
	r := rand.New(rand.NewPCG(5, 6))
	w := make([]float64, v*h)
	for i := range w {
		w[i] = 0.1 * r.NormFloat64()
	}
	rbm, err := model.NewRBM(v, h, w, []float64{0.3, -0.2, 0.1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lnZ := func(beta float64) float64 {
		var terms []float64
		for k := 0; k < 1<<v; k++ {
			lw := 0.0
			for i := 0; i < v; i++ {
				if k>>i&1 == 1 {
					lw += beta * rbm.B[i]
				}
			}
			for j := 0; j < h; j++ {
				phi := rbm.C[j]
				for i := 0; i < v; i++ {
					if k>>i&1 == 1 {
						phi += rbm.W[i*h+j]
					}
				}
				lw += math.Log1p(math.Exp(beta * phi))
			}
			terms = append(terms, lw)
		}
		s := 0.0
		for _, x := range terms {
			s += math.Exp(x - terms[0])
		}
		return terms[0] + math.Log(s)
	}
	const beta, d = 1.0, 1e-3
	res, err := Enumerate(&model.Model{Kind: model.KindRBM, Ising: &model.Ising{N: v + h}, RBM: rbm}, beta)
	if err != nil {
		t.Fatal(err)
	}
	relClose(t, "ln Z", res.LnZ, lnZ(beta), 1e-12)
	// Fourth-order central differences: mean = -lnZ', var = lnZ''.
	l := [5]float64{lnZ(beta - 2*d), lnZ(beta - d), lnZ(beta), lnZ(beta + d), lnZ(beta + 2*d)}
	d1 := (l[0] - 8*l[1] + 8*l[3] - l[4]) / (12 * d)
	d2 := (-l[0] + 16*l[1] - 30*l[2] + 16*l[3] - l[4]) / (12 * d * d)
	relClose(t, "mean", res.EnergyMean, -d1, 1e-8)
	relClose(t, "var", res.EnergyVar, d2, 1e-5)
	if res.EnergyDistribution != nil || len(res.VisibleMeans) != v {
		t.Fatalf("distribution %v, %d visible means", res.EnergyDistribution != nil, len(res.VisibleMeans))
	}
}

func TestProbs(t *testing.T) {
	m := randomIsing(t, 8, 11, false)
	const beta = 0.9
	p, err := Probs(m, beta)
	if err != nil {
		t.Fatal(err)
	}
	lnZ, _, _ := brute(m, beta)
	stattest.Enumerate(m.N, func(s []int8) {
		want := math.Exp(-beta*m.Energy(s) - lnZ)
		if got := p[stattest.StateIndex(s)]; math.Abs(got-want) > 1e-12*want {
			t.Fatalf("p(%v) = %v, want %v", s, got, want)
		}
	})
}

func TestTooBig(t *testing.T) {
	big, err := model.NewIsing(31, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Enumerate(&model.Model{Ising: big}, 1); err == nil || !strings.Contains(err.Error(), "at most 30") {
		t.Errorf("31 spins: err = %v", err)
	}
	mid, _ := model.NewIsing(25, nil, nil, 0)
	if _, err := Probs(mid, 1); err == nil {
		t.Error("Probs accepted 25 spins")
	}
	rbm, _ := model.NewRBM(31, 32, make([]float64, 31*32), nil, nil)
	if _, err := Enumerate(&model.Model{Ising: big, RBM: rbm}, 1); err == nil {
		t.Error("Enumerate accepted a 31 x 32 RBM")
	}
	small, _ := model.NewIsing(3, nil, nil, 0)
	if _, err := Enumerate(&model.Model{Ising: small}, math.NaN()); err == nil {
		t.Error("Enumerate accepted beta = NaN")
	}
}

func TestJSONNames(t *testing.T) {
	b, err := json.Marshal(Result{Variables: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"variables":2,"beta":0,"ln_z":0,"energy_mean":0,"energy_var":0,"energy_distribution":null,` +
		`"magnetization":0,"abs_magnetization":0,"specific_heat":0,"susceptibility":0,"susceptibility_of":""}`
	if string(b) != want {
		t.Fatalf("JSON %s, want %s", b, want)
	}
}

func TestManyLevelsBinned(t *testing.T) {
	// Fields 2^i / 2 make all 4096 energies distinct: few enough for the
	// density of states, too many to list, so 200 bins.
	const n, beta = 12, 0.002
	h := make([]float64, n)
	for i := range h {
		h[i] = float64(int(1)<<i) / 2
	}
	m, err := model.NewIsing(n, nil, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Enumerate(&model.Model{Ising: m}, beta)
	if err != nil {
		t.Fatal(err)
	}
	lnZ, mean, vr := brute(m, beta)
	relClose(t, "ln Z", res.LnZ, lnZ, 1e-12)
	relClose(t, "mean", res.EnergyMean, mean, 1e-10)
	relClose(t, "var", res.EnergyVar, vr, 1e-10)
	d := res.EnergyDistribution
	if len(d) != nBins {
		t.Fatalf("%d distribution entries, want %d bins", len(d), nBins)
	}
	// Bin centres span [Emin, Emax] = [-2047.5, 2047.5] in equal steps.
	w := 4095.0 / nBins
	if math.Abs(d[0][0]-(-2047.5+w/2)) > 1e-9 || math.Abs(d[nBins-1][0]-(2047.5-w/2)) > 1e-9 {
		t.Fatalf("bin centres %v .. %v", d[0][0], d[nBins-1][0])
	}
	checkDistribution(t, res, mean)
}

// TestLargeCouplings: couplings of 1e12 put the energies near 3e12 with
// the two ground levels one unit apart. They used to be keyed into one
// level (the grid was 1e-12 of the model's scale, 3 units), giving
// ln Z = 3e12 - 0.5 + ln 2 and variance 0; the grid now keeps beta times
// its spacing below 1e-9, and weights are taken relative to the lowest
// energy, so ln Z, the mean and the variance are those of the two levels
// (log(1 + 1/e) = 0.31326...), also at beta 1e6 where beta E is 3e18.
// Beyond float64 (beta 1e300) Enumerate refuses rather than return NaN.
func TestLargeCouplings(t *testing.T) {
	edges := []model.Edge{{I: 0, J: 1, W: 1e12}, {I: 1, J: 2, W: -1e12}, {I: 2, J: 3, W: 1e12}, {I: 0, J: 3, W: 1}}
	is, err := model.NewIsing(4, edges, []float64{0.5, 0, 0, 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Model{Kind: model.KindIsing, Ising: is}
	res, err := Enumerate(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := 1 / (1 + math.E) // the weight of the upper ground level
	relClose(t, "ln Z", res.LnZ, 2999999999999.5+math.Log1p(1/math.E), 1e-15)
	relClose(t, "mean", res.EnergyMean, -2999999999999.5+p, 1e-15)
	relClose(t, "var", res.EnergyVar, p*(1-p), 1e-9)
	if d := res.EnergyDistribution; len(d) < 2 || d[0][0] != -2999999999999.5 || d[1][0] != -2999999999998.5 {
		t.Errorf("distribution starts %v, want the levels -2999999999999.5 and -2999999999998.5 apart", d[:min(len(d), 2)])
	}
	res, err = Enumerate(m, 1e6)
	if err != nil {
		t.Fatal(err)
	}
	relClose(t, "ln Z at beta 1e6", res.LnZ, 1e6*2999999999999.5, 1e-15)
	if res.EnergyMean != -2999999999999.5 || res.EnergyVar != 0 {
		t.Errorf("beta 1e6: mean %v, var %v (want the ground energy, 0)", res.EnergyMean, res.EnergyVar)
	}
	// Probs: relative weights, no Inf - Inf.
	pr, err := Probs(is, 1)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, x := range pr {
		if math.IsNaN(x) {
			t.Fatal("Probs gave NaN")
		}
		sum += x
	}
	relClose(t, "sum of Probs", sum, 1, 1e-12)
	for _, beta := range []float64{1e300, -1e300, math.MaxFloat64} {
		if res, err := Enumerate(m, beta); err == nil || !strings.Contains(err.Error(), "overflow float64") {
			t.Errorf("beta %g: %+v, %v (want an overflow error)", beta, res, err)
		}
	}
	r, err := model.NewRBM(2, 2, []float64{1e12, -1e12, 3, 1e12}, []float64{1, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ris, _ := r.Ising()
	if _, err := Enumerate(&model.Model{Kind: model.KindRBM, Ising: ris, RBM: r}, 1e300); err == nil || !strings.Contains(err.Error(), "overflow float64") {
		t.Errorf("RBM at beta 1e300: %v (want an overflow error)", err)
	}
	if res, err := Enumerate(&model.Model{Kind: model.KindRBM, Ising: ris, RBM: r}, 1); err != nil || math.IsNaN(res.EnergyVar) {
		t.Errorf("RBM at beta 1: %+v, %v", res, err)
	}
}
