//go:build race

package parallelsaw

import "time"

// Under the race detector every atomic load is expensive: spin briefly.
const (
	spinFor    = 2 * time.Microsecond
	graceSpins = 64
)
