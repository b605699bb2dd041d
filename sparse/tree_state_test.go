package sparse

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/internal/state"
	"sardonics/saw"
)

// TestTreeStateContinues saves a tree engine's state mid-run and restores
// it into an engine built from other spins, in table and direct mode: the
// two continue with the same walks, energies and log-probabilities bit for
// bit (the energy is a floating-point sum of the flips' dE, so it must be
// saved, not recomputed).
func TestTreeStateContinues(t *testing.T) {
	for _, f := range factories[:2] {
		m := randomGraph(t, 40, 4, false, 1, 3)
		r := rand.New(rand.NewPCG(4, 4))
		a := f.make(t, m, randomSpins(r, m.N)).(*Tree)
		th := []saw.Theta{{KL: 1, KU: 8, GL: 0.8, GH: 1.2, PLL: 0.4, PHL: 0.3, PLH: 0.3, N: 1}}
		ca, err := saw.NewChain(a, 1, th, saw.Options{}, rand.NewPCG(1, 1))
		if err != nil {
			t.Fatal(err)
		}
		for range 500 {
			ca.Step()
		}
		st := a.AppendState(nil)
		b := f.make(t, m, randomSpins(r, m.N)).(*Tree)
		if err := b.RestoreState(st); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if b.Energy() != a.Energy() || !slices.Equal(a.Spins(), b.Spins()) {
			t.Fatalf("%s: restored engine differs", f.name)
		}
		pa, pb := rand.NewPCG(2, 2), rand.NewPCG(2, 2)
		for _, e := range []*Tree{a, b} {
			e.SetBiases(0.8, 1.2, saw.Logistic)
		}
		var wa, wb []int32
		for i := range 300 {
			var la, lb [2]float64
			var da, db float64
			wa, la, da = a.Walk(pa, 1+i%7, i%2, wa[:0])
			wb, lb, db = b.Walk(pb, 1+i%7, i%2, wb[:0])
			if !slices.Equal(wa, wb) || la != lb || da != db || a.Energy() != b.Energy() {
				t.Fatalf("%s: walk %d differs after restore", f.name, i)
			}
			if i%3 == 0 {
				a.Undo(wa)
				b.Undo(wb)
			}
		}
	}
}

// TestTreeStateRejects: states of the wrong size, with invalid spins or
// with an energy that is not their spins' are refused with an error, and
// leave the engine usable.
func TestTreeStateRejects(t *testing.T) {
	m := randomGraph(t, 20, 4, false, 1, 5)
	e := NewTree(m, nil)
	good := e.AppendState(nil)
	bad := map[string][]byte{"truncated": good[:len(good)-1], "empty": nil, "extra": append(slices.Clone(good), 0)}
	s := slices.Clone(e.Spins())
	s[3] = 0
	w := state.Writer{}
	w.Int8s(s)
	w.Float64(e.Energy())
	bad["spin 0"] = w.B
	s[3] = -1
	w = state.Writer{}
	w.Int8s(s)
	w.Float64(e.Energy()) // the energy of the all-up state
	bad["energy"] = w.B
	w = state.Writer{}
	w.Int8s(make([]int8, 7))
	w.Float64(0)
	bad["size"] = w.B
	for name, b := range bad {
		if err := e.RestoreState(b); err == nil {
			t.Errorf("%s: state accepted", name)
		}
	}
	if err := e.RestoreState(good); err != nil {
		t.Fatal(err)
	}
	if e.Energy() != m.Energy(e.Spins()) {
		t.Fatal("energy after restore")
	}
}
