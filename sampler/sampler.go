package sampler

// Chain is one Markov chain targeting exp(-beta E) of a model.
type Chain interface {
	// Step advances the chain by one step (SPEC section 1 defines a step
	// for each sampler).
	Step()
	// Energy is the current energy in the model's own convention.
	Energy() float64
	// Spins is the current state in Ising form (read only; valid until the
	// next Step).
	Spins() []int8
	// Stats returns the counters accumulated since the chain was made.
	Stats() Stats
}

// Stats are a chain's counters. Flips is -1 where it does not apply (sw,
// blockgibbs); Proposed is 0 where acceptance does not apply.
type Stats struct {
	Flips    int64 // proposed single-bit changes (SPEC section 5)
	Proposed int64 // Metropolis-Hastings moves proposed
	Accepted int64 // ... and accepted
}

// AcceptanceRate is Accepted/Proposed, or NaN-free false when not applicable.
func (s Stats) AcceptanceRate() (float64, bool) {
	if s.Proposed == 0 {
		return 0, false
	}
	return float64(s.Accepted) / float64(s.Proposed), true
}
