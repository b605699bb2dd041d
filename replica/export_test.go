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

// PoolSeconds is the pool's waiting CPU and its
// workers' CPU (0 without a pool).
func (c *Chain) PoolSeconds() (wait, workers float64) {
	if c.pool == nil {
		return 0, 0
	}
	return c.pool.waitSeconds(), c.pool.cpuSeconds()
}

// RaceEnabled tells the external tests whether the race detector is on.
const RaceEnabled = raceEnabled
