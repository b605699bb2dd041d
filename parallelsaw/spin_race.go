//go:build race

package parallelsaw

// Under the race detector every atomic load is expensive: spin briefly.
const (
	spinsBeforeYield = 1 << 4
	yieldsBeforePark = 1 << 4
)
