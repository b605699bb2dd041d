package saw

import "math/rand/v2"

// Weight selects the positive weight w(dE) of a walk's pick. Any positive
// function of dE gives an exact sampler, as long as forward and reverse
// walks use the same one.
type Weight int

const (
	// Logistic is w = 1/(1+exp(gamma dE)) (the authors' implementation).
	Logistic Weight = iota
	// Exp is w = exp(-gamma dE) (the paper's formula).
	Exp
)

// Engine holds a chain state and runs energy-biased self-avoiding walks on
// it. It knows two biases, index 0 (gamma_L) and 1 (gamma_H), and reports
// every walk's log-probability at both, so the move can apply either
// acceptance rule. Engines are called once per walk, never once per flip.
type Engine interface {
	// N is the number of bits M.
	N() int
	// SetBiases sets gamma_L, gamma_H (absolute values, already multiplied
	// by beta) and the weight function.
	SetBiases(gammaL, gammaH float64, w Weight)
	// Walk draws a SAW of length k (k <= N) at bias index b from the
	// current state with all bits available, flips its bits, appends them
	// to path and returns path, log f of the walk at both biases, and the
	// energy change.
	Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64)
	// Replay flips the bits of path in order (in reverse order if
	// backwards) as one SAW from the current state with all bits available,
	// and returns its log-probability at both biases and the energy change.
	Replay(path []int32, backwards bool) ([2]float64, float64)
	// Flip flips the bits of path with no probability bookkeeping.
	Flip(path []int32)
	// Energy is the current energy in the model's own convention.
	Energy() float64
	// Spins is the current state (read only).
	Spins() []int8
	// SetSpins replaces the state.
	SetSpins(s []int8)
}
