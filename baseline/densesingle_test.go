package baseline

import (
	"math"
	"slices"
	"testing"

	"sardonics/exact"
	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// denseModels are dense models on the dense single-site path: real and
// integer couplings (fields, no offset), an integer QUBO (offset) and a
// generated SK glass.
func denseModels(t *testing.T) []struct {
	name string
	m    *model.Model
} {
	q := intQUBO(t, 24, 9) // quarter-integer couplings, an offset
	sk, err := model.Load("sk:N=70,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name string
		m    *model.Model
	}{
		{"real20", rbmtest.RandomDense(t, 20, 0.12, false, 1)},
		{"int20", rbmtest.RandomDense(t, 20, 0.1, true, 2)},
		{"qubo24", q},
		{"sk70", sk},
	}
}

// TestDensePathChosen: dense models run on the dense chain, sparse ones do
// not.
func TestDensePathChosen(t *testing.T) {
	for _, mc := range denseModels(t) {
		if !mc.m.UseDense() {
			t.Fatalf("%s is not dense", mc.name)
		}
		for _, f := range []newFunc{NewGibbs, NewMetropolis} {
			c, err := f(mc.m, 1, rng.Stream(1, 1), randomSpins(mc.m.Variables(), 1))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := c.(*denseSingle); !ok {
				t.Errorf("%s: chain %T (expected the dense chain)", mc.name, c)
			}
		}
	}
	c, err := NewMetropolis(spinGlass3D(t, 4, 1), 1, rng.Stream(1, 1), randomSpins(64, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*denseSingle); ok {
		t.Error("a 3D spin glass runs on the dense chain")
	}
}

// TestDenseExact: Gibbs and Metropolis on the dense chain sample the exact
// distribution of dense models of 7 spins (chi-square on all states; built
// directly, below the automatic threshold) and the exact means of the
// energy, s_0 and s_0 s_1 on dense models of 20 spins, real and integer.
func TestDenseExact(t *testing.T) {
	for _, integer := range []bool{false, true} {
		small := rbmtest.RandomDense(t, 7, 0.3, integer, 5)
		probs, err := exact.Probs(small.Sparse(), 0.9)
		if err != nil {
			t.Fatal(err)
		}
		for _, metro := range []bool{false, true} {
			c := newDenseSingle(small.Dense, 0.9, rng.Stream(6, 6), randomSpins(7, 6), metro)
			rbmtest.CheckExact(t, c, probs, 60000, 3, 3)
		}
	}
	if testing.Short() {
		return
	}
	for _, mc := range denseModels(t)[:2] {
		probs, err := exact.Probs(mc.m.Sparse(), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []newFunc{NewGibbs, NewMetropolis} {
			c, err := f(mc.m, 1, rng.Stream(7, 7), randomSpins(20, 7))
			if err != nil {
				t.Fatal(err)
			}
			rbmtest.CheckMeans(t, mc.name, c, probs, mc.m.Dense.Energy, 40000)
		}
	}
}

// TestDenseChains: the tracked energy equals the model's past refreshes,
// the fields equal recomputed ones, a saved state continues bit for bit
// in a chain built from other spins, Reset recomputes, huge and zero beta
// stay finite, and a step allocates nothing.
func TestDenseChains(t *testing.T) {
	for mi, mc := range denseModels(t) {
		m := mc.m
		n := m.Variables()
		for si, f := range []newFunc{NewGibbs, NewMetropolis} {
			r := rng.Stream(uint64(300+mi), uint64(si))
			a, err := f(m, 0.8, r, randomSpins(n, 1))
			if err != nil {
				t.Fatal(err)
			}
			for k := range refreshEvery + 250 {
				a.Step()
				if k%300 == 299 {
					if got, want := a.Energy(), m.Sparse().Energy(a.Spins()); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
						t.Fatalf("%s: step %d: tracked energy %v, recomputed %v", mc.name, k, got, want)
					}
				}
			}
			d := a.(*denseSingle)
			for i, x := range d.f {
				if want := m.Sparse().Field(d.s, i); math.Abs(x-want) > 1e-9 {
					t.Fatalf("%s: field %d is %v (recomputed %v)", mc.name, i, x, want)
				}
			}
			st := a.(sampler.Stateful).AppendState(nil)
			rs, _ := r.MarshalBinary()
			r2 := rng.Stream(9, 9)
			if err := r2.UnmarshalBinary(rs); err != nil {
				t.Fatal(err)
			}
			b, err := f(m, 0.8, r2, randomSpins(n, 2))
			if err != nil {
				t.Fatal(err)
			}
			if err := b.(sampler.Stateful).RestoreState(st); err != nil {
				t.Fatal(err)
			}
			for i := range 30 {
				a.Step()
				b.Step()
				if a.Energy() != b.Energy() || !slices.Equal(a.Spins(), b.Spins()) || a.Stats() != b.Stats() {
					t.Fatalf("%s: step %d after restore differs", mc.name, i)
				}
			}
			for _, bad := range [][]byte{nil, st[:len(st)-1], append(slices.Clone(st), 0)} {
				if err := b.(sampler.Stateful).RestoreState(bad); err == nil {
					t.Fatalf("%s: bad state accepted", mc.name)
				}
			}
			s := randomSpins(n, 3)
			b.(sampler.Resetter).Reset(s)
			if got, want := b.Energy(), m.Sparse().Energy(s); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("%s: energy after Reset %v (expected %v)", mc.name, got, want)
			}
			if al := testing.AllocsPerRun(1100, b.Step); al != 0 {
				t.Errorf("%s: %v allocations per step (expected 0)", mc.name, al)
			}
			for _, beta := range []float64{0, 1.7e308} {
				b.(sampler.Tempered).SetBeta(beta)
				for range 20 {
					b.Step()
				}
				if e := b.Energy(); math.IsNaN(e) || math.IsInf(e, 0) {
					t.Fatalf("%s: beta %g: energy %v", mc.name, beta, e)
				}
			}
		}
	}
}
