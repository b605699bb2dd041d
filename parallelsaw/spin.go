//go:build !race

package parallelsaw

import "time"

// A waiter spins on an atomic for spinFor (a flip costs microseconds, and a
// parked thread takes tens of microseconds to wake, so parking early makes
// every flip pay a wake-up), then yields for yieldFor, then parks on a
// channel until woken.
const (
	spinFor  = 200 * time.Microsecond
	yieldFor = 100 * time.Microsecond
)
