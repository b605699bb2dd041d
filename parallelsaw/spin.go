//go:build !race

package parallelsaw

import "time"

// A waiter spins on an atomic for spinFor before it parks: long enough to
// bridge the gaps between the commands of a chain step (a flip costs about
// a microsecond, the chain's work between walks a few), as a parked worker
// takes tens of microseconds to wake; short enough that a waiter whose
// partner has lost its CPU gives its own back soon. A worker that has not
// claimed its command after graceSpins polls of the coordinator (a couple
// of microseconds; a running worker claims in a fraction of one) is taken
// to have no CPU, and the coordinator runs its section.
const (
	spinFor    = 50 * time.Microsecond
	graceSpins = 1024
)
