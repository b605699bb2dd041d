package hybrid_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/hybrid"
	"sardonics/rng"
	"sardonics/sampler"
)

// TestSetCycles: with a table, SetBeta sets the cycle of the beta it is
// given and keeps the cycle for a beta not in it; SetCycles applies the
// current beta's cycle at once, builds the components the table needs
// (here SARDONICS, for a chain built 1:0), keeps the energy exact, and
// refuses bad tables; an empty table clears it.
func TestSetCycles(t *testing.T) {
	m := load(t, glass)
	c := newHybrid(t, m, 1, opts(1, 0, ""), rng.Sub(2, 0, 1), randomSpins(rng.Sub(2, 0, 0), m.Variables())).(*hybrid.Chain)
	if c.Sardonics() != nil {
		t.Fatal("a 1:0 chain has a SARDONICS component")
	}
	betas, cycles := []float64{0.5, 1, 3}, [][2]int{{1, 0}, {0, 2}, {2, 3}}
	if err := c.SetCycles(betas, cycles); err != nil {
		t.Fatal(err)
	}
	mix := func(want [2]int) {
		t.Helper()
		if a, mv := c.Mix(); [2]int{a, mv} != want {
			t.Errorf("cycle %d:%d (expected %v)", a, mv, want)
		}
	}
	mix([2]int{0, 2})
	if c.Sardonics() == nil {
		t.Fatal("SetCycles did not build the SARDONICS component")
	}
	for _, s := range []struct {
		beta float64
		want [2]int
	}{{3, [2]int{2, 3}}, {0.5, [2]int{1, 0}}, {2.2, [2]int{1, 0}}, {1, [2]int{0, 2}}, {2.2, [2]int{0, 2}}} {
		c.SetBeta(s.beta)
		mix(s.want)
		for range 20 {
			c.Step()
			if got, want := c.Energy(), m.Sparse().Energy(c.Spins()); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("beta %v: energy %v, model says %v", s.beta, got, want)
			}
		}
	}
	gb, gc := c.Cycles()
	if !slices.Equal(gb, betas) || !slices.Equal(gc, cycles) {
		t.Errorf("Cycles() = %v, %v", gb, gc)
	}
	for _, bad := range []struct {
		b []float64
		c [][2]int
	}{
		{[]float64{1}, nil},
		{[]float64{1, 1}, [][2]int{{1, 0}, {0, 1}}},
		{[]float64{1}, [][2]int{{0, 0}}},
		{[]float64{1}, [][2]int{{-1, 2}}},
	} {
		if err := c.SetCycles(bad.b, bad.c); err == nil {
			t.Errorf("table %v %v accepted", bad.b, bad.c)
		}
	}
	if gb2, _ := c.Cycles(); !slices.Equal(gb2, betas) {
		t.Error("a refused table changed the table")
	}
	if err := c.SetCycles(nil, nil); err != nil {
		t.Fatal(err)
	}
	c.SetBeta(3)
	mix([2]int{0, 2})
	if b, _ := c.Cycles(); b != nil {
		t.Error("the table was not cleared")
	}
}

// TestSetCyclesKeepsTheStream: building a component in SetCycles does not
// move the chain's stream: a 1:0 chain given a table that does not hold
// its beta runs exactly as one without a table until SetBeta reaches a
// beta of the table.
func TestSetCyclesKeepsTheStream(t *testing.T) {
	m := load(t, glass)
	mk := func() *hybrid.Chain {
		return newHybrid(t, m, 1, opts(1, 0, ""), rng.Sub(4, 0, 1), randomSpins(rng.Sub(4, 0, 0), m.Variables())).(*hybrid.Chain)
	}
	a, b := mk(), mk()
	run(a, 30)
	run(b, 30)
	if err := b.SetCycles([]float64{2}, [][2]int{{0, 3}}); err != nil {
		t.Fatal(err)
	}
	ea, sa := run(a, 200)
	eb, sb := run(b, 200)
	if !slices.Equal(ea, eb) || !slices.Equal(sa, sb) {
		t.Error("SetCycles moved the stream or the chain")
	}
}

// cycleStates are hybrid chains with cycle tables whose state must save
// and restore whole: built 1:0 (the table needs SARDONICS, built late),
// built 0:2 (the table needs Metropolis), both in the built cycle.
var cycleStates = []struct {
	name   string
	o      any
	betas  []float64
	cycles [][2]int
}{
	{"1:0+table", opts(1, 0, "tree"), []float64{0.5, 1.2, 2}, [][2]int{{1, 0}, {1, 2}, {0, 3}}},
	{"0:2+table", opts(0, 2, "bucket"), []float64{0.5, 1.2, 2}, [][2]int{{2, 0}, {1, 1}, {0, 3}}},
	{"2:3+table-rbm", opts(2, 3, "dense"), []float64{1.2, 2}, [][2]int{{1, 0}, {2, 3}}},
}

// TestCycleTableStateContinues: a chain with a cycle table, its beta moved
// between the table's betas, saved mid-run and restored (with its stream)
// into a fresh chain built with the same options, which lacks the
// components the table added, and given the saver's beta (as replica
// exchange does after a restore), continues bit for bit: energies,
// spins, the state after them, the counters and the table.
func TestCycleTableStateContinues(t *testing.T) {
	for _, kc := range cycleStates {
		t.Run(kc.name, func(t *testing.T) {
			spec := glass
			if kc.name == "2:3+table-rbm" {
				spec = rbm
			}
			m := load(t, spec)
			mk := func(seed uint64) (*hybrid.Chain, *rand.PCG) {
				r := rng.Sub(seed, 0, 1)
				return newHybrid(t, m, 1.2, kc.o, r, randomSpins(rng.Sub(seed, 0, 0), m.Variables())).(*hybrid.Chain), r
			}
			a, ra := mk(9)
			if err := a.SetCycles(kc.betas, kc.cycles); err != nil {
				t.Fatal(err)
			}
			for i := range 300 {
				a.Step()
				if i%37 == 0 {
					a.SetBeta(kc.betas[i%len(kc.betas)])
				}
			}
			st := a.AppendState(nil)
			rs, _ := ra.MarshalBinary()
			at := a.Beta()
			wantE, wantS := run(a, 400)
			b, rb := mk(10)
			run(b, 7)
			if err := b.RestoreState(st); err != nil {
				t.Fatal(err)
			}
			b.SetBeta(at) // the state leaves the beta to its owner, as replica exchange does
			if err := rb.UnmarshalBinary(rs); err != nil {
				t.Fatal(err)
			}
			gotE, gotS := run(b, 400)
			if !slices.Equal(wantE, gotE) || !slices.Equal(wantS, gotS) {
				t.Fatal("restored chain diverged")
			}
			if !bytes.Equal(a.AppendState(nil), b.AppendState(nil)) {
				t.Error("states differ after the same steps")
			}
			if a.Stats() != b.Stats() {
				t.Errorf("counters differ: %+v, %+v", a.Stats(), b.Stats())
			}
			a.SetBeta(kc.betas[0])
			b.SetBeta(kc.betas[0])
			a1, m1 := a.Mix()
			a2, m2 := b.Mix()
			if a1 != a2 || m1 != m2 {
				t.Errorf("tables differ: %d:%d against %d:%d", a1, m1, a2, m2)
			}
		})
	}
}

// TestCycleTableStateVersions: a chain without a table saves the state it
// always saved (version 1), which a chain with a table and an extra
// component restores by dropping both, then continuing as the saver; a
// state with a table is refused by a chain built with another cycle, and
// truncated or trailing ones are refused, each leaving the chain as it
// was.
func TestCycleTableStateVersions(t *testing.T) {
	m := load(t, glass)
	mk := func(o any, seed uint64) (*hybrid.Chain, *rand.PCG) {
		r := rng.Sub(seed, 0, 1)
		c := newHybrid(t, m, 1, o, r, randomSpins(rng.Sub(seed, 0, 0), m.Variables())).(*hybrid.Chain)
		run(c, 40)
		return c, r
	}
	plain, rp := mk(opts(1, 0, ""), 3)
	v1 := plain.AppendState(nil)
	rs, _ := rp.MarshalBinary()
	wantE, _ := run(plain, 200)

	tabled, rt := mk(opts(1, 0, ""), 4)
	if err := tabled.SetCycles([]float64{1}, [][2]int{{1, 3}}); err != nil {
		t.Fatal(err)
	}
	run(tabled, 20)
	v2 := tabled.AppendState(nil)
	if bytes.Equal(v1[:8], v2[:8]) {
		t.Fatal("a chain with a table saved a version 1 state")
	}
	if err := tabled.RestoreState(v1); err != nil {
		t.Fatal(err)
	}
	if err := rt.UnmarshalBinary(rs); err != nil {
		t.Fatal(err)
	}
	if gotE, _ := run(tabled, 200); !slices.Equal(wantE, gotE) {
		t.Error("a version 1 state restored into a chain with a table diverged")
	}
	if tabled.Sardonics() != nil {
		t.Error("the component the state lacks was kept")
	}
	if b, _ := tabled.Cycles(); b != nil {
		t.Error("the table the state lacks was kept")
	}

	for name, bad := range map[string][]byte{
		"other built cycle": func() []byte {
			c, _ := mk(opts(2, 0, ""), 5)
			if err := c.SetCycles([]float64{1}, [][2]int{{1, 3}}); err != nil {
				t.Fatal(err)
			}
			return c.AppendState(nil)
		}(),
		"truncated": v2[:len(v2)-5],
		"trailing":  append(slices.Clone(v2), 1),
		"no table":  v2[:40],
	} {
		c, _ := mk(opts(1, 0, ""), 6)
		before := c.AppendState(nil)
		if err := c.RestoreState(bad); err == nil {
			t.Errorf("%s: state accepted", name)
			continue
		}
		if !bytes.Equal(before, c.AppendState(nil)) || c.Sardonics() != nil {
			t.Errorf("%s: refused state changed the chain", name)
		}
		d, _ := mk(opts(1, 0, ""), 6)
		e1, _ := run(c, 100)
		e2, _ := run(d, 100)
		if !slices.Equal(e1, e2) {
			t.Errorf("%s: refused state changed the chain's future", name)
		}
	}
}

// TestCycleTableSetBetaAgrees: a chain built 1:0 at beta 0.5 with a table
// whose cycle at beta 3 is 1:2, moved to beta 3 by SetBeta, samples beta
// 3 exactly (16 trials of 10000 steps, as TestSetBetaAgreesWithEnumeration).
func TestCycleTableSetBetaAgrees(t *testing.T) {
	statistical(t)
	m := load(t, glass)
	zE, zP := agreement(t, m, 16, 10000, func(_ int, r *rand.PCG, init []int8) sampler.Chain {
		c := newHybrid(t, m, 0.5, opts(1, 0, "tree"), r, init).(*hybrid.Chain)
		if err := c.SetCycles([]float64{0.5, 3}, [][2]int{{1, 0}, {1, 2}}); err != nil {
			t.Fatal(err)
		}
		c.SetBeta(beta)
		return c
	})
	check(t, "1:0 with a table, moved to 1:2 at beta 3", zE, zP)
}
