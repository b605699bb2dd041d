package sampler

// Stateful is a chain whose whole state (spins, everything derived from
// them and from its history, counters; not its random stream, which the
// runner saves itself) can be saved and restored, so that a chain built
// once continues bit for bit after a checkpoint and is never rebuilt.
type Stateful interface {
	Chain
	// AppendState appends the state to b.
	AppendState(b []byte) []byte
	// RestoreState replaces the state by one AppendState wrote on a chain
	// built for the same model and settings.
	RestoreState(b []byte) error
}

// Resetter is a chain that can be put at given spins in O(N) with no
// allocation, its counters kept (replica exchange and restarts use it).
type Resetter interface {
	Reset(spins []int8)
}

// Flipper is a chain whose spins can be flipped in place at given sites,
// everything it derives from them (energy, local fields, weights, a
// tracked magnetization) kept right, at the cost of the sites' degrees
// rather than Reset's O(N + edges); its counters and stream are left
// alone. idx lists distinct sites. Replica exchange's cluster move between two replicas
// uses it, and falls back to Reset for chains without it.
type Flipper interface {
	FlipSites(idx []int32)
}

// PairFlipper flips the same sites in itself and in another chain of its
// kind at once, where idx is a union of whole connected components (over
// the model's coupling graph) of the sites at which the two chains' spins
// differ, as a Houdayer cluster is: every coupling that leaves the sites
// then joins a site where the two agree, so the other's energy changes by
// minus this one's (E_a + E_b is kept, fields included) and its spins need
// only be negated. FlipPair reports false, flipping nothing, when other is
// not of its kind (the caller then flips each with FlipSites).
type PairFlipper interface {
	FlipPair(other Chain, idx []int32) bool
}

// Tempered is a chain whose inverse temperature can be changed in place,
// in O(1) or the cost of a small table: replica exchange swaps the
// temperatures of two chains rather than their states, which would cost a
// rebuild of every derived quantity.
type Tempered interface {
	Chain
	SetBeta(beta float64)
}
