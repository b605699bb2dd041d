//go:build inject

package replica

import "sync/atomic"

// SetBrokenSwap switches the deliberately wrong swap rule on and returns
// the function that switches it off.
func SetBrokenSwap(on bool) func() {
	old := brokenSwap
	brokenSwap = on
	return func() { brokenSwap = old }
}

// SetBrokenLadder switches VarianceLadder's deliberate off-by-one on and
// returns the function that switches it off.
func SetBrokenLadder(on bool) func() {
	old := brokenLadder
	brokenLadder = on
	return func() { brokenLadder = old }
}

// SetBrokenBarrier makes Barrier sum the acceptances instead of the
// rejections; it returns the function that undoes it.
func SetBrokenBarrier(on bool) func() {
	old := brokenBarrier
	brokenBarrier = on
	return func() { brokenBarrier = old }
}

// SetBrokenScore makes the cycle tuner compare whole assignments by the
// target's energy (1) or prefer the lower slow-observable score (2); it
// returns the function that undoes it.
func SetBrokenScore(kind int) func() {
	old := brokenScore
	brokenScore = kind
	return func() { brokenScore = old }
}

// SetBrokenDrop makes TuneCycles's halving keep only the worst candidate
// at each rung; it returns the function that undoes it.
func SetBrokenDrop() func() {
	old := brokenDrop
	brokenDrop = true
	return func() { brokenDrop = old }
}

// SetAdversary makes the pools built from now on pause at random at every
// hand-off point (see adversary) and, with chaos, activate and deactivate
// their w workers at random from round to round (see chaotic); it returns
// the function that stops it.
func SetAdversary(w int, withChaos bool) func() {
	oldHook, oldChaos := hook, chaos
	var hits [hookPoints]atomic.Int64
	hook = adversary(&hits)
	if withChaos {
		chaos = chaotic(w)
	}
	return func() { hook, chaos = oldHook, oldChaos }
}

// SetBrokenCluster switches a deliberately wrong cluster move on (1: the
// seed's first q = +1 neighbour joins the cluster; 2: the seed is drawn
// among all sites, a q = +1 seed flipped alone in both replicas) and
// returns the function that switches it off.
func SetBrokenCluster(kind int) func() {
	old := brokenCluster
	brokenCluster = kind
	return func() { brokenCluster = old }
}
