package baseline

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/exact"
	"sardonics/internal/stattest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

type newFunc func(*model.Model, float64, *rand.PCG, []int8) (sampler.Chain, error)

var samplers = []struct {
	name string
	new  newFunc
	rbm  bool // RBMs only
}{
	{"gibbs", NewGibbs, false},
	{"metropolis", NewMetropolis, false},
	{"sw", NewSW, false},
	{"blockgibbs", NewBlockGibbs, true},
}

// frustrated is a complete graph on n spins with J uniform on [-1,1] and h
// uniform on [-0.5,0.5]: real values, so the float paths run.
func frustrated(t testing.TB, n int, seed uint64) *model.Model {
	r := rand.New(rng.Stream(seed, 0))
	var edges []model.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			edges = append(edges, model.Edge{I: int32(i), J: int32(j), W: 2*r.Float64() - 1})
		}
	}
	h := make([]float64, n)
	for i := range h {
		h[i] = r.Float64() - 0.5
	}
	is, err := model.NewIsing(n, edges, h, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Kind: model.KindIsing, Ising: is}
}

// intQUBO is a dense QUBO with integer Q on n bits: its Ising form has
// quarter-integer couplings and an offset, so the table path runs with u = 1/4.
func intQUBO(t testing.TB, n int, seed uint64) *model.Model {
	r := rand.New(rng.Stream(seed, 1))
	diag := make([]float64, n)
	for i := range diag {
		diag[i] = float64(r.IntN(5) - 2)
	}
	var off []model.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if w := float64(r.IntN(5) - 2); w != 0 {
				off = append(off, model.Edge{I: int32(i), J: int32(j), W: w})
			}
		}
	}
	is, err := model.FromQUBO(n, diag, off, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Kind: model.KindQUBO, Ising: is, QUBO: &model.QUBO{N: n, Diag: diag, Off: off}}
}

func randomRBM(t testing.TB, v, h int, scale float64, bias bool, seed uint64) *model.Model {
	r := rand.New(rng.Stream(seed, 2))
	w := make([]float64, v*h)
	for i := range w {
		w[i] = scale * r.NormFloat64()
	}
	var b, c []float64
	if bias {
		b, c = make([]float64, v), make([]float64, h)
		for i := range b {
			b[i] = 0.5 * r.NormFloat64()
		}
		for i := range c {
			c[i] = 0.5 * r.NormFloat64()
		}
	}
	rb, err := model.NewRBM(v, h, w, b, c)
	if err != nil {
		t.Fatal(err)
	}
	is, err := rb.Ising()
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Kind: model.KindRBM, Ising: is, RBM: rb}
}

func randomSpins(n int, seed uint64) []int8 {
	r := rng.Stream(seed, 3)
	s := make([]int8, n)
	for i := range s {
		s[i] = int8(2*(r.Uint64()&1)) - 1
	}
	return s
}

// TestExactDistribution runs every sampler on small models and compares
// the distribution of thinned states with exact enumeration (chi-square),
// checks the tracked energy against a recomputation, and for RBMs the
// visible means against their exact values.
func TestExactDistribution(t *testing.T) {
	const (
		beta    = 1.0
		samples = 20000
		thin    = 20 // several times tau for these models, so counts are near-independent
		batches = 100
	)
	models := []struct {
		name string
		m    *model.Model
	}{
		{"frustrated7", frustrated(t, 7, 11)},
		{"qubo6", intQUBO(t, 6, 12)},
		{"rbm4x3", randomRBM(t, 4, 3, 1, true, 13)},
	}
	for mi, mc := range models {
		m := mc.m
		probs, err := exact.Probs(m.Ising, beta)
		if err != nil {
			t.Fatal(err)
		}
		for si, sc := range samplers {
			if sc.rbm && m.RBM == nil {
				continue
			}
			t.Run(mc.name+"/"+sc.name, func(t *testing.T) {
				n := m.Variables()
				c, err := sc.new(m, beta, rng.Stream(uint64(100+mi), uint64(si)), randomSpins(n, uint64(mi)))
				if err != nil {
					t.Fatal(err)
				}
				for range 100 {
					c.Step()
				}
				counts := make([]float64, len(probs))
				var vis [][]float64 // per batch, sums of visible bits
				var nv int
				if m.RBM != nil {
					nv = m.RBM.V
					vis = make([][]float64, batches)
					for b := range vis {
						vis[b] = make([]float64, nv)
					}
				}
				for k := range samples {
					for range thin {
						c.Step()
					}
					s := c.Spins()
					counts[stattest.StateIndex(s)]++
					for i := range nv {
						if s[i] > 0 {
							vis[k*batches/samples][i]++
						}
					}
				}
				stat, df, p := stattest.ChiSquare(counts, probs)
				if !(p > 1e-4) {
					t.Errorf("chi-square %.1f on %d df, p = %.2g (expected p > 1e-4)", stat, df, p)
				}
				if got, want := c.Energy(), m.Ising.Energy(c.Spins()); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Errorf("tracked energy %v, recomputed %v", got, want)
				}
				for i := range nv {
					want := 0.0
					for st, q := range probs {
						if st>>i&1 == 1 {
							want += q
						}
					}
					mean, se := batchMean(vis, i, samples/batches)
					if math.Abs(mean-want) > 4*se {
						t.Errorf("visible mean %d: %.4f +- %.4f (exact %.4f)", i, mean, se, want)
					}
				}
			})
		}
	}
}

// batchMean is the mean of unit i over equal batches and its standard error
// from the spread of the batch means (robust to residual correlation).
func batchMean(sums [][]float64, i int, per int) (mean, se float64) {
	var s, s2 float64
	for _, b := range sums {
		x := b[i] / float64(per)
		s += x
		s2 += x * x
	}
	k := float64(len(sums))
	mean = s / k
	v := (s2 - k*mean*mean) / (k - 1)
	return mean, math.Sqrt(max(v, 0) / k)
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		name  string
		m     *model.Model
		ok    bool
		unit  float64
		table int
	}{
		{"frustrated", frustrated(t, 7, 1), false, 0, 0},
		{"qubo", intQUBO(t, 6, 1), true, 0.25, 0},
		{"spinglass", spinGlass3D(t, 3, 1), true, 1, 6},
	} {
		u, _, _, k, ok := integerForm(tc.m.Ising)
		if ok != tc.ok || (ok && u != tc.unit) || (tc.table > 0 && k != tc.table) {
			t.Errorf("%s: integerForm gives unit %v, K %d, ok %v (expected %v, %d, %v)", tc.name, u, k, ok, tc.unit, tc.table, tc.ok)
		}
	}
}

func TestErrorsAndStats(t *testing.T) {
	m := frustrated(t, 5, 2)
	init := randomSpins(5, 1)
	for _, sc := range samplers {
		if _, err := sc.new(m, 1, rng.Stream(1, 1), init[:4]); err == nil {
			t.Errorf("%s: short initial state accepted", sc.name)
		}
		if _, err := sc.new(m, 1, rng.Stream(1, 1), []int8{1, 0, 1, 1, 1}); err == nil {
			t.Errorf("%s: spin 0 accepted", sc.name)
		}
		if _, err := sc.new(m, math.NaN(), rng.Stream(1, 1), init); err == nil {
			t.Errorf("%s: beta NaN accepted", sc.name)
		}
	}
	if _, err := NewBlockGibbs(m, 1, rng.Stream(1, 1), init); !errors.Is(err, ErrNotBipartite) {
		t.Errorf("blockgibbs on an Ising model: error %v (expected ErrNotBipartite)", err)
	}
	rbm := randomRBM(t, 4, 3, 1, true, 3)
	for _, tc := range []struct {
		name string
		m    *model.Model
	}{{"ising", m}, {"qubo", intQUBO(t, 6, 2)}, {"rbm", rbm}} {
		n := tc.m.Variables()
		for _, sc := range samplers {
			if sc.rbm && tc.m.RBM == nil {
				continue
			}
			init := randomSpins(n, 2)
			keep := append([]int8(nil), init...)
			c, err := sc.new(tc.m, 0.7, rng.Stream(2, 2), init)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.Energy(), tc.m.Ising.Energy(keep); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("%s/%s: initial energy %v (expected %v)", tc.name, sc.name, got, want)
			}
			for range 10 {
				c.Step()
			}
			for i := range init {
				if init[i] != keep[i] {
					t.Fatalf("%s/%s: chain wrote into the caller's initial state", tc.name, sc.name)
				}
			}
			st := c.Stats()
			switch sc.name {
			case "gibbs":
				if st.Flips != int64(10*n) || st.Proposed != 0 {
					t.Errorf("%s/gibbs: stats %+v (expected %d flips, no proposals)", tc.name, st, 10*n)
				}
			case "metropolis":
				if st.Flips != int64(10*n) || st.Proposed != st.Flips || st.Accepted <= 0 || st.Accepted > st.Proposed {
					t.Errorf("%s/metropolis: stats %+v", tc.name, st)
				}
			default:
				if st.Flips != -1 || st.Proposed != 0 {
					t.Errorf("%s/%s: stats %+v (expected flips -1)", tc.name, sc.name, st)
				}
			}
		}
	}
}

// TestDenseRefresh runs past the periodic refresh on a larger RBM and checks
// the tracked energy of the incremental dense chains.
func TestDenseRefresh(t *testing.T) {
	m := randomRBM(t, 30, 20, 0.3, true, 5)
	for _, f := range []newFunc{NewGibbs, NewMetropolis} {
		c, err := f(m, 1, rng.Stream(5, 5), randomSpins(50, 5))
		if err != nil {
			t.Fatal(err)
		}
		for k := range 2500 {
			c.Step()
			if k%500 == 499 {
				if got, want := c.Energy(), m.Ising.Energy(c.Spins()); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("step %d: tracked energy %v, recomputed %v", k, got, want)
				}
			}
		}
	}
}

// TestLargeCouplings runs every sampler with |J| up to 1e3 at beta = 1 (and
// at beta = 0) and checks that energies stay finite and consistent.
func TestLargeCouplings(t *testing.T) {
	for _, scale := range []float64{1e3, 1} {
		m := frustrated(t, 7, 21)
		for k := range m.Ising.J {
			m.Ising.J[k] *= scale
		}
		rbm := randomRBM(t, 5, 4, scale, true, 22)
		for _, beta := range []float64{1, 0} {
			for _, mm := range []*model.Model{m, rbm} {
				for _, sc := range samplers {
					if sc.rbm && mm.RBM == nil {
						continue
					}
					c, err := sc.new(mm, beta, rng.Stream(3, 3), randomSpins(mm.Variables(), 3))
					if err != nil {
						t.Fatal(err)
					}
					for range 50 {
						c.Step()
					}
					got, want := c.Energy(), mm.Ising.Energy(c.Spins())
					if math.IsNaN(got) || math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
						t.Errorf("%s scale %g beta %g: tracked energy %v, recomputed %v", sc.name, scale, beta, got, want)
					}
				}
			}
		}
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	for _, m := range []*model.Model{frustrated(t, 7, 31), intQUBO(t, 6, 31), randomRBM(t, 6, 5, 1, true, 31)} {
		for _, sc := range samplers {
			if sc.rbm && m.RBM == nil {
				continue
			}
			c, err := sc.new(m, 1, rng.Stream(4, 4), randomSpins(m.Variables(), 4))
			if err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(1100, c.Step); a != 0 { // past a refresh
				t.Errorf("%v %s: %v allocations per step (expected 0)", m.Kind, sc.name, a)
			}
		}
	}
}
