// Package enginetest is the conformance suite every SARDONICS engine
// (saw.Engine) passes, whatever its data structures: one set of checks
// that each engine package runs on its engines (TestConformance) and
// fuzzes (FuzzConformance), instead of copies of them per package.
//
// What an engine must do, on a model put on its grid (model.OnGrid), so
// that energies are exact:
//
//   - a walk of length k flips k distinct bits, and the reported energy
//     change is the energy of the new state minus the old one's, both
//     equal to the model's E(state) bit for bit;
//   - replaying the walks forward from their start gives the walks'
//     log-probabilities at both biases (the move's forward scores) and
//     their energy changes; replaying them backwards from their end, last
//     walk first, returns the start state and its energy exactly;
//   - a FastReverser's reverse scores equal those backward replays', and
//     its Undo returns the start exactly;
//   - a StateEngine saved and restored into an engine built on other spins
//     continues walk for walk, bit for bit.
//
// The walks' log-probabilities are each engine's own (the dense engines'
// weights come from tables): the naive engine is the reference of exact
// weights, in the engines' own tests.
package enginetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// Factory builds the engine under test on m at spins s (+-1). An engine
// with a Close method is closed when Verify is done with it.
type Factory func(m *model.Model, s []int8) (saw.Engine, error)

// logTol is how far a score may differ between two computations of it
// (a replay's sums in another order); energies must agree exactly.
const logTol = 1e-9

// Check is Verify, its error a test failure.
func Check(tb testing.TB, f Factory, m *model.Model, seed uint64, iterations int) {
	tb.Helper()
	if err := Verify(f, m, seed, iterations); err != nil {
		tb.Fatal(err)
	}
}

// closer is an engine with threads to stop.
type closer interface{ Close() }

func closeEngine(e saw.Engine) {
	if c, ok := e.(closer); ok {
		c.Close()
	}
}

// Verify runs iterations rounds of the suite on engine f over m, drawing
// everything from seed: each round sets random biases and weight, runs one
// to three walks of random lengths, checks them as the package comment
// says, and accepts (keeps the end state) or rejects (undoes) the move; a
// StateEngine is saved and restored into a fresh engine every fourth
// round. m must be on its grid. It returns the first failure.
func Verify(f Factory, m *model.Model, seed uint64, iterations int) (err error) {
	r := rand.New(rand.NewPCG(seed, 41))
	pcg := rand.NewPCG(seed, 42)
	n := m.Variables()
	is := m.Sparse()
	s0 := make([]int8, n)
	for i := range s0 {
		s0[i] = int8(1 - 2*r.IntN(2))
	}
	eng, err := f(m, slices.Clone(s0))
	if err != nil {
		return err
	}
	defer func() { closeEngine(eng) }()
	exact := func(what string) error {
		if e, want := eng.Energy(), is.Energy(eng.Spins()); e != want {
			return fmt.Errorf("%s: energy %.17g, E(state) %.17g", what, e, want)
		}
		return nil
	}
	if err := exact("start"); err != nil {
		return err
	}
	var path []int32
	for it := range iterations {
		gl := 0.3 + r.Float64()
		gh := gl * (1 + r.Float64())
		w := saw.Weight(r.IntN(2))
		eng.SetBiases(gl, gh, w)
		e0, start := eng.Energy(), slices.Clone(eng.Spins())
		path = path[:0]
		bounds := []int{0}
		var lfs [][2]float64
		var dEs []float64
		for range 1 + r.IntN(3) {
			before := slices.Clone(eng.Spins())
			eb := eng.Energy()
			k := 1 + r.IntN(min(n, 12))
			var lf [2]float64
			var dE float64
			path, lf, dE = eng.Walk(pcg, k, r.IntN(2), path)
			seg := path[bounds[len(bounds)-1]:]
			bounds = append(bounds, len(path))
			lfs, dEs = append(lfs, lf), append(dEs, dE)
			if len(seg) != k || len(slices.Compact(slices.Sorted(slices.Values(seg)))) != k {
				return fmt.Errorf("round %d: a walk of %d flipped %v", it, k, seg)
			}
			for _, i := range seg {
				before[i] = -before[i]
			}
			if !slices.Equal(before, eng.Spins()) {
				return fmt.Errorf("round %d: the state after a walk is not the walk's bits flipped", it)
			}
			if err := exact("after a walk"); err != nil {
				return err
			}
			if got := eng.Energy() - eb; got != dE {
				return fmt.Errorf("round %d: walk dE %.17g, the energies differ by %.17g", it, dE, got)
			}
			if !finite(lf) {
				return fmt.Errorf("round %d: walk log f %v", it, lf)
			}
		}
		end, eEnd := slices.Clone(eng.Spins()), eng.Energy()
		walks := len(bounds) - 1
		// The fast reverse scores, where the engine has them.
		var fast [][2]float64
		fr, isFast := eng.(saw.FastReverser)
		if isFast {
			fast = make([][2]float64, walks)
			if !fr.ReverseLogProbs(path, bounds, fast) {
				fast = nil
			}
			if !slices.Equal(eng.Spins(), end) || eng.Energy() != eEnd {
				return fmt.Errorf("round %d: ReverseLogProbs changed the state", it)
			}
		}
		// Backward replays, last walk first, reach the start exactly.
		for j := range walks {
			wi := walks - 1 - j
			lf, _ := eng.Replay(path[bounds[wi]:bounds[wi+1]], true)
			if fast != nil && !close2(lf, fast[j]) {
				return fmt.Errorf("round %d: fast reverse score %v, backward replay %v", it, fast[j], lf)
			}
		}
		if !slices.Equal(eng.Spins(), start) || eng.Energy() != e0 {
			return fmt.Errorf("round %d: backward replays end at energy %.17g, the start's %.17g", it, eng.Energy(), e0)
		}
		if err := exact("after the backward replays"); err != nil {
			return err
		}
		// Forward replays give the walks' scores and energy changes.
		for wi := range walks {
			lf, dE := eng.Replay(path[bounds[wi]:bounds[wi+1]], false)
			if !close2(lf, lfs[wi]) || dE != dEs[wi] {
				return fmt.Errorf("round %d: forward replay %v %.17g, the walk %v %.17g", it, lf, dE, lfs[wi], dEs[wi])
			}
		}
		if !slices.Equal(eng.Spins(), end) || eng.Energy() != eEnd {
			return fmt.Errorf("round %d: forward replays end elsewhere than the walks", it)
		}
		if r.IntN(2) == 0 { // reject: undo the move
			if isFast {
				fr.Undo(path)
			} else {
				eng.Flip(path)
			}
			if !slices.Equal(eng.Spins(), start) || eng.Energy() != e0 {
				return fmt.Errorf("round %d: undo ends at energy %.17g, the start's %.17g", it, eng.Energy(), e0)
			}
		}
		if err := exact("after the move"); err != nil {
			return err
		}
		if se, ok := eng.(saw.StateEngine); ok && it%4 == 3 {
			fresh, err := restored(f, m, se, r, pcg)
			if err != nil {
				return err
			}
			closeEngine(eng)
			eng = fresh
		}
	}
	return nil
}

// restored saves se, restores it into an engine built on random spins,
// checks that both then make the same walk from the same stream, and
// returns the restored one.
func restored(f Factory, m *model.Model, se saw.StateEngine, r *rand.Rand, pcg *rand.PCG) (saw.Engine, error) {
	b := se.AppendState(nil)
	other := make([]int8, m.Variables())
	for i := range other {
		other[i] = int8(1 - 2*r.IntN(2))
	}
	fresh, err := f(m, other)
	if err != nil {
		return nil, err
	}
	fs, ok := fresh.(saw.StateEngine)
	if !ok {
		closeEngine(fresh)
		return nil, fmt.Errorf("a fresh engine of the kind is not a StateEngine")
	}
	if err := fs.RestoreState(b); err != nil {
		closeEngine(fresh)
		return nil, fmt.Errorf("RestoreState: %v", err)
	}
	st, _ := pcg.MarshalBinary()
	twin := &rand.PCG{}
	if err := twin.UnmarshalBinary(st); err != nil {
		closeEngine(fresh)
		return nil, err
	}
	gl, gh := 0.7, 1.1
	se.SetBiases(gl, gh, saw.Logistic)
	fs.SetBiases(gl, gh, saw.Logistic)
	k := 1 + r.IntN(min(m.Variables(), 8))
	p1, lf1, dE1 := se.Walk(pcg, k, 0, nil)
	p2, lf2, dE2 := fs.Walk(twin, k, 0, nil)
	if !slices.Equal(p1, p2) || lf1 != lf2 || dE1 != dE2 || !slices.Equal(se.Spins(), fs.Spins()) || se.Energy() != fs.Energy() {
		closeEngine(fresh)
		return nil, fmt.Errorf("the restored engine walks %v %v %v, the saved one %v %v %v", p2, lf2, dE2, p1, lf1, dE1)
	}
	return fresh, nil
}

func finite(x [2]float64) bool {
	return !math.IsNaN(x[0]) && !math.IsInf(x[0], 0) && !math.IsNaN(x[1]) && !math.IsInf(x[1], 0)
}

func close2(a, b [2]float64) bool {
	for i := range 2 {
		if !(math.Abs(a[i]-b[i]) <= logTol*max(1, math.Abs(b[i]))) {
			return false
		}
	}
	return true
}
