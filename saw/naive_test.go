package saw

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/internal/stattest"
)

// TestNaiveWalkDistribution draws many independent walks of length 2 from
// one state and compares the path frequencies with the probabilities
// Replay computes (chi-square, i.i.d. draws), at both biases and weights.
func TestNaiveWalkDistribution(t *testing.T) {
	const M, draws = 5, 40000
	m := randomIsing(t, M, 1, 4)
	init := []int8{1, -1, 1, 1, -1}
	r := rand.NewPCG(4, 4)
	for _, w := range []Weight{Logistic, Exp} {
		for b := range 2 {
			e := NewNaive(m, init)
			e.SetBiases(0.5, 1.5, w)
			counts := make([]float64, M*M)
			var path []int32
			for range draws {
				var lf [2]float64
				path, lf, _ = e.Walk(r, 2, b, path[:0])
				counts[int(path[0])*M+int(path[1])]++
				back, _ := e.Replay(path, true)
				if got, _ := e.Replay(path, false); got != lf {
					t.Fatalf("Replay gives %v for the walk Walk scored %v", got, lf)
				}
				e.Flip(path) // back to init
				_ = back
			}
			probs := make([]float64, M*M)
			sum := 0.0
			for i := range M {
				for j := range M {
					if i != j {
						lf, _ := e.Replay([]int32{int32(i), int32(j)}, false)
						e.Flip([]int32{int32(i), int32(j)})
						probs[i*M+j] = math.Exp(lf[b])
						sum += probs[i*M+j]
					}
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("%v bias %d: walk probabilities sum to %v (expected 1)", w, b, sum)
			}
			stat, df, p := stattest.ChiSquare(counts, probs)
			if !(p > 1e-4) {
				t.Errorf("%v bias %d: chi-square %.1f on %d df, p=%.3g (expected p > 1e-4)", w, b, stat, df, p)
			}
		}
	}
}

// TestNaiveReplayRestores: a walk replayed backwards returns the state and
// the energy, and its dE is minus the forward one.
func TestNaiveReplayRestores(t *testing.T) {
	m := randomIsing(t, 6, 1, 2)
	init := []int8{1, 1, -1, 1, -1, -1}
	e := NewNaive(m, init)
	e.SetBiases(0.8, 1.2, Logistic)
	e0 := e.Energy()
	path, _, dE := e.Walk(rand.NewPCG(1, 2), 4, 1, nil)
	if got := e.Energy() - e0; math.Abs(got-dE) > 1e-12 {
		t.Errorf("walk dE %v, energy changed by %v", dE, got)
	}
	_, back := e.Replay(path, true)
	if math.Abs(back+dE) > 1e-12 || e.Energy() != e0 {
		t.Errorf("reverse dE %v for forward %v; energy %v (expected %v)", back, dE, e.Energy(), e0)
	}
	for i, s := range e.Spins() {
		if s != init[i] {
			t.Fatalf("state %v after walk and reverse (expected %v)", e.Spins(), init)
		}
	}
}
