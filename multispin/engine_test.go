package multispin

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/diag"
	"sardonics/model"
)

// torus is an L x L periodic +-a lattice with couplings of random signs
// (seed) and, with fields, a field of -a, 0 or +a at every site.
func torus(t *testing.T, l int, a float64, seed uint64, fields bool) *model.Ising {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var edges []model.Edge
	for y := range l {
		for x := range l {
			i := int32(y*l + x)
			for _, j := range []int32{int32(y*l + (x+1)%l), int32(((y+1)%l)*l + x)} {
				w := a
				if r.IntN(2) == 0 {
					w = -a
				}
				edges = append(edges, model.Edge{I: i, J: j, W: w})
			}
		}
	}
	var h []float64
	if fields {
		h = make([]float64, l*l)
		for i := range h {
			h[i] = a * float64(r.IntN(3)-1)
		}
	}
	m, err := model.NewIsing(l*l, edges, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exactMean is <E> of m at beta by enumeration.
func exactMean(m *model.Ising, beta float64) float64 {
	s := make([]int8, m.N)
	var z, ze float64
	e0 := math.Inf(1)
	es := make([]float64, 1<<m.N)
	for st := range es {
		for i := range s {
			s[i] = 1 - 2*int8(st>>i&1)
		}
		es[st] = m.Energy(s)
		e0 = min(e0, es[st])
	}
	for _, e := range es {
		w := math.Exp(-beta * (e - e0))
		z += w
		ze += w * e
	}
	return ze / z
}

// run sweeps e n times after burn sweeps and returns every chain's energy
// trace.
func run(e *Engine, burn, n int) [][]float64 {
	for range burn {
		e.Sweep()
	}
	tr := make([][]float64, Lanes)
	var buf []float64
	for range n {
		e.Sweep()
		buf = e.Energies(buf[:0])
		for b, x := range buf {
			tr[b] = append(tr[b], x)
		}
	}
	return tr
}

// meanSE is the mean of x and its standard error by batch means.
func meanSE(x []float64) (float64, float64) {
	var a diag.BatchMeans
	for _, v := range x {
		a.Add(v, 128)
	}
	m, vb := a.MeansMoments()
	return m, math.Sqrt(vb / float64(len(a.Means)-1))
}

// exactness checks the 64 chains of instances against enumeration,
// reporting the worst |mean - exact| / se.
func exactness(t *testing.T, instances []*model.Ising, beta float64, mutate func(*Engine)) float64 {
	t.Helper()
	e, err := New(instances, beta, rand.NewPCG(3, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(e)
	}
	tr := run(e, 500, 40000)
	worst := 0.0
	exact := map[*model.Ising]float64{}
	for b := range Lanes {
		m := instances[b%len(instances)]
		if _, ok := exact[m]; !ok {
			exact[m] = exactMean(m, beta)
		}
		mean, se := meanSE(tr[b])
		worst = max(worst, math.Abs(mean-exact[m])/se)
	}
	return worst
}

// TestExactness: each of 64 packed chains of a 4x4 +-J glass (64
// instances) and of a 4x4 frustrated torus with fields (64 instances)
// has the exact mean energy within 5 standard errors (64 chains: a
// correct sampler exceeds 5 with probability about 4e-5); Metropolis
// with the rule's factor 2 dropped (p = exp(-beta dE / 2)) fails.
func TestExactness(t *testing.T) {
	const beta = 0.7
	for _, fields := range []bool{false, true} {
		var inst []*model.Ising
		for b := range Lanes {
			inst = append(inst, torus(t, 4, 1, uint64(100+b), fields))
		}
		w := exactness(t, inst, beta, nil)
		t.Logf("fields %v: worst chain %.2f standard errors from exact", fields, w)
		if w > 5 {
			t.Errorf("fields %v: worst chain %.2f standard errors from exact", fields, w)
		}
		if w := exactness(t, inst, beta, func(e *Engine) { e.SetBeta(beta / 2); e.beta = beta }); w < 8 {
			t.Logf("broken: %.2f", w)
			t.Errorf("fields %v: the broken rule (half the energy change) is only %.2f standard errors from exact", fields, w)
		}
	}
	// One instance for all 64 chains, couplings of magnitude 0.5.
	if w := exactness(t, []*model.Ising{torus(t, 4, 0.5, 9, true)}, 1.5, nil); w > 5 {
		t.Errorf("one instance, a = 0.5: worst chain %.2f standard errors from exact", w)
	}
}

// meanAbsCorr is the mean |correlation| of the energy traces of pairs of
// chains.
func meanAbsCorr(tr [][]float64) float64 {
	n := len(tr[0])
	z := make([][]float64, len(tr))
	for b, x := range tr {
		m, v := 0.0, 0.0
		for _, e := range x {
			m += e
		}
		m /= float64(n)
		for _, e := range x {
			v += (e - m) * (e - m)
		}
		sd := math.Sqrt(v / float64(n))
		z[b] = make([]float64, n)
		for i, e := range x {
			z[b][i] = (e - m) / sd
		}
	}
	sum, pairs := 0.0, 0
	for a := range z {
		for b := a + 1; b < len(z); b++ {
			c := 0.0
			for i := range n {
				c += z[a][i] * z[b][i]
			}
			sum += math.Abs(c / float64(n))
			pairs++
		}
	}
	return sum / float64(pairs)
}

// TestIndependentLanes: 64 chains of one 6x6 glass at a low temperature,
// from different states, have uncorrelated energy traces (mean |corr|
// below 0.05; about sqrt(2/pi)/sqrt(n_eff) for independent chains).
// engine_inject_test.go shows that the variant sharing one random bit
// among all chains fails it.
func TestIndependentLanes(t *testing.T) {
	if c := laneCorrelation(t); c >= 0.05 {
		t.Errorf("independent lanes: mean |correlation| %.3f", c)
	}
}

// laneCorrelation is the mean |correlation| of the energy traces of the
// 64 chains of one 6x6 glass at beta 1.2, from different states.
func laneCorrelation(t *testing.T) float64 {
	e, err := New([]*model.Ising{torus(t, 6, 1, 5, false)}, 1.2, rand.NewPCG(8, 9), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := meanAbsCorr(run(e, 200, 4000))
	t.Logf("mean |correlation| %.3f", c)
	return c
}

// TestEnergies: Energies agrees with the model's energy of every chain's
// spins after sweeps, fields and offsets included.
func TestEnergies(t *testing.T) {
	var inst []*model.Ising
	for b := range Lanes {
		m := torus(t, 5, 2, uint64(b), b%2 == 0)
		m.Offset = float64(b)
		inst = append(inst, m)
	}
	e, err := New(inst, 0.3, rand.NewPCG(1, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]int8, e.Sites())
	for range 3 {
		e.Sweep()
		got := e.Energies(nil)
		for b := range Lanes {
			e.Spins(b, s)
			if want := inst[b].Energy(s); math.Abs(got[b]-want) > 1e-9 {
				t.Fatalf("chain %d: energy %v, model's %v", b, got[b], want)
			}
		}
	}
}

// TestFraction64: p as a 64-bit binary fraction, to within 2^-64 (and
// float64's rounding of the check).
func TestFraction64(t *testing.T) {
	for _, p := range []float64{0, 1, 0.5, 0.75, 1e-3, math.Exp(-8), 1e-30, 0.999999} {
		got := fraction64(p)
		if d := math.Abs(float64(got)/math.Exp2(64) - p); d > 1e-15*p+math.Exp2(-63) {
			t.Errorf("fraction64(%v) = %#x (%v)", p, got, float64(got)/math.Exp2(64))
		}
	}
}

// TestRefusals: couplings of two magnitudes, or another graph, are
// refused with a message.
func TestRefusals(t *testing.T) {
	m := torus(t, 4, 1, 1, false)
	m.J[0] *= 2
	if _, err := New([]*model.Ising{m}, 1, rand.NewPCG(1, 1), nil); err == nil {
		t.Error("accepted a coupling of another magnitude")
	}
	inst := make([]*model.Ising, Lanes)
	for b := range inst {
		inst[b] = torus(t, 4, 1, 1, false)
	}
	inst[7] = torus(t, 5, 1, 1, false)
	if _, err := New(inst, 1, rand.NewPCG(1, 1), nil); err == nil {
		t.Error("accepted instances on two graphs")
	}
}

func BenchmarkSweep3D(b *testing.B) {
	m, err := model.SpinGlass3D(8, 1)
	if err != nil {
		b.Fatal(err)
	}
	e, err := New([]*model.Ising{m.Sparse()}, 2, rand.NewPCG(1, 2), nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		e.Sweep()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(e.Sites()*Lanes), "ns/spin")
}
