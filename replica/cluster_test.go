package replica_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/exact"
	"sardonics/internal/stattest"
	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
)

// tinyModel is an Ising model of n spins on a ring with the given chords,
// couplings +-1 drawn from seed, and fields (nil: none).
func tinyModel(t testing.TB, n int, chords [][2]int32, h []float64, seed uint64) *model.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var edges []model.Edge
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	for i := range int32(n) {
		edges = append(edges, model.Edge{I: i, J: (i + 1) % int32(n), W: pm()})
	}
	for _, c := range chords {
		edges = append(edges, model.Edge{I: c[0], J: c[1], W: pm()})
	}
	is, err := model.NewIsing(n, edges, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Spec: fmt.Sprintf("tiny%d", n), Kind: model.KindIsing, Ising: is}
}

func graphOf(m *model.Model) replica.Graph {
	is := m.Sparse()
	return replica.Graph{Start: is.Start, Adj: is.Adj, Even: is.NoFields()}
}

// stateOf is the pair (a, b) of n-spin states with index x = A + B 2^n
// (A, B as stattest.StateIndex numbers them).
func stateOf(x, n int, a, b []int8) {
	for i := range n {
		a[i] = int8(2*(x>>i&1) - 1)
		b[i] = int8(2*(x>>(n+i)&1) - 1)
	}
}

// transitions is the exact transition matrix of one cluster move on every
// pair of states of m: T[x][y] for pair indices as stateOf numbers them.
// It fails t if a move of the correct rule changes E_a + E_b.
func transitions(t *testing.T, m *model.Model, checkEnergy bool) []map[int]float64 {
	t.Helper()
	is := m.Sparse()
	n := is.N
	g := graphOf(m)
	T := make([]map[int]float64, 1<<(2*n))
	a, b := make([]int8, n), make([]int8, n)
	for x := range T {
		T[x] = map[int]float64{}
		stateOf(x, n, a, b)
		e0 := is.Energy(a) + is.Energy(b)
		var outs []int
		replica.ICMOutcomes(g, a, b, func(cl []int32) {
			a2, b2 := slices.Clone(a), slices.Clone(b)
			for _, i := range cl {
				a2[i], b2[i] = -a2[i], -b2[i]
			}
			if checkEnergy {
				if e := is.Energy(a2) + is.Energy(b2); math.Abs(e-e0) > 1e-12 {
					t.Fatalf("pair %d: the move changed E_a + E_b from %v to %v", x, e0, e)
				}
				for i := range a {
					if a2[i]*b2[i] != a[i]*b[i] {
						t.Fatalf("pair %d: the move changed q_%d", x, i)
					}
				}
			}
			outs = append(outs, stattest.StateIndex(a2)|stattest.StateIndex(b2)<<n)
		})
		if len(outs) == 0 {
			T[x][x] = 1
			continue
		}
		for _, y := range outs {
			T[x][y] += 1 / float64(len(outs))
		}
	}
	return T
}

// balance is the largest violation of detailed balance of T with respect
// to exp(-beta (E_a + E_b)), |pi(x) T(x,y) - pi(y) T(y,x)| relative to
// max(pi(x) T(x,y), pi(y) T(y,x)), and the largest |row sum - 1|.
func balance(m *model.Model, beta float64, T []map[int]float64) (worst, rows float64) {
	p, err := exact.Probs(m.Sparse(), beta)
	if err != nil {
		panic(err)
	}
	n := m.Variables()
	pi := func(x int) float64 { return p[x&(1<<n-1)] * p[x>>n] }
	for x, row := range T {
		s := 0.0
		for y, txy := range row {
			s += txy
			f, r := pi(x)*txy, pi(y)*T[y][x]
			if d := math.Abs(f-r) / max(f, r); d > worst {
				worst = d
			}
		}
		rows = max(rows, math.Abs(s-1))
	}
	return worst, rows
}

var (
	ring6Chords = [][2]int32{{0, 3}, {1, 4}}
	ring6Fields = []float64{0.5, -1, 0.25, 0, -0.75, 1}
)

// TestICMTransitionMatrix is the move's exact proof on every pair of
// states of 6-spin models, with and without fields: the transition matrix
// of one move, built from the move's own seed draws and clusters, keeps
// E_a + E_b and every q_i, its rows sum to 1, and it satisfies detailed
// balance with respect to exp(-beta (E_a + E_b)) to 1e-12 at beta 1.5 and
// 3. The deliberately broken rules violate it by far more
// (TestICMTransitionMatrixBrokenCaught, under the tag inject).
func TestICMTransitionMatrix(t *testing.T) {
	for _, h := range [][]float64{nil, ring6Fields} {
		m := tinyModel(t, 6, ring6Chords, h, 4)
		T := transitions(t, m, true)
		for _, beta := range []float64{1.5, 3} {
			worst, rows := balance(m, beta, T)
			t.Logf("fields %v, beta %g: detailed balance within %.2g, rows within %.2g", h != nil, beta, worst, rows)
			if worst > 1e-12 || rows > 1e-12 {
				t.Errorf("fields %v, beta %g: detailed balance violated by %.3g (rows by %.3g)", h != nil, beta, worst, rows)
			}
		}
	}
}

// TestDiffer: the word-at-a-time count, marking and search of the move's
// side (the q = -1 sites, or on an Even graph the fewer of those and the
// q = +1 ones) agree with a plain loop at every length and mix.
func TestDiffer(t *testing.T) {
	r := rng.Sub(1, 2, 3)
	sides := 0
	for n := 1; n < 70; n++ {
		for range 20 {
			a, b := randomSpins(r, n), randomSpins(r, n)
			if r.Uint64()%4 == 0 { // mostly differing pairs, for the Even side
				for i := range b {
					if r.Uint64()%8 != 0 {
						b[i] = -a[i]
					}
				}
			}
			minus := 0
			for i := range a {
				if a[i] != b[i] {
					minus++
				}
			}
			for _, even := range []bool{false, true} {
				wantAgree := even && 2*minus > n
				var idx []int
				for i := range a {
					if (a[i] != b[i]) != wantAgree {
						idx = append(idx, i)
					}
				}
				d, m, agree, open := replica.Differ(a, b, even)
				if m != minus || d != len(idx) || agree != wantAgree {
					t.Fatalf("n %d, even %v: Differ (%d, %d, %v), plain (%d, %d, %v)", n, even, d, m, agree, len(idx), minus, wantAgree)
				}
				if agree {
					sides++
				}
				for i := range a {
					if want := (a[i] != b[i]) != agree; (open[i] == 1) != want || open[i] > 1 {
						t.Fatalf("n %d, even %v: site %d open %d (on the side: %v)", n, even, i, open[i], want)
					}
				}
				for k, i := range idx {
					if got := replica.NthSite(a, b, k, agree); got != i {
						t.Fatalf("n %d, even %v: NthSite(%d) = %d, want %d", n, even, k, got, i)
					}
				}
			}
		}
	}
	if sides == 0 {
		t.Error("no pair took the q = +1 side")
	}
}

// icmConfig is a two-set ladder of 4 rungs from beta 0.3 to beta with the
// cluster move on at every rung, swaps every step.
func icmConfig(m *model.Model, beta float64) replica.Config {
	return replica.Config{Betas: replica.Geometric(0.3, beta, 4), SwapEvery: 1, Sets: 2,
		Cluster: replica.ICM, Graph: graphOf(m), ClusterBetaMin: 0.3}
}

// icmCounts runs a Metropolis chain of icmConfig on m and counts, every
// thin steps after a burn-in, set 0's target state (marginal) and, with
// joint, the pair of both sets' target states (index A + B 2^n).
func icmCounts(t *testing.T, m *model.Model, beta float64, samples, thin int, joint bool, seed uint64) (marg, pair []float64) {
	t.Helper()
	n := m.Variables()
	r := rng.Sub(seed, 0, 1)
	c, err := replica.New(icmConfig(m, beta), builder("metropolis", m, "", 0), r, randomSpins(rng.Sub(seed, 0, 0), n))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	marg = make([]float64, 1<<n)
	if joint {
		pair = make([]float64, 1<<(2*n))
	}
	for range 200 {
		c.Step()
	}
	R := 4
	for range samples {
		for range thin {
			c.Step()
		}
		a := stattest.StateIndex(c.RungChain(0, R-1).Spins())
		marg[a]++
		if joint {
			pair[a|stattest.StateIndex(c.RungChain(1, R-1).Spins())<<n]++
		}
	}
	return marg, pair
}

// icmEnumCase is a model and what TestICMAgreesWithEnumeration compares.
type icmEnumCase struct {
	name  string
	m     func(t *testing.T) *model.Model
	joint bool
}

func icmEnumCases() []icmEnumCase {
	load := func(spec string) func(t *testing.T) *model.Model {
		return func(t *testing.T) *model.Model {
			m, err := model.Load(spec)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	return []icmEnumCase{
		{"spinglass2d-L3", load("spinglass2d:L=3,seed=5"), false},
		{"frustrated2d-L3-fields", load("frustrated2d:L=3,seed=5"), false},
		{"ring5-joint", func(t *testing.T) *model.Model { return tinyModel(t, 5, [][2]int32{{0, 2}}, nil, 7) }, true},
		{"ring5-fields-joint", func(t *testing.T) *model.Model {
			return tinyModel(t, 5, [][2]int32{{0, 2}}, []float64{0.5, -1, 0.25, 0, -0.75}, 7)
		}, true},
	}
}

const (
	icmSamples = 40000
	icmThin    = 3
)

// TestICMAgreesWithEnumeration is the cluster move's proof inside replica
// exchange: two sets of Metropolis replicas (4 rungs from beta 0.3), one
// move at every rung after every swap round, on models of 9 and 5 spins
// with and without fields, at beta 1.5 and 3. Set 0's target state
// (9 spins) or the pair of both sets' target states (5 spins) is counted
// every 3 steps, 40000 times, and Pearson's chi-square against the exact
// Boltzmann probabilities (cells below 5 expected counts pooled) must give
// p > 1e-4 (the seeds are fixed, so the test is deterministic; a correct
// sampler fails with probability about 1e-4 per check when the thinned
// draws are nearly independent). TestICMBrokenCaught runs the same
// checks on the broken rules.
func TestICMAgreesWithEnumeration(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	for i, ec := range icmEnumCases() {
		for _, beta := range []float64{1.5, 3} {
			t.Run(fmt.Sprintf("%s/beta=%g", ec.name, beta), func(t *testing.T) {
				stat, df, p := icmCheck(t, ec, beta, uint64(20+i))
				t.Logf("chi-square %.1f on %d df, p = %.3g", stat, df, p)
				if !(p > 1e-4) {
					t.Errorf("chi-square %.1f on %d df, p = %.3g (expected p > 1e-4)", stat, df, p)
				}
			})
		}
	}
}

// icmCheck runs icmCounts for ec at beta and returns Pearson's test of
// what it counted.
func icmCheck(t *testing.T, ec icmEnumCase, beta float64, seed uint64) (stat float64, df int, p float64) {
	m := ec.m(t)
	probs, err := exact.Probs(m.Sparse(), beta)
	if err != nil {
		t.Fatal(err)
	}
	marg, pair := icmCounts(t, m, beta, icmSamples, icmThin, ec.joint, seed)
	if !ec.joint {
		return stattest.ChiSquare(marg, probs)
	}
	n := m.Variables()
	pp := make([]float64, len(pair))
	for x := range pp {
		pp[x] = probs[x&(1<<n-1)] * probs[x>>n]
	}
	return stattest.ChiSquare(pair, pp)
}

// icmKernelCases are the kernels the cluster move runs with.
var icmKernelCases = []kernelCase{
	{"metropolis", "frustrated2d:L=4,seed=3", "metropolis", "", 0},
	{"gibbs", "frustrated2d:L=4,seed=3", "gibbs", "", 0},
	{"sardonics-tree", "frustrated2d:L=4,seed=3", "sardonics", "tree", 0},
	{"sardonics-bucket", "frustrated2d:L=4,seed=3", "sardonics", "bucket", 0},
	{"hybrid", "frustrated2d:L=4,seed=3", "hybrid", "", 0},
	{"metropolis-chimera", "chimera:M=2,N=1,T=2,seed=3", "metropolis", "", 0}, // h = 0, real couplings
}

// withICM turns the cluster move on in a ladder of kc's model: at every
// rung from betaMin, or (betaMin 0) chosen at the end of a burn-in of
// countFrom steps.
func withICM(t *testing.T, kc kernelCase, betaMin float64, countFrom int) func(*replica.Config) {
	m, err := model.Load(kc.spec)
	if err != nil {
		t.Fatal(err)
	}
	return func(cfg *replica.Config) {
		cfg.Sets, cfg.Cluster, cfg.Graph, cfg.ClusterBetaMin = 2, replica.ICM, graphOf(m), betaMin
		if countFrom > 0 {
			cfg.CountFrom = countFrom
		}
	}
}

// TestICMKernelsAgree: every kernel inside replica exchange with the
// cluster move (on at every rung, or on the rungs chosen at the end of the
// burn-in) gives the exact mean energy and ground-state probability at
// beta 3 within 4 standard errors over 16 trials, as TestAgreesWithEnumeration
// asks of the kernels without it.
func TestICMKernelsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run against exact enumeration: the full suite runs it")
	}
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	for _, kc := range icmKernelCases {
		for _, chosen := range []bool{false, true} {
			name := kc.name + "/every-rung"
			betaMin, from := 0.3, 0
			if chosen {
				name, betaMin, from = kc.name+"/chosen", 0, 600
			}
			t.Run(name, func(t *testing.T) {
				zE, zP := agreementWith(t, kc, 16, 3000, withICM(t, kc, betaMin, from))
				t.Logf("z(mean E) = %.2f, z(P(E_min)) = %.2f", zE, zP)
				if math.Abs(zE) > 4 || math.Abs(zP) > 4 || math.IsNaN(zE) || math.IsNaN(zP) {
					t.Errorf("%s with the cluster move disagrees with enumeration: z = %.2f (energy), %.2f (ground state)", kc.name, zE, zP)
				}
			})
		}
	}
}

// TestICMKeepsEnergies: on a 3D glass, every move keeps the two members'
// E_a + E_b and leaves each member's energy that of its spins, at every
// rung, hot and cold.
func TestICMKeepsEnergies(t *testing.T) {
	for _, kc := range []kernelCase{
		{"metropolis", "spinglass3d:L=4,seed=1", "metropolis", "", 0},
		{"sardonics", "spinglass3d:L=4,seed=1", "sardonics", "", 0},
		{"hybrid", "frustrated2d:L=6,seed=1", "hybrid", "", 0},
		// The pair flip's paths: degree-4 rows with fields, and CSR rows.
		{"metropolis-fields", "frustrated2d:L=6,seed=1", "metropolis", "", 0},
		{"gibbs-chimera", "chimera:M=2,N=2,T=4,seed=1", "gibbs", "", 0},
	} {
		m, _ := model.Load(kc.spec)
		is := m.Sparse()
		cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 6), SwapEvery: 2, Sets: 2}
		withICM(t, kc, 0.2, 0)(&cfg)
		c, _ := newChain(t, kc, cfg, 3)
		moves := 0
		for range 40 {
			for range 5 {
				c.Step()
			}
			for k := range 6 {
				a, b := c.RungChain(0, k), c.RungChain(1, k)
				e0 := a.Energy() + b.Energy()
				if c.ClusterMove(k) > 0 {
					moves++
				}
				for _, ch := range []interface {
					Energy() float64
					Spins() []int8
				}{a, b} {
					if got, want := ch.Energy(), is.Energy(ch.Spins()); math.Abs(got-want) > 1e-9 {
						t.Fatalf("%s: member energy %v, recomputed %v", kc.name, got, want)
					}
				}
				if e := a.Energy() + b.Energy(); math.Abs(e-e0) > 1e-9 {
					t.Fatalf("%s rung %d: E_a + E_b %v -> %v", kc.name, k, e0, e)
				}
			}
		}
		if moves == 0 {
			t.Errorf("%s: no move made", kc.name)
		}
	}
}

// TestICMDoesNotAllocate: a move (count, seed, search, flips in both
// members) allocates nothing.
func TestICMDoesNotAllocate(t *testing.T) {
	kc := kernelCase{"metropolis", "spinglass3d:L=6,seed=1", "metropolis", "", 0}
	cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 4), SwapEvery: 1, Sets: 2}
	withICM(t, kc, 0.2, 0)(&cfg)
	c, _ := newChain(t, kc, cfg, 4)
	for range 50 {
		c.Step()
	}
	for k := range 4 {
		if a := testing.AllocsPerRun(100, func() { c.ClusterMove(k) }); a != 0 {
			t.Errorf("rung %d: %v allocations per move", k, a)
		}
	}
}
