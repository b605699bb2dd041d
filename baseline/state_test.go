package baseline

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// stateModels puts every path of the package under the state tests: the
// float sweep (real couplings), the generic table sweep (an integer QUBO),
// the unrolled degree-4 and degree-6 sweeps (tori), and RBMs (dense
// single-site chains, block Gibbs, and SW's lane runs).
func stateModels(t *testing.T) []struct {
	name string
	m    *model.Model
} {
	return []struct {
		name string
		m    *model.Model
	}{
		{"frustrated12", frustrated(t, 12, 41)},
		{"qubo10", intQUBO(t, 10, 42)},
		{"ferro2d", ferro2D(t, 6)},
		{"glass3d", spinGlass3D(t, 4, 43)},
		{"rbm9x7", randomRBM(t, 9, 7, 0.7, true, 44)},
	}
}

// TestStateContinues saves every chain after a number of steps that puts
// the next refresh (every refreshEvery steps) shortly after the restore,
// restores the state into a chain built from other spins with a copy of the
// random stream, and checks both continue bit for bit.
func TestStateContinues(t *testing.T) {
	for mi, mc := range stateModels(t) {
		m := mc.m
		for si, sc := range samplers {
			if sc.rbm && m.RBM == nil {
				continue
			}
			n := m.Variables()
			r := rng.Stream(uint64(200+mi), uint64(si))
			a, err := sc.new(m, 0.8, r, randomSpins(n, 1))
			if err != nil {
				t.Fatal(err)
			}
			for range refreshEvery - 7 {
				a.Step()
			}
			st := a.(sampler.Stateful).AppendState([]byte("prefix"))
			if string(st[:6]) != "prefix" {
				t.Fatalf("%s %s: AppendState overwrote its buffer", mc.name, sc.name)
			}
			st = st[6:]
			rs, _ := r.MarshalBinary()
			r2 := rng.Stream(9, 9)
			if err := r2.UnmarshalBinary(rs); err != nil {
				t.Fatal(err)
			}
			b, err := sc.new(m, 0.8, r2, randomSpins(n, 2))
			if err != nil {
				t.Fatal(err)
			}
			if err := b.(sampler.Stateful).RestoreState(st); err != nil {
				t.Fatalf("%s %s: %v", mc.name, sc.name, err)
			}
			if a.Energy() != b.Energy() || !slices.Equal(a.Spins(), b.Spins()) || a.Stats() != b.Stats() {
				t.Fatalf("%s %s: restored chain differs before any step", mc.name, sc.name)
			}
			for i := range 30 {
				a.Step()
				b.Step()
				if a.Energy() != b.Energy() || !slices.Equal(a.Spins(), b.Spins()) {
					t.Fatalf("%s %s: step %d after restore: energy %v vs %v", mc.name, sc.name, i, b.Energy(), a.Energy())
				}
			}
			if a.Stats() != b.Stats() {
				t.Fatalf("%s %s: counters %+v vs %+v", mc.name, sc.name, b.Stats(), a.Stats())
			}
		}
	}
}

// TestStateGarbage feeds every chain truncated, extended, corrupted and
// foreign states: each is an error or a valid state, never a panic, and a
// refused state leaves the chain as it was.
func TestStateGarbage(t *testing.T) {
	p := rand.New(rng.Stream(5, 5))
	for _, mc := range stateModels(t) {
		m := mc.m
		var states [][]byte // one per sampler, to try on the others
		var chains []sampler.Chain
		for si, sc := range samplers {
			if sc.rbm && m.RBM == nil {
				continue
			}
			c, err := sc.new(m, 1, rng.Stream(3, uint64(si)), randomSpins(m.Variables(), 3))
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				c.Step()
			}
			chains = append(chains, c)
			states = append(states, c.(sampler.Stateful).AppendState(nil))
		}
		for ci, c := range chains {
			name := mc.name + " " + samplers[ci].name
			sf := c.(sampler.Stateful)
			e0, s0, k0 := c.Energy(), slices.Clone(c.Spins()), c.Stats()
			unchanged := func(what string) {
				if c.Energy() != e0 || !slices.Equal(c.Spins(), s0) || c.Stats() != k0 {
					t.Fatalf("%s: a refused %s changed the chain", name, what)
				}
			}
			st := states[ci]
			for l := range len(st) {
				if err := sf.RestoreState(st[:l]); err == nil {
					t.Fatalf("%s: state truncated to %d of %d bytes accepted", name, l, len(st))
				}
				unchanged("truncated state")
			}
			if err := sf.RestoreState(append(slices.Clone(st), 0)); err == nil {
				t.Fatalf("%s: state with a trailing byte accepted", name)
			}
			unchanged("extended state")
			for oi, o := range states {
				if oi != ci {
					if err := sf.RestoreState(o); err == nil {
						t.Fatalf("%s: state of %s accepted", name, samplers[oi].name)
					}
					unchanged("foreign state")
				}
			}
			for range 300 {
				g := slices.Clone(st)
				for range 1 + p.IntN(3) {
					g[p.IntN(len(g))] ^= byte(1 + p.IntN(255))
				}
				if err := sf.RestoreState(g); err != nil {
					unchanged("corrupted state")
					continue
				}
				// Accepted (a flipped energy or counter bit, say): the
				// chain must still step and hold valid spins.
				for _, v := range c.Spins() {
					if v != 1 && v != -1 {
						t.Fatalf("%s: corrupted state accepted with spin %d", name, v)
					}
				}
				c.Step()
				if err := sf.RestoreState(st); err != nil {
					t.Fatal(err)
				}
				e0, s0, k0 = c.Energy(), slices.Clone(c.Spins()), c.Stats()
			}
		}
	}
}

// TestReset checks that Reset allocates nothing, keeps the counters and
// puts the chain exactly where a chain built at those spins starts.
func TestReset(t *testing.T) {
	for _, mc := range stateModels(t) {
		m := mc.m
		for si, sc := range samplers {
			if sc.rbm && m.RBM == nil {
				continue
			}
			name := mc.name + " " + sc.name
			n := m.Variables()
			c, err := sc.new(m, 1, rng.Stream(6, uint64(si)), randomSpins(n, 6))
			if err != nil {
				t.Fatal(err)
			}
			for range 20 {
				c.Step()
			}
			k := c.Stats()
			target := randomSpins(n, 7)
			rs := c.(sampler.Resetter)
			if a := testing.AllocsPerRun(10, func() { rs.Reset(target) }); a != 0 {
				t.Errorf("%s: Reset allocates %v times", name, a)
			}
			fresh, err := sc.new(m, 1, rng.Stream(6, uint64(si)), target)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Spins(), target) || c.Energy() != fresh.Energy() {
				t.Errorf("%s: after Reset energy %v, spins %v; a fresh chain has %v", name, c.Energy(), c.Spins(), fresh.Energy())
			}
			if c.Stats() != k {
				t.Errorf("%s: Reset changed the counters %+v to %+v", name, k, c.Stats())
			}
			target[0] = -target[0] // Reset copied, not kept, its argument
			if c.Spins()[0] == target[0] {
				t.Errorf("%s: Reset kept a reference to its argument", name)
			}
		}
	}
}
