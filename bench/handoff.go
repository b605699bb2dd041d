package bench

import (
	"fmt"
	"math"

	"sardonics/internal/handoff"
)

// handoffLines prices a hand-off between two threads on this machine
// (handoff.Measure, with up to half the budget for each kind): one way,
// the median round trip of a ping-pong over 2, between two goroutines
// locked to their threads, spinning on atomics, then parked on channels
// (each side parked when the other sends, its CPU idle for 50 us first,
// as a pool's worker between rounds). The replica pool and the parallel
// engine's sections try a second thread only when a round (a command)
// costs more than its share on two threads plus two spin hand-offs, and
// keep it only while it measures faster by more than the CPU its threads
// spend waiting (internal/handoff.Policy).
func handoffLines(rep *Report, cfg Config) {
	half := cfg.Budget / 2
	pr := handoff.Measure(1_000_000, 100_000, half)
	if pr.SpinTrips == 0 {
		rep.add(Line{Name: "hand-off spin", Model: "(this machine)", Value: math.NaN(), Unit: "ns",
			Note: "n/a: one usable CPU, or the partner thread got no CPU"}, cfg)
	} else {
		rep.add(Line{Name: "hand-off spin", Model: "(this machine)", Value: float64(pr.Spin.Nanoseconds()), Unit: "ns", Steps: int64(pr.SpinTrips),
			Note: fmt.Sprintf("one way, median of %d round trips between two spinning locked threads", pr.SpinTrips)}, cfg)
	}
	rep.add(Line{Name: "hand-off park/wake", Model: "(this machine)", Value: float64(pr.Park.Nanoseconds()), Unit: "ns", Steps: int64(pr.ParkTrips),
		Note: fmt.Sprintf("one way, median of %d round trips between two locked threads parked on channels; a waiter spins up to this (20-200 us) before it parks",
			pr.ParkTrips)}, cfg)
}
