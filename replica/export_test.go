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
// hand-off point (see adversary); it returns the function that stops it.
func SetAdversary() func() {
	old := hook
	var hits [hookPoints]atomic.Int64
	hook = adversary(&hits)
	return func() { hook = old }
}

// RaceEnabled tells the external tests whether the race detector is on.
const RaceEnabled = raceEnabled

// RungSpins is the state of set s's member at rung k.
func (c *Chain) RungSpins(s, k int) []int8 {
	st := c.sets[s]
	return st.ms[st.at[k]].ch.Spins()
}

// Overlap is the overlap of two +-1 states.
var Overlap = overlap
