package logz

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"sardonics/exact"
	"sardonics/model"
	"sardonics/npy"
	_ "sardonics/samplers"
)

// The checks: every estimator against exact enumeration on models small
// enough for it, with fixed seeds (so a run is the same every time) and
// thresholds of 4 reported standard errors, which a right estimator with
// a right error bar passes with near certainty; logz_inject_test.go runs
// the same check on deliberately broken variants, which it must catch.

func load(t *testing.T, spec string) *model.Model {
	t.Helper()
	m, err := model.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testRBM is a small RBM with biases on both layers and weights of scale
// 1 (V + H = 14: exact enumerates it, and its Ising form, in a moment).
func testRBM(t *testing.T, v, h int, seed uint64) *model.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	w, b, c := make([]float64, v*h), make([]float64, v), make([]float64, h)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	for i := range b {
		b[i] = 0.5 * r.NormFloat64()
	}
	for j := range c {
		c[j] = 0.5*r.NormFloat64() - 0.5
	}
	rb, err := model.NewRBM(v, h, w, b, c)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Spec: "test-rbm", Kind: model.KindRBM, RBM: rb}
}

func exactLnZ(t *testing.T, m *model.Model, beta float64) float64 {
	t.Helper()
	res, err := exact.Enumerate(m, beta)
	if err != nil {
		t.Fatal(err)
	}
	return res.LnZ
}

// agrees reports whether est is within 4 of its standard errors of want,
// with an error below maxErr (an error bar that grew to hide a bias
// fails too).
func agrees(est *Estimate, want, maxErr float64) bool {
	return est.Stderr > 0 && est.Stderr < maxErr && math.Abs(est.LnZ-want) <= 4*est.Stderr
}

type estCase struct {
	name string
	m    func(t *testing.T) *model.Model
	beta float64
	smp  string
}

var estCases = []estCase{
	{"frustrated2d", func(t *testing.T) *model.Model { return load(t, "frustrated2d:L=3,seed=2") }, 1.5, ""},
	{"sk", func(t *testing.T) *model.Model { return load(t, "sk:N=10,seed=3") }, 1.5, ""},
	{"qubo-offset", func(t *testing.T) *model.Model { return quboModel(t) }, 0.7, ""},
	{"rbm", func(t *testing.T) *model.Model { return testRBM(t, 9, 5, 1) }, 1, ""},
	{"rbm-gibbs", func(t *testing.T) *model.Model { return testRBM(t, 9, 5, 1) }, 1, "gibbs"},
}

// quboModel is a QUBO with an offset: its energies (and so ln Z) include
// the constant, in the model's own convention.
func quboModel(t *testing.T) *model.Model {
	t.Helper()
	src := "c offset 3.5\np qubo 0 6 3 4\n0 0 -1\n2 2 2\n5 5 -0.5\n0 1 1.5\n1 2 -2\n3 4 1\n2 5 -1\n"
	m, err := model.ParseQUBO("test.qubo", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAISMatchesExact(t *testing.T) {
	for _, c := range estCases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			want := exactLnZ(t, m, c.beta)
			cfg := Config{Model: m, Beta: c.beta, Sampler: c.smp, Runs: 64, Steps: 200, Seed: 5, Threads: 2}
			est, err := AIS(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !agrees(est, want, 0.1) {
				t.Errorf("AIS: ln Z %.5f +- %.5f, exact %.5f (%.2f errors)", est.LnZ, est.Stderr, want, (est.LnZ-want)/est.Stderr)
			}
			if est.ESS < 16 || est.ESS > 64 {
				t.Errorf("ESS %.3g of 64 runs", est.ESS)
			}
		})
	}
}

func TestREMatchesExact(t *testing.T) {
	for _, c := range estCases {
		if c.smp == "" && c.name == "rbm" {
			continue // replica exchange runs registered samplers: rbm-gibbs
		}
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			want := exactLnZ(t, m, c.beta)
			cfg := Config{Model: m, Beta: c.beta, Sampler: c.smp, Runs: 8, Steps: 3000, Seed: 5, Threads: 2}
			est, err := RE(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !agrees(est, want, 0.1) {
				t.Errorf("RE: ln Z %.5f +- %.5f, exact %.5f (%.2f errors), ladder %.3g", est.LnZ, est.Stderr, want, (est.LnZ-want)/est.Stderr, est.Ladder)
			}
			if len(est.SwapAcceptance) != len(est.Ladder)-1 || len(est.PairLnZ) != len(est.Ladder)-1 || est.Ladder[0] != 0 || est.Ladder[len(est.Ladder)-1] != c.beta {
				t.Errorf("ladder %v, acceptance %v, pairs %v", est.Ladder, est.SwapAcceptance, est.PairLnZ)
			}
		})
	}
}

// TestSameOutputAnyThreads: the runs draw only from their own streams, so
// the estimate is bit for bit the same whatever the threads.
func TestSameOutputAnyThreads(t *testing.T) {
	for _, c := range []estCase{estCases[0], estCases[3]} {
		m := c.m(t)
		for _, method := range []string{"ais", "re"} {
			var got []float64
			for _, th := range []int{1, 3} {
				cfg := Config{Model: m, Beta: c.beta, Runs: 5, Steps: 150, Seed: 9, Threads: th}
				if method == "re" {
					cfg.Sampler = "gibbs"
				}
				est, err := map[string]func(Config) (*Estimate, error){"ais": AIS, "re": RE}[method](cfg)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, est.LnZ, est.Stderr)
			}
			if got[0] != got[2] || got[1] != got[3] {
				t.Errorf("%s %s: threads 1 and 3 give %v", c.name, method, got)
			}
		}
	}
}

// TestBetaZero: at beta = 0 every path starts at the target, ln Z = M ln 2.
func TestBetaZero(t *testing.T) {
	m := load(t, "frustrated2d:L=3")
	for _, f := range []func(Config) (*Estimate, error){AIS, RE} {
		est, err := f(Config{Model: m, Beta: 0, Runs: 2, Steps: 10})
		if err != nil || est.LnZ != 9*math.Ln2 || est.Stderr != 0 {
			t.Errorf("beta 0: %+v, %v", est, err)
		}
	}
}

// TestBaseRate: AIS from a base-rate model (biases fitted to rows drawn
// near the RBM's own) agrees with exact enumeration too; its base ln Z is
// prod_i (1 + e^a_i) 2^H.
func TestBaseRate(t *testing.T) {
	m := testRBM(t, 9, 5, 2)
	want := exactLnZ(t, m, 1)
	r := rand.New(rand.NewPCG(3, 3))
	rows := make([][]uint8, 50)
	for k := range rows {
		rows[k] = make([]uint8, 9)
		for i := range rows[k] {
			if r.Float64() < 0.2+0.06*float64(i) {
				rows[k][i] = 1
			}
		}
	}
	a := BaseRateFromData(9, rows)
	est, err := AIS(Config{Model: m, Beta: 1, Runs: 64, Steps: 200, Seed: 2, Threads: 2, BaseRate: a})
	if err != nil {
		t.Fatal(err)
	}
	z0 := 5 * math.Ln2
	for _, x := range a {
		z0 += math.Log1p(math.Exp(x))
	}
	if math.Abs(est.LnZ0-z0) > 1e-12 || !agrees(est, want, 0.1) {
		t.Errorf("base rate: ln Z0 %v (want %v), ln Z %.5f +- %.5f, exact %.5f", est.LnZ0, z0, est.LnZ, est.Stderr, want)
	}
}

// TestFreeEnergies: ln f_beta(v) with the hidden units summed out, against
// the sum over every h of exp(-beta E(v, h)).
func TestFreeEnergies(t *testing.T) {
	m := testRBM(t, 6, 4, 4)
	r := m.RBM
	rows := [][]uint8{{0, 0, 0, 0, 0, 0}, {1, 0, 1, 1, 0, 1}, {1, 1, 1, 1, 1, 1}}
	got := FreeEnergies(r, 0.8, rows)
	for n, v := range rows {
		s := 0.0
		for k := range 1 << r.H {
			h := make([]uint8, r.H)
			for j := range h {
				h[j] = uint8(k >> j & 1)
			}
			s += math.Exp(-0.8 * r.Energy(v, h))
		}
		if math.Abs(got[n]-math.Log(s)) > 1e-12 {
			t.Errorf("row %d: ln f %v, brute force %v", n, got[n], math.Log(s))
		}
	}
}

func TestReadRows(t *testing.T) {
	rows := [][]uint8{{0, 1, 1}, {1, 0, 0}}
	got, err := ReadRows(npy.U8Rows(rows), 3)
	if err != nil || !slices.EqualFunc(got, rows, slices.Equal) {
		t.Errorf("uint8: %v %v", got, err)
	}
	got, err = ReadRows(npy.F8([]float64{0, 1, 1, 1, 0, 0}, 2, 3), 3)
	if err != nil || !slices.EqualFunc(got, rows, slices.Equal) {
		t.Errorf("float64: %v %v", got, err)
	}
	for _, bad := range [][]byte{
		npy.F8([]float64{0, 1, 0.5, 1, 0, 0}, 2, 3), // not a bit
		npy.F8([]float64{0, 1, 1, 1}, 2, 2),         // wrong width
		npy.U8Rows([][]uint8{{0, 2, 1}}),            // not a bit
		[]byte("not npy"),
	} {
		if _, err := ReadRows(bad, 3); err == nil {
			t.Errorf("ReadRows accepted %q", bad[:min(len(bad), 60)])
		}
	}
}

func TestPlan(t *testing.T) {
	m := load(t, "frustrated2d:L=3")
	for _, method := range []string{"ais", "re"} {
		cfg, err := Plan(Config{Model: m, Beta: 1, Runs: 4, Threads: 1}, method, 0.3)
		if err != nil || cfg.Steps < 1000 || method == "re" && len(cfg.Ladder) < 2 {
			t.Errorf("%s: %d steps, ladder %v, %v", method, cfg.Steps, cfg.Ladder, err)
		}
		if _, err := Plan(Config{Model: m, Beta: 1, Runs: 4, Threads: 1}, method, 1e-7); err == nil {
			t.Errorf("%s: a budget of 0.1 us is accepted", method)
		}
	}
}

func TestWeights(t *testing.T) {
	ws := Weights([]float64{1000, 1000, 1000, 1000})
	if ws.LnMean != 1000 || ws.Stderr != 0 || ws.ESS != 4 {
		t.Errorf("equal weights: %+v", ws)
	}
	if l := LogMeanExp([]float64{0, math.Log(3)}); math.Abs(l-math.Log(2)) > 1e-15 {
		t.Errorf("LogMeanExp = %v", l)
	}
	lam := equalLength([]float64{0, 0.5, 1}, []float64{0, 3, 4}, 4)
	want := []float64{0, 1.0 / 6, 2.0 / 6, 0.5, 1}
	for k := range lam {
		if math.Abs(lam[k]-want[k]) > 1e-15 {
			t.Errorf("equalLength = %v, want %v", lam, want)
			break
		}
	}
}

// TestUnevenPair: the warning's test picks a pair well under the median,
// and only one.
func TestUnevenPair(t *testing.T) {
	if j, _ := unevenPair([]float64{0.5, 0.48, 0.26, 0.52}); j != 2 {
		t.Errorf("uneven pair %d (want 2)", j)
	}
	if j, _ := unevenPair([]float64{0.5, 0.43, 0.46, 0.52}); j != -1 {
		t.Errorf("even ladder: pair %d", j)
	}
}
