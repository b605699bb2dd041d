//go:build !race

package parallelsaw

// Waiting spins this many times on an atomic, then yields this many times,
// then parks on a channel until woken.
const (
	spinsBeforeYield = 1 << 12
	yieldsBeforePark = 1 << 6
)
