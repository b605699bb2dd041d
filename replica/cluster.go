package replica

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"unsafe"

	"sardonics/internal/state"
	"sardonics/rng"
	"sardonics/sampler"
)

// Cluster is the move made between the two sets of replicas after each
// swap round (see the package comment, "The cluster move").
type Cluster int

const (
	NoCluster Cluster = iota // none
	// ICM is Houdayer's cluster move (the isoenergetic cluster move of
	// Zhu, Ochoa and Katzgraber where it runs only on chosen rungs): one
	// move per rung where it is on, between the two sets' members there.
	ICM
)

func (k Cluster) String() string {
	switch k {
	case NoCluster:
		return "none"
	case ICM:
		return "icm"
	}
	return fmt.Sprintf("Cluster(%d)", int(k))
}

// Graph is the coupling graph the cluster move grows its clusters over, in
// CSR form: site i's neighbours are Adj[Start[i]:Start[i+1]] (a
// model.Ising's Start and Adj; every pair listed in both rows).
type Graph struct {
	Start, Adj []int32
	// Even says the model has no fields, so that E(-s) = E(s): a move
	// then grows its cluster among the sites where the two replicas
	// agree when they are fewer than those where they differ (see the
	// package comment).
	Even bool
}

// MaxClusterShare is the largest mean share of the sites on its side
// that a move's cluster covers with which a rung keeps the move at the
// end of the burn-in. A cluster that covers every site of its side
// exchanges the two replicas' states, which changes nothing at equal beta;
// one that covers a share s of them changes, beyond that exchange, only
// the 1 - s left out, while its search costs s. Where those sites
// percolate the seed nearly always lands in the percolating cluster. With
// the q = +1 side on models without fields (results/icm, 8 trials): on
// spinglass3d:L=8 (16 rungs from beta 0.4 to 2) the share was above 0.9
// below beta 0.85, 0.86 there falling to 0.60 at beta 2; on
// spinglass2d:L=32 (24 rungs from beta 0.3 to 3.33) 0.15 at the hottest
// rung, at most 0.65. 0.9 keeps the move on the whole 2D ladder and on the
// 3D glass from beta 0.85 up, as Houdayer (2D) and Zhu, Ochoa and
// Katzgraber (3D, low temperatures only) use it.
const MaxClusterShare = 0.9

// clusterStats are a rung's counts of cluster moves.
type clusterStats struct {
	rounds int64   // moves tried (one per round where the move ran)
	moves  int64   // moves made (rounds with a site on the move's side)
	sites  int64   // sites flipped, summed over the moves
	minus  int64   // q = -1 sites, summed over the rounds
	share  float64 // the cluster's share of the sites on its side, summed over the moves
}

func (s *clusterStats) add(o clusterStats) {
	s.rounds += o.rounds
	s.moves += o.moves
	s.sites += o.sites
	s.minus += o.minus
	s.share += o.share
}

// icmState is the cluster move's configuration, per-rung decisions and
// counters, and its preallocated scratch.
type icmState struct {
	g       Graph
	betaMin float64 // > 0: the move runs at every rung with beta >= betaMin
	decided bool    // the rungs are chosen (always, with betaMin)
	on      []bool  // per rung, once decided (betaMin: unused)
	// The burn-in's measurement, after the ladder stops moving: the
	// current and the previous segment of rounds [2^j, 2^(j+1)), and what
	// decided (the two segments together at the decision: at least the last
	// half of the rounds before it, at most three quarters).
	cur, prev, meas []clusterStats
	nextSeg         int64
	after           []clusterStats // counted after CountFrom

	degree int     // every site's degree when it is 4 or 6 (lattices), else 0
	agree  bool    // this move's side: the sites with q = +1 (else q = -1; prepare sets it)
	open   []uint8 // 1: a site of the move's side the search has not taken (prepare sets it)
	queue  []int32 // the cluster, in the order the search reached it (n+1 slots)
	spins  []int8  // a member without FlipSites: its state for Reset
}

// noPairFlip makes every move flip its two replicas one after the other
// (FlipSites or Reset), as chains without sampler.PairFlipper are: tests
// and benchmarks compare the two.
var noPairFlip = false

func newICM(cfg *Config, n int) (*icmState, error) {
	g := cfg.Graph
	if len(g.Start) != n+1 || g.Start[0] != 0 || int(g.Start[n]) != len(g.Adj) {
		return nil, fmt.Errorf("replica: cluster move: a graph of %d rows and %d entries for %d sites (expected CSR rows of every site)", len(g.Start)-1, len(g.Adj), n)
	}
	for i := range n {
		if g.Start[i] > g.Start[i+1] {
			return nil, errors.New("replica: cluster move: graph rows out of order")
		}
	}
	for _, j := range g.Adj {
		if j < 0 || int(j) >= n {
			return nil, fmt.Errorf("replica: cluster move: neighbour %d out of range (expected 0..%d)", j, n-1)
		}
	}
	R := len(cfg.Betas)
	x := &icmState{g: g, betaMin: cfg.ClusterBetaMin, decided: cfg.ClusterBetaMin > 0, on: make([]bool, R),
		cur: make([]clusterStats, R), prev: make([]clusterStats, R), meas: make([]clusterStats, R),
		after: make([]clusterStats, R), nextSeg: 32,
		open: make([]uint8, n), queue: make([]int32, n+1), degree: regularDegree(g)}
	return x, nil
}

// regularDegree is g's degree when every site has 4 or every site 6
// neighbours (the lattices), else 0: grow then reads a site's row at a
// fixed offset, without its bounds.
func regularDegree(g Graph) int {
	n := len(g.Start) - 1
	if n <= 0 {
		return 0
	}
	d := int(g.Start[1] - g.Start[0])
	if d != 4 && d != 6 {
		return 0
	}
	for i := range n {
		if int(g.Start[i+1]-g.Start[i]) != d || int(g.Start[i]) != d*i {
			return 0
		}
	}
	return d
}

// runs reports whether the move runs at rung k (beta the rung's): with
// betaMin at beta >= betaMin; else at every rung until the rungs are
// chosen, then where chosen.
func (x *icmState) runs(k int, beta float64) bool {
	switch {
	case x.betaMin > 0:
		return beta >= x.betaMin
	case !x.decided:
		return true
	}
	return x.on[k]
}

// clusterRound makes one move at every rung where it runs (after a swap
// round), measuring during the burn-in once the ladder is fixed (measure)
// and counting after it (count); at the round that first counts it chooses
// the rungs. The draws come from the chain's swap stream.
func (c *Chain) clusterRound(count, measure bool) {
	x := c.icm
	switch {
	case x.decided:
	case count:
		x.decide()
	case c.rounds >= x.nextSeg: // segments turn over whether or not they measured
		x.prev, x.cur = x.cur, x.prev
		clear(x.cur)
		x.nextSeg *= 2
	}
	s0, s1 := c.sets[0], c.sets[1]
	for k, beta := range c.betas {
		if !x.runs(k, beta) {
			continue
		}
		a, b := s0.ms[s0.at[k]].ch, s1.ms[s1.at[k]].ch
		size, minus, side := x.move(c.r, a, b)
		st := clusterStats{rounds: 1, minus: int64(minus), sites: int64(size)}
		if size > 0 {
			st.moves, st.share = 1, float64(size)/float64(max(side, size))
		}
		if count {
			x.after[k].add(st)
		} else if measure && !x.decided {
			x.cur[k].add(st)
		}
	}
}

// decide chooses the rungs from the measurement: on where the clusters
// covered on average at most MaxClusterShare of the q = -1 sites, or where
// no move found a q = -1 site (it then costs a scan of the spins); off
// where nothing was measured.
func (x *icmState) decide() {
	for k := range x.on {
		m := x.prev[k]
		m.add(x.cur[k])
		x.meas[k] = m
		x.on[k] = m.rounds > 0 && (m.moves == 0 || m.share <= MaxClusterShare*float64(m.moves))
	}
	clear(x.cur)
	clear(x.prev)
	x.decided = true
}

// move is one Houdayer move between a and b: a seed drawn uniformly among
// the sites of the move's side (where they differ, q_i = -1, or on a model
// without fields the fewer of those and of the sites where they agree),
// the connected component of such sites containing it over the graph,
// flipped in both. It returns the cluster's size (0: no site on the side,
// no move), the number of q = -1 sites and the sites on the side.
func (x *icmState) move(r *rand.PCG, a, b sampler.Tempered) (size, minus, side int) {
	sa, sb := a.Spins(), b.Spins()
	d, minus := x.prepare(sa, sb)
	side = minus
	if x.agree {
		side = len(sa) - minus
	}
	if d == 0 {
		return 0, minus, side
	}
	cl := x.cluster(sa, sb, rng.Intn(r, d))
	if p, ok := a.(sampler.PairFlipper); ok && brokenCluster == 0 && !noPairFlip && p.FlipPair(b, cl) {
		return len(cl), minus, side
	}
	x.flip(a, cl)
	x.flip(b, cl)
	return len(cl), minus, side
}

// prepare chooses the move's side (x.agree: the q = +1 sites when the
// graph is Even and they are fewer than the q = -1 ones, which depends on
// q only, so the reverse move chooses the same side) and opens its sites
// to the search (open[i] = 1 on the side, 0 elsewhere), 8 sites at a time;
// it returns the number of equally likely seed draws of a move (0: no
// move) and of q = -1 sites.
func (x *icmState) prepare(sa, sb []int8) (d, minus int) {
	a, b, o := bytesOf(sa), bytesOf(sb), x.open
	b, o = b[:len(a)], o[:len(a)]
	i := 0
	for ; i+8 <= len(a); i += 8 {
		w := (binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])) >> 7 & lowBits
		binary.LittleEndian.PutUint64(o[i:], w)
		minus += bits.OnesCount64(w)
	}
	for ; i < len(a); i++ {
		o[i] = (a[i] ^ b[i]) >> 7
		minus += int(o[i])
	}
	d = minus
	x.agree = (x.g.Even || brokenCluster == 3) && 2*minus > len(a)
	if x.agree {
		for i = 0; i+8 <= len(o); i += 8 {
			binary.LittleEndian.PutUint64(o[i:], binary.LittleEndian.Uint64(o[i:])^lowBits)
		}
		for ; i < len(o); i++ {
			o[i] ^= 1
		}
		d = len(a) - minus
	}
	if brokenCluster == 2 {
		return len(sa), minus
	}
	return d, minus
}

// cluster is the cluster that seed draw u gives after prepare, u uniform
// on 0..d-1: the seed is the u-th site of the side in index order (in
// broken variant 2 site u, flipped alone when it is not on the side).
func (x *icmState) cluster(sa, sb []int8, u int) []int32 {
	if brokenCluster == 2 {
		if i := int32(u); x.open[i] == 0 {
			x.queue[0] = i
			return x.queue[:1]
		}
		return x.grow(sa, sb, int32(u))
	}
	return x.grow(sa, sb, int32(nthSite(sa, sb, u, x.agree)))
}

// grow is the connected component of the side's sites containing seed (a
// site of the side), found breadth first over the graph after prepare: it
// visits the cluster and its boundary only, and allocates nothing. A
// neighbour joins the queue when it is open, and is closed as it is
// looked at; both are done without a branch (the queue's next slot is
// written whether or not the neighbour joins, and the queue's length grows
// by open[j]), because whether a neighbour differs is a coin flip that a
// branch predictor cannot learn: with a branch per neighbour the search
// cost 2.5x more (BenchmarkICM).
func (x *icmState) grow(sa, sb []int8, seed int32) []int32 {
	open, q := x.open, x.queue // len(q) = n+1: the slot after the last site is written too
	start, adj := x.g.Start, x.g.Adj
	q[0] = seed
	open[seed] = 0
	n := 1
	switch x.degree {
	case 4:
		for h := 0; h < n; h++ {
			nb := (*[4]int32)(adj[4*q[h]:])
			for _, j := range nb {
				c := open[j]
				open[j] = 0
				q[n] = j
				n += int(c)
			}
		}
	case 6:
		for h := 0; h < n; h++ {
			nb := (*[6]int32)(adj[6*q[h]:])
			for _, j := range nb {
				c := open[j]
				open[j] = 0
				q[n] = j
				n += int(c)
			}
		}
	default:
		for h := 0; h < n; h++ {
			i := q[h]
			for _, j := range adj[start[i]:start[i+1]] {
				c := open[j]
				open[j] = 0
				q[n] = j
				n += int(c)
			}
		}
	}
	if brokenCluster == 1 { // admit the seed's first neighbour off the side
		for _, j := range adj[start[seed]:start[seed+1]] {
			if (sa[j] == sb[j]) != x.agree {
				q[n] = j
				n++
				break
			}
		}
	}
	return q[:n]
}

// flip flips the cluster in member ch: FlipSites where it has it (the
// sites' degrees), else a Reset to its spins with the cluster flipped.
func (x *icmState) flip(ch sampler.Tempered, cl []int32) {
	if f, ok := ch.(sampler.Flipper); ok {
		f.FlipSites(cl)
		return
	}
	x.spins = append(x.spins[:0], ch.Spins()...)
	for _, i := range cl {
		x.spins[i] = -x.spins[i]
	}
	ch.(sampler.Resetter).Reset(x.spins)
}

// canFlip reports whether the cluster move can change ch's spins.
func canFlip(ch sampler.Chain) bool {
	_, f := ch.(sampler.Flipper)
	_, r := ch.(sampler.Resetter)
	return f || r
}

// signBits are the top bits of 8 bytes: a byte of a XOR b, for spins +1
// (0x01) and -1 (0xFF), is 0xFE where they differ and 0 where they agree;
// lowBits are their bottom bits.
const (
	signBits = 0x8080808080808080
	lowBits  = 0x0101010101010101
)

// bytesOf views spins as bytes.
func bytesOf(s []int8) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// nthSite is the index of the k-th site (from 0) where a and b differ
// (agree: where they agree); there must be more than k.
func nthSite(a, b []int8, k int, agree bool) int {
	x, y := bytesOf(a), bytesOf(b)
	y = y[:len(x)]
	var flip uint64
	if agree {
		flip = signBits
	}
	i := 0
	for ; i+8 <= len(x); i += 8 {
		d := (binary.LittleEndian.Uint64(x[i:])^binary.LittleEndian.Uint64(y[i:]))&signBits ^ flip
		if c := bits.OnesCount64(d); k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			d &= d - 1 // drop the lowest marked byte
		}
		return i + bits.TrailingZeros64(d)/8
	}
	for ; i < len(x); i++ {
		if (x[i] != y[i]) != agree {
			if k == 0 {
				return i
			}
			k--
		}
	}
	panic(fmt.Sprintf("replica: nthSite: fewer than %d sites on the side", k+1))
}

// tagCluster marks the trailer that holds the cluster move's state;
// clusterVersion is its layout's version.
const (
	tagCluster     = 0x72657473756c63 // "cluster"
	clusterVersion = 1
)

// appendICM writes the cluster move's decisions and counters (not its
// scratch).
func (x *icmState) append(w *state.Writer) {
	w.Uint64(tagCluster)
	w.Uint64(clusterVersion)
	w.Float64(x.betaMin)
	d := uint64(0)
	if x.decided {
		d = 1
	}
	w.Uint64(d)
	w.Int64(x.nextSeg)
	for _, on := range x.on {
		v := uint64(0)
		if on {
			v = 1
		}
		w.Uint64(v)
	}
	for _, a := range [][]clusterStats{x.cur, x.prev, x.meas, x.after} {
		for _, s := range a {
			w.Int64(s.rounds)
			w.Int64(s.moves)
			w.Int64(s.sites)
			w.Int64(s.minus)
			w.Float64(s.share)
		}
	}
}

// restoreICM reads what append wrote into x, or fails r.
func (x *icmState) restore(r *state.Reader) error {
	if r.Uint64() != tagCluster && r.Bad() == nil {
		return errors.New("replica: corrupt state (no cluster-move record for a chain with the cluster move)")
	}
	if v := r.Uint64(); r.Bad() == nil && v != clusterVersion {
		return fmt.Errorf("replica: cluster-move state version %d (expected %d)", v, clusterVersion)
	}
	if b := r.Float64(); r.Bad() == nil && math.Float64bits(b) != math.Float64bits(x.betaMin) {
		return fmt.Errorf("replica: state of a cluster move from beta %g (this chain: %g)", b, x.betaMin)
	}
	d, next := r.Uint64(), r.Int64()
	on := make([]bool, len(x.on))
	for k := range on {
		v := r.Uint64()
		if v > 1 {
			r.Fail(errors.New("replica: corrupt state (cluster-move rungs)"))
		}
		on[k] = v == 1
	}
	var arrays [4][]clusterStats
	for i := range arrays {
		arrays[i] = make([]clusterStats, len(x.on))
		for k := range arrays[i] {
			s := clusterStats{r.Int64(), r.Int64(), r.Int64(), r.Int64(), r.Float64()}
			if s.rounds < 0 || s.moves < 0 || s.moves > s.rounds || s.sites < 0 || s.minus < 0 || !(s.share >= 0 && s.share <= float64(s.moves)) {
				r.Fail(errors.New("replica: corrupt state (cluster-move counters)"))
			}
			arrays[i][k] = s
		}
	}
	if err := r.Bad(); err != nil {
		return err
	}
	if d > 1 || next < 1 || x.betaMin > 0 && d != 1 {
		return errors.New("replica: corrupt state (cluster-move decision)")
	}
	x.decided, x.nextSeg = d == 1, next
	copy(x.on, on)
	copy(x.cur, arrays[0])
	copy(x.prev, arrays[1])
	copy(x.meas, arrays[2])
	copy(x.after, arrays[3])
	return nil
}

// ClusterReport is what a trial's stats.json says about the cluster move.
type ClusterReport struct {
	Move string `json:"move"` // "icm"
	// BetaMin is --cluster-beta-min: the move ran at every rung with beta
	// >= BetaMin (0: the rungs were chosen from the burn-in).
	BetaMin float64 `json:"beta_min,omitempty"`
	// Decided is false while the burn-in has not ended (the move then
	// runs at every rung).
	Decided bool `json:"decided"`
	// MaxClusterShare is the rule: a rung keeps the move when its
	// clusters during the burn-in covered on average at most this share of
	// the q = -1 sites.
	MaxClusterShare float64       `json:"max_cluster_share,omitempty"`
	Rungs           []ClusterRung `json:"rungs"`
}

// ClusterRung is the cluster move at one rung. Counts are after burn-in.
type ClusterRung struct {
	Beta  float64 `json:"beta"`
	On    bool    `json:"on"`    // whether the move runs at this rung after burn-in
	Tries int64   `json:"tries"` // rounds in which it ran
	// Moves are the moves made: the tries that found a q = -1 site.
	Moves int64 `json:"moves"`
	// MeanSize is the mean number of sites a move flipped, and MeanShare
	// the mean share of the q = -1 sites they were (null: no move).
	MeanSize  *float64 `json:"mean_cluster_size"`
	MeanShare *float64 `json:"mean_cluster_share"`
	// QMinus is the mean fraction of sites with q = -1 when it ran (null:
	// it did not run).
	QMinus *float64 `json:"q_minus_fraction"`
	// BurnShare, BurnFraction and BurnQMinus are what the burn-in
	// measured over BurnTries rounds (the decision reads BurnShare): the
	// clusters' mean share of the q = -1 sites and mean size as a
	// fraction of the sites (null: no move made), and the mean fraction of
	// q = -1 sites (null: nothing measured). Absent with BetaMin.
	BurnShare    *float64 `json:"burn_in_cluster_share,omitempty"`
	BurnFraction *float64 `json:"burn_in_cluster_fraction,omitempty"`
	BurnQMinus   *float64 `json:"burn_in_q_minus_fraction,omitempty"`
	BurnTries    int64    `json:"burn_in_tries,omitempty"`
}

// ratio is a / b, nil when b is 0.
func ratio(a, b float64) *float64 {
	if b == 0 {
		return nil
	}
	v := a / b
	return &v
}

// clusterReport is the cluster move's part of Report (nil without it).
func (c *Chain) clusterReport() *ClusterReport {
	x := c.icm
	if x == nil {
		return nil
	}
	n := float64(c.n)
	rep := &ClusterReport{Move: ICM.String(), BetaMin: x.betaMin, Decided: x.decided}
	if x.betaMin == 0 {
		rep.MaxClusterShare = MaxClusterShare
	}
	for k, beta := range c.betas {
		a := x.after[k]
		r := ClusterRung{Beta: beta, On: x.decided && x.runs(k, beta), Tries: a.rounds, Moves: a.moves,
			MeanSize: ratio(float64(a.sites), float64(a.moves)), MeanShare: ratio(a.share, float64(a.moves)),
			QMinus: ratio(float64(a.minus), n*float64(a.rounds))}
		if x.betaMin == 0 {
			m := x.meas[k]
			if !x.decided { // what the measurement holds so far
				m = x.prev[k]
				m.add(x.cur[k])
			}
			r.BurnShare = ratio(m.share, float64(m.moves))
			r.BurnFraction = ratio(float64(m.sites), n*float64(m.moves))
			r.BurnQMinus = ratio(float64(m.minus), n*float64(m.rounds))
			r.BurnTries = m.rounds
		}
		rep.Rungs = append(rep.Rungs, r)
	}
	return rep
}
