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

// FastReverser is an optional extension of Engine: it scores the reverse
// path of a move without replaying it, from data its Walk recorded, so that
// a rejected move only has to be undone and an accepted one costs nothing
// more. Scoring in place costs more than the normalizers a replay computes
// and undoing costs about what replaying does, so it pays only from some
// acceptance rate on. The move uses it when the engine implements it and
// the chain's recent acceptance rate reaches FastAcceptance, and replays
// otherwise (or when ReverseLogProbs returns false). Both paths give the
// same acceptance probabilities, so the choice does not change the chain's
// kernel.
type FastReverser interface {
	// ReverseLogProbs is called right after the move's walks, with the
	// engine at their end state: path holds the bits of the consecutive
	// Walk calls that started with an empty path, walk w being
	// path[bounds[w]:bounds[w+1]] (or of one forward Replay: one walk). It sets rev[j] to the log-probability
	// at both biases of reverse walk j, i.e. forward walk len(bounds)-2-j
	// replayed backwards from the state after it, equal to what Replay
	// would give, and leaves the state unchanged. It returns false (rev is
	// then unspecified, the state still unchanged) when it has no record of
	// exactly these walks or cannot score them accurately; the move then
	// replays them.
	ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool
	// Undo flips the bits of path in reverse order, returning the state
	// (and the energy, exactly) to where it was before path.
	Undo(path []int32)
	// FastAcceptance is the acceptance rate from which the fast path pays
	// (0: always).
	FastAcceptance() float64
}

// StateEngine is an Engine whose whole state can be saved and restored
// (see sampler.Stateful): what the chain needs to continue bit for bit,
// which is more than the spins wherever a quantity depends on the order
// of past flips (member lists, floating-point sums, journals).
type StateEngine interface {
	Engine
	// AppendState appends the state to b.
	AppendState(b []byte) []byte
	// RestoreState replaces the state by one AppendState wrote on an
	// engine built for the same model.
	RestoreState(b []byte) error
}
