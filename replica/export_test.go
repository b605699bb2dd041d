package replica

import "sardonics/sampler"

// TuneSegment is the index of the assignment the cycle tuner runs (-1
// when it is not running).
func (c *Chain) TuneSegment() int {
	if c.tn == nil || c.tn.st.Phase != tuneRun {
		return -1
	}
	return c.tn.st.Seg
}

// ScoreTrace is the tuner's score of the trace x (one value per round)
// measured over ns modelled nanoseconds.
func ScoreTrace(x []float64, ns float64) Score {
	var a batchAcc
	for _, v := range x {
		a.Add(v, batchCap)
	}
	return batchScore(&a, ns)
}

// Better is the tuner's comparison of two assignments.
var Better = better

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

// RungSpins is the state of set s's member at rung k.
func (c *Chain) RungSpins(s, k int) []int8 {
	st := c.sets[s]
	return st.ms[st.at[k]].ch.Spins()
}

// Overlap is the overlap of two +-1 states.
var Overlap = overlap

// ICMOutcomes calls f with the cluster of each of the equally likely seed
// draws of a move between a and b over g, as the chain's move draws them
// (not at all when no site differs). f must not keep cl.
func ICMOutcomes(g Graph, a, b []int8, f func(cl []int32)) {
	x := &icmState{g: g, open: make([]uint8, len(a)), queue: make([]int32, len(a)+1)}
	d, _ := x.prepare(a, b)
	for u := range d {
		x.prepare(a, b)
		f(x.cluster(a, b, u))
	}
}

// ClusterMove makes one cluster move at rung k, drawing from the chain's
// swap stream, and returns the cluster's size (0: no q = -1 site).
func (c *Chain) ClusterMove(k int) int {
	s0, s1 := c.sets[0], c.sets[1]
	size, _, _ := c.icm.move(c.r, s0.ms[s0.at[k]].ch, s1.ms[s1.at[k]].ch)
	return size
}

// RungChain is the member of set s at rung k.
func (c *Chain) RungChain(s, k int) sampler.Tempered {
	return c.sets[s].ms[c.sets[s].at[k]].ch
}

// Differ is what prepare gives on a graph that is Even or not: the seed
// draws, the number of sites where a and b differ, whether the move's side
// is where they agree, and the sites it opened to the search.
func Differ(a, b []int8, even bool) (d, minus int, agree bool, open []uint8) {
	x := &icmState{open: make([]uint8, len(a)), g: Graph{Even: even}}
	d, minus = x.prepare(a, b)
	return d, minus, x.agree, x.open
}

// NthSite is nthSite.
var NthSite = nthSite

// NoPairFlip makes the cluster move flip its two members one after the
// other (see noPairFlip) until the returned function restores it.
func NoPairFlip() func() {
	old := noPairFlip
	noPairFlip = true
	return func() { noPairFlip = old }
}
