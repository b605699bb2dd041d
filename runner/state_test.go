package runner

import (
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
)

// TestChainStateContinues checks every chain that can save its state: a
// chain saved after some steps and restored into a freshly built chain
// continues with exactly the energies, spins and counters of the original,
// which keeps running (the random stream is restored by the runner, here
// by copying it). Every sampler and engine must be able to: the runner
// never rebuilds a chain.
func TestChainStateContinues(t *testing.T) {
	cases := []struct {
		spec, sampler, engine string
		threads               int
	}{
		{"frustrated2d:L=12,seed=1", "sardonics", "bucket", 0},
		{"frustrated2d:L=12,seed=1", "sardonics", "tree", 0},
		{"chimera:M=2,N=2,T=4,seed=1", "sardonics", "tree", 0},
		{"rbm-random:V=20,H=12,seed=1,scale=0.3", "sardonics", "dense", 0},
		{"rbm-random:V=20,H=12,seed=1,scale=0.3", "sardonics", "parallel", 2},
		{"sk:N=40,seed=1", "sardonics", "dense", 0},
		{"sk:N=40,seed=1", "sardonics", "parallel", 2},
		{"frustrated2d:L=12,seed=1", "gibbs", "", 0},
		{"frustrated2d:L=12,seed=1", "metropolis", "", 0},
		{"chimera:M=2,N=2,T=4,seed=1", "metropolis", "", 0},
		{"frustrated2d:L=12,seed=1", "sw", "", 0},
		{"rbm-random:V=20,H=12,seed=1,scale=0.3", "gibbs", "", 0},
		{"rbm-random:V=20,H=12,seed=1,scale=0.3", "blockgibbs", "", 0},
	}
	for _, c := range cases {
		m, err := model.Load(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		sc := sawsampler.Config{Thetas: []saw.Theta{{KL: 1, KU: 6, GL: 0.9, GH: 1.1, PLL: 0.4, PHL: 0.3, PLH: 0.3, N: 1}},
			Engine: c.engine, EngineThreads: c.threads}
		name := c.spec + " " + c.sampler + " " + c.engine
		r := StreamFor(1, 0, c.sampler)
		a, done, err := NewChain(c.sampler, m, 1, sc, r, InitialState(1, 0, m.Variables()))
		if err != nil {
			t.Fatal(name, err)
		}
		defer done()
		if sc, ok := a.(*saw.Chain); ok && !sc.CanSave() {
			t.Fatalf("%s: the engine cannot save its state", name)
		}
		sa, ok := a.(sampler.Stateful)
		if !ok {
			t.Fatalf("%s: the chain cannot save its state", name)
		}
		if mc, ok := a.(sampler.Magnetized); ok {
			mc.TrackMagnetization()
		}
		for range 300 {
			a.Step()
		}
		st := sa.AppendState(nil)
		rs, _ := r.MarshalBinary()
		r2 := StreamFor(99, 9, c.sampler) // a different stream, replaced below
		if err := r2.UnmarshalBinary(rs); err != nil {
			t.Fatal(err)
		}
		b, done2, err := NewChain(c.sampler, m, 1, sc, r2, InitialState(7, 3, m.Variables()))
		if err != nil {
			t.Fatal(name, err)
		}
		defer done2()
		if mc, ok := b.(sampler.Magnetized); ok {
			mc.TrackMagnetization() // before the restore, which must set it
		}
		if err := b.(sampler.Stateful).RestoreState(st); err != nil {
			t.Fatal(name, err)
		}
		if b.Energy() != a.Energy() || !slices.Equal(a.Spins(), b.Spins()) || a.Stats() != b.Stats() {
			t.Fatalf("%s: restored chain differs before any step", name)
		}
		for i := range 500 {
			a.Step()
			b.Step()
			if a.Energy() != b.Energy() || !slices.Equal(a.Spins(), b.Spins()) {
				t.Fatalf("%s: step %d after restore: energy %v vs %v", name, i, b.Energy(), a.Energy())
			}
			// The sum of spins a chain keeps (sardonics, with every
			// engine) is that of its spins, restored or not.
			if ma, mb, want := sampler.Magnetization(a), sampler.Magnetization(b), sampler.SpinSum(a.Spins()); ma != want || mb != want {
				t.Fatalf("%s: step %d: magnetization %d (original), %d (restored), sum of spins %d", name, i, ma, mb, want)
			}
		}
		if a.Stats() != b.Stats() {
			t.Fatalf("%s: counters %+v vs %+v", name, b.Stats(), a.Stats())
		}
		// A state of another model size is refused.
		if err := b.(sampler.Stateful).RestoreState(st[:len(st)-1]); err == nil {
			t.Fatalf("%s: truncated state accepted", name)
		}
	}
}

// TestChainStateBrokenRestoreCaught proves the check above can fail: a
// bucket engine restored from its spins alone (class lists in canonical
// order rather than the saved order) diverges from the original.
func TestChainStateBrokenRestoreCaught(t *testing.T) {
	m, err := model.Load("frustrated2d:L=12,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	sc := sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: "bucket"}
	r := StreamFor(1, 0, "sardonics")
	a, _, _ := NewChain("sardonics", m, 1, sc, r, InitialState(1, 0, m.Variables()))
	for range 300 {
		a.Step()
	}
	rs, _ := r.MarshalBinary()
	r2 := StreamFor(1, 0, "sardonics")
	_ = r2.UnmarshalBinary(rs)
	b, _, _ := NewChain("sardonics", m, 1, sc, r2, slices.Clone(a.Spins()))
	for i := range 500 {
		a.Step()
		b.Step()
		if a.Energy() != b.Energy() {
			return // diverged, as it must
		}
		_ = i
	}
	t.Fatal("a chain rebuilt from spins alone continued identically; the state test cannot tell")
}
