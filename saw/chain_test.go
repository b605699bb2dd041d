package saw

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"sardonics/internal/stattest"
	"sardonics/model"
)

// energyBins groups the states of pi, in order of energy, into nb bins of
// about equal probability; it returns each state's bin and the bins'
// exact probabilities.
func energyBins(m *model.Ising, pi []float64, nb int) ([]int, []float64) {
	idx := make([]int, len(pi))
	e := make([]float64, len(pi))
	for x := range idx {
		idx[x] = x
		s := make([]int8, m.N)
		for i := range s {
			s[i] = int8(2*((x>>i)&1) - 1)
		}
		e[x] = m.Energy(s)
	}
	sort.Slice(idx, func(a, b int) bool { return e[idx[a]] < e[idx[b]] })
	bin := make([]int, len(pi))
	probs := make([]float64, nb)
	acc := 0.0
	for _, x := range idx {
		b := min(int(acc*float64(nb)), nb-1)
		bin[x] = b
		probs[b] += pi[x]
		acc += pi[x]
	}
	return bin, probs
}

// TestChainExactDistribution runs the chain with the naive engine on a
// random M=8 model (real J and h) and compares its energy distribution,
// in 12 bins of about equal probability, with the exact one by chi-square.
// Few bins keep the test insensitive to the residual autocorrelation of
// the thinned samples. A correct sampler fails with probability about
// 1e-4 per case; the seeds are fixed.
func TestChainExactDistribution(t *testing.T) {
	const M, beta, thin, samples = 8, 0.7, 3, 15000
	m := randomIsing(t, M, 0.5, 11)
	pi := Boltzmann(m, beta)
	bin, probs := energyBins(m, pi, 12)
	mix := []Theta{
		{KL: 1, KU: 4, GL: 0.6, GH: 1.3, PLL: 0.3, PHL: 0.5, PLH: 0.2, N: 1},
		{KL: 2, KU: 5, GL: 0.9, GH: 1.1, PLL: 0.5, PHL: 0.1, PLH: 0.4, N: 2},
	}
	for i, c := range []struct {
		thetas []Theta
		opts   Options
	}{
		{mix[:1], Options{}},
		{mix, Options{Layout: Pairs, Accept: Joint}},
		{mix[1:], Options{Weight: Exp, Accept: Joint}},
	} {
		init := make([]int8, M)
		for j := range init {
			init[j] = 1
		}
		ch, err := NewChain(NewNaive(m, init), beta, c.thetas, c.opts, rand.NewPCG(uint64(i), 99))
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]float64, len(probs))
		for range 200 {
			ch.Step()
		}
		for range samples {
			for range thin {
				ch.Step()
			}
			counts[bin[stattest.StateIndex(ch.Spins())]]++
			if e, want := ch.Energy(), m.Energy(ch.Spins()); math.Abs(e-want) > 1e-9 {
				t.Fatalf("chain energy %v, model says %v", e, want)
			}
		}
		stat, df, p := stattest.ChiSquare(counts, probs)
		st := ch.Stats()
		rate, _ := st.AcceptanceRate()
		t.Logf("%s %d thetas: chi2=%.1f df=%d p=%.3g acceptance %.2f flips/move %.2f",
			optName(c.opts), len(c.thetas), stat, df, p, rate, float64(st.Flips)/float64(st.Proposed))
		if !(p > 1e-4) {
			t.Errorf("%s: chi-square %.1f on %d df, p=%.3g (expected p > 1e-4)", optName(c.opts), stat, df, p)
		}
		if st.Proposed != 200+thin*samples || st.Accepted == 0 || st.Accepted > st.Proposed {
			t.Errorf("stats %+v (expected %d proposed, some accepted)", st, 200+thin*samples)
		}
	}
}

// TestChainLargeCouplings: |J| = 1000 at beta = 1 must not produce NaN or
// infinite weights; the chain must still move (downhill from a random
// start) and keep finite, decreasing-on-average energies.
func TestChainLargeCouplings(t *testing.T) {
	const M = 8
	r := rand.New(rand.NewPCG(5, 5))
	var edges []model.Edge
	for i := range M {
		for j := i + 1; j < M; j++ {
			edges = append(edges, model.Edge{I: int32(i), J: int32(j), W: 1000 * float64(2*r.IntN(2)-1)})
		}
	}
	h := make([]float64, M)
	for i := range h {
		h[i] = 1000 * (2*r.Float64() - 1)
	}
	m, err := model.NewIsing(M, edges, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range allOptions() {
		init := make([]int8, M)
		for i := range init {
			init[i] = int8(2*r.IntN(2) - 1)
		}
		e0 := m.Energy(init)
		ch, err := NewChain(NewNaive(m, init), 1, []Theta{{KL: 1, KU: 8, GL: 0.9, GH: 1.1, PLL: 0.4, PHL: 0.3, PLH: 0.3, N: 1}}, opts, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			ch.Step()
			if e := ch.Energy(); math.IsNaN(e) || math.IsInf(e, 0) {
				t.Fatalf("%s: energy %v", optName(opts), e)
			}
		}
		st := ch.Stats()
		if st.Accepted == 0 {
			t.Errorf("%s: no move accepted in %d (expected the chain to move)", optName(opts), st.Proposed)
		}
		if e := ch.Energy(); e > e0 {
			t.Errorf("%s: energy rose from %v to %v at |J|=1000 (expected descent)", optName(opts), e0, e)
		}
		// Every walk's log-probability stays finite.
		eng := ch.Engine()
		var path []int32
		for b := range 2 {
			path = path[:0]
			path, lf, dE := eng.Walk(rand.NewPCG(3, uint64(b)), M, b, path)
			rv, _ := eng.Replay(path, true)
			for _, x := range []float64{lf[0], lf[1], rv[0], rv[1], dE} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Errorf("%s: walk log-probabilities %v, reverse %v, dE %v (expected finite)", optName(opts), lf, rv, dE)
				}
			}
		}
	}
}

func TestNewChainRejectsBadInput(t *testing.T) {
	m := randomIsing(t, 3, 1, 1)
	eng := NewNaive(m, []int8{1, 1, 1})
	r := rand.NewPCG(1, 1)
	for _, c := range []struct {
		name   string
		beta   float64
		thetas []Theta
		opts   Options
	}{
		{"no theta", 1, nil, Options{}},
		{"invalid theta", 1, []Theta{{KL: 0, KU: 2, GL: 1, GH: 1, PLL: 1, N: 1}}, Options{}},
		{"NaN beta", math.NaN(), []Theta{DefaultTheta}, Options{}},
		{"negative beta", -1, []Theta{DefaultTheta}, Options{}},
		{"bad layout", 1, []Theta{DefaultTheta}, Options{Layout: 7}},
	} {
		if _, err := NewChain(eng, c.beta, c.thetas, c.opts, r); err == nil {
			t.Errorf("%s: NewChain gave no error", c.name)
		}
	}
}

func BenchmarkChainNaive(b *testing.B) {
	m := randomIsing(b, 16, 1, 1)
	ch, err := NewChain(NewNaive(m, ones(16)), 1, []Theta{DefaultTheta}, Options{}, rand.NewPCG(1, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ch.Step()
	}
}

// TestMagnetizationTracked: after TrackMagnetization the chain's sum of
// spins follows every move (walks long enough that the 2N walks of a move
// flip some bits twice), a Reset and a restored state.
func TestMagnetizationTracked(t *testing.T) {
	const M = 9
	m := randomIsing(t, M, 0.5, 3)
	for _, opts := range []Options{{}, {Layout: Pairs, Accept: Joint}} {
		th := Theta{KL: 1, KU: M, GL: 0.6, GH: 1.3, PLL: 0.3, PHL: 0.5, PLH: 0.2, N: 3}
		c, err := NewChain(NewNaive(m, ones(M)), 0.8, []Theta{th}, opts, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		c.TrackMagnetization()
		sum := func() int {
			x := 0
			for _, v := range c.Spins() {
				x += int(v)
			}
			return x
		}
		for i := range 3000 {
			c.Step()
			if got, want := c.Magnetization(), sum(); got != want {
				t.Fatalf("%+v, step %d: Magnetization %d, sum of spins %d", opts, i, got, want)
			}
		}
		if c.Stats().Accepted == 0 {
			t.Fatal("no move accepted")
		}
		c.Reset(ones(M))
		if c.Magnetization() != M {
			t.Fatalf("after Reset to all +1: %d", c.Magnetization())
		}
	}
}
