package replica

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"sardonics/rng"
	"sardonics/sampler"
)

// Builder makes one member chain at inverse temperature beta from the
// spins init, drawing only from r; the function it returns releases the
// chain's resources.
// MaxWalk is the most swap rounds whose rung of set 0's member 0 a chain
// keeps (Report.Walk, walk.csv): enough for the figure's 2000 and to count
// round trips by eye, and bounded however long the run.
const MaxWalk = 1 << 16

type Builder func(beta float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error)

// Config is a replica-exchange chain's ladder and schedule.
type Config struct {
	Betas     []float64 // the starting ladder, strictly increasing; the last is the target
	SwapEvery int       // member steps between swap rounds (>= 1; unused on the work clock)
	// Work > 0 puts the swap rounds on the work clock (see the package
	// comment): each round, every member runs the fewest steps whose
	// proposed single-bit changes reach Work sweep-equivalents (Work N
	// bits). 0 is the step clock, SwapEvery steps per round.
	Work  float64
	Adapt int // steps during which the ladder adapts (0: fixed)
	// Spacing is how the ladder moves while it adapts: ByAcceptance
	// (Adapted) or ByVariance (VarianceLadder, from each rung's energy
	// spread).
	Spacing   Spacing
	CountFrom int   // steps after which swaps and round trips are counted (the burn-in)
	Sets      int   // independent ladders: 1, or 2 for the overlap
	Workers   int   // goroutines that step the members between swaps (<= 1: the caller's)
	CPUs      []int // CPUs for workers 1..Workers-1 (optional; index 0 is the caller's)
	KeepSpins bool  // make Spins right at every step (else only at round ends)
	// Cluster is the move made between the two sets after each swap round
	// (Sets = 2; see the package comment, "The cluster move"): NoCluster
	// or ICM, whose clusters grow over Graph.
	Cluster Cluster
	Graph   Graph
	// ClusterBetaMin > 0 runs the cluster move at every rung with beta >=
	// ClusterBetaMin. 0 runs it at every rung during the burn-in (CountFrom
	// steps), measures there, and keeps it from then on at the rungs where
	// its clusters covered on average at most MaxClusterShare of the
	// q = -1 sites.
	ClusterBetaMin float64
	// Tune, when not nil, chooses each rung's hybrid cycle during the
	// burn-in (see CycleTuner; every member must be a Cycler).
	Tune *CycleTuner
}

// Geometric is the ladder of r inverse temperatures from lo to hi with
// constant ratio (lo > 0), or just {hi} for r = 1.
func Geometric(lo, hi float64, r int) []float64 {
	if r == 1 {
		return []float64{hi}
	}
	b := make([]float64, r)
	for k := range b {
		b[k] = lo * math.Pow(hi/lo, float64(k)/float64(r-1))
	}
	b[r-1] = hi
	return b
}

func (cfg *Config) check() error {
	r := len(cfg.Betas)
	if r < 2 {
		return fmt.Errorf("replica: %d rungs (expected at least 2)", r)
	}
	for k, b := range cfg.Betas {
		if math.IsNaN(b) || math.IsInf(b, 0) || b < 0 || k > 0 && !(b > cfg.Betas[k-1]) {
			return fmt.Errorf("replica: ladder %v (expected strictly increasing finite betas >= 0)", cfg.Betas)
		}
	}
	if math.IsNaN(cfg.Work) || math.IsInf(cfg.Work, 0) || cfg.Work < 0 {
		return fmt.Errorf("replica: work %v per swap round (expected a finite number of sweep-equivalents >= 0)", cfg.Work)
	}
	if cfg.Spacing != ByAcceptance && cfg.Spacing != ByVariance {
		return fmt.Errorf("replica: ladder spacing %v", cfg.Spacing)
	}
	switch {
	case cfg.Cluster != NoCluster && cfg.Cluster != ICM:
		return fmt.Errorf("replica: cluster move %v", cfg.Cluster)
	case cfg.Cluster != NoCluster && cfg.Sets != 2:
		return fmt.Errorf("replica: the cluster move %v needs two sets of replicas (have %d)", cfg.Cluster, cfg.Sets)
	case math.IsNaN(cfg.ClusterBetaMin) || math.IsInf(cfg.ClusterBetaMin, 0) || cfg.ClusterBetaMin < 0:
		return fmt.Errorf("replica: cluster move from beta %v (expected a finite beta >= 0, 0 to choose the rungs from the burn-in)", cfg.ClusterBetaMin)
	}
	if cfg.Work == 0 && cfg.SwapEvery < 1 || cfg.Adapt < 0 || cfg.CountFrom < 0 || cfg.Sets != 1 && cfg.Sets != 2 {
		return fmt.Errorf("replica: invalid schedule (swap every %d, adapt %d, count from %d, %d sets)", cfg.SwapEvery, cfg.Adapt, cfg.CountFrom, cfg.Sets)
	}
	return nil
}

// member is one chain of a set, at rung pos.
type member struct {
	ch  sampler.Tempered
	rel func()
	r   *rand.PCG
	pos int
	// dir is where the member is going: +1 to the target after it last
	// touched the hottest rung, -1 back after it then reached the target,
	// 0 before it touched the hottest rung.
	dir int8
}

// set is one ladder: its members and the buffers of its target rung over
// the current round.
type set struct {
	ms    []*member
	at    []int     // at[k]: the member at rung k
	tgtE  []float64 // target energy after each step of the round (its length is the round's)
	tgtS  [][]int8  // target spins after each step of the round (kept when needed; the work clock may keep more buffers than the round's steps)
	acc   []int64   // accepted swaps of pair (k, k+1), counted after CountFrom
	tries []int64   // proposed swaps of pair (k, k+1), counted after CountFrom
	trips int64     // round trips hottest -> target -> hottest, counted after CountFrom
	walk  []int16   // set 0: rung of member 0 after each of the first MaxWalk rounds
	spins bool      // tgtS is kept
}

// Chain is a replica-exchange chain (see the package comment). It is used
// by one goroutine at a time.
type Chain struct {
	cfg    Config
	betas  []float64
	sets   []*set
	r      *rand.PCG // swap decisions
	rounds int64     // rounds run
	done   int64     // steps of the rounds run (rounds * SwapEvery on the step clock)
	idx    int       // steps of the current round already returned
	n      int       // bits per state
	need   int64     // work clock: proposed bit changes per member per round
	q      []float64 // overlap after each step of the round (Sets = 2)
	// adaptation: swaps of each pair since the ladder last moved, and the
	// round of the next move
	aAcc, aTries []int64
	nextAdapt    int64
	// the variance ladder: each rung's energy at the ends of the rounds
	// of the current segment (all sets pooled; Welford's count, mean and
	// sum of squared deviations), and what the last move measured
	vN          []int64
	vMean, vM2  []float64
	vBetas, vSD []float64 // the rungs of the last move and their energy spreads
	pool        *pool
	tn          *tuner    // the cycle tuner (Config.Tune), or nil
	icm         *icmState // the cluster move (Config.Cluster), or nil
}

// Ladder is a replica-exchange chain as its trial records it: its rungs
// and sets, whether a step ended a swap round, every rung's energy and
// overlap then, the cycle tuner's phase, and what the run did (Report).
// The runner reaches replica exchange through it, never the concrete
// Chain.
type Ladder interface {
	sampler.Chain
	Rungs() int
	Sets() int
	RoundEnd() bool
	RungEnergies(dst []float64) []float64
	RungOverlaps(dst []float64) []float64
	TunePhase() int
	Report() *Report
}

var (
	_ Ladder                = (*Chain)(nil)
	_ sampler.Stateful      = (*Chain)(nil)
	_ sampler.MaybeStateful = (*Chain)(nil)
	_ sampler.ThreadCPU     = (*Chain)(nil)
	_ sampler.Overlapped    = (*Chain)(nil)
)

// New builds a replica-exchange chain. Every member of set 0 starts at
// init; the members of set 1 start at states drawn uniformly from their
// own streams, so that the two sets are independent. The members' streams
// are derived from r's state without advancing it; r draws the swap
// decisions.
func New(cfg Config, build Builder, r *rand.PCG, init []int8) (*Chain, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	R := len(cfg.Betas)
	c := &Chain{cfg: cfg, betas: append([]float64(nil), cfg.Betas...), r: r,
		aAcc: make([]int64, R-1), aTries: make([]int64, R-1), nextAdapt: 32, n: len(init)}
	if cfg.Spacing == ByVariance {
		c.vN, c.vMean, c.vM2 = make([]int64, R), make([]float64, R), make([]float64, R)
	}
	if cfg.Cluster == ICM {
		x, err := newICM(&cfg, len(init))
		if err != nil {
			return nil, err
		}
		c.icm = x
	}
	keep := cfg.KeepSpins || cfg.Sets == 2
	every := cfg.SwapEvery // buffered steps per round
	if cfg.Work > 0 {
		every = 0 // the buffers grow to the rounds' lengths
		c.need = max(1, int64(math.Ceil(cfg.Work*float64(len(init)))))
	}
	// The members' streams come from a copy of r, so r is not advanced: a
	// caller that restores r and then rebuilds the chain to restore its
	// state continues exactly. rng.Sub mixes the copy's draw, so the
	// members' streams are unrelated to the swap decisions r makes.
	rc := *r
	base := rc.Uint64()
	for si := 0; si < cfg.Sets; si++ {
		s := &set{at: make([]int, R), tgtE: make([]float64, 0, every), acc: make([]int64, R-1),
			tries: make([]int64, R-1), spins: keep}
		c.sets = append(c.sets, s) // before its members, so that Close releases them on an error
		for k := range R {
			mr := rng.Sub(base, uint64(si), uint64(k))
			start := init
			if si > 0 {
				start = make([]int8, len(init))
				for i := range start {
					start[i] = int8(2*(mr.Uint64()&1)) - 1
				}
			}
			ch, rel, err := build(cfg.Betas[k], mr, start)
			if err != nil {
				c.Close()
				return nil, err
			}
			m := &member{rel: rel, r: mr, pos: k}
			t, ok := ch.(sampler.Tempered)
			if !ok {
				rel()
				c.Close()
				return nil, errors.New("replica: the kernel cannot change its temperature in place")
			}
			m.ch = t
			s.ms = append(s.ms, m)
			if c.icm != nil && !canFlip(ch) {
				c.Close()
				return nil, errors.New("replica: the cluster move needs a kernel whose spins can be flipped or reset in place")
			}
			s.at[k] = k
		}
		if keep {
			s.tgtS = make([][]int8, every)
			for i := range s.tgtS {
				s.tgtS[i] = make([]int8, len(init))
			}
		}
	}
	if cfg.Sets == 2 {
		c.q = make([]float64, every)
	}
	if cfg.Tune != nil {
		if err := c.newTuner(cfg.Tune); err != nil {
			c.Close()
			return nil, err
		}
	}
	if cfg.Workers > 1 {
		c.pool = newPool(cfg.Workers, cfg.CPUs)
	}
	return c, nil
}

// Close stops the workers and releases the members.
func (c *Chain) Close() {
	if c.pool != nil {
		c.pool.close()
		c.pool = nil
	}
	for _, s := range c.sets {
		for _, m := range s.ms {
			if m.rel != nil {
				m.rel()
				m.rel = nil
			}
		}
	}
}

// target is set s's member at the target rung.
func (c *Chain) target(s int) *member {
	st := c.sets[s]
	return st.ms[st.at[len(st.at)-1]]
}

// Step advances every member by one step; every SwapEvery steps (on the
// work clock: as many as the target rung's member ran in the round) the
// swap round follows. Members run a whole round ahead: Energy, Spins and
// Overlap replay the target's values step by step.
func (c *Chain) Step() {
	if c.idx == 0 || c.idx == len(c.sets[0].tgtE) {
		if c.rounds > 0 {
			c.swapRound()
		}
		if c.tn != nil {
			c.tuneControl()
		}
		c.runRound()
		c.idx = 0
	}
	c.idx++
}

// Energy is the target rung's energy (set 0's).
func (c *Chain) Energy() float64 {
	if c.rounds == 0 {
		return c.target(0).ch.Energy()
	}
	return c.sets[0].tgtE[c.idx-1]
}

// Spins is the target rung's state (set 0's); without KeepSpins it is
// right only at the end of a round.
func (c *Chain) Spins() []int8 {
	if c.rounds == 0 || !c.sets[0].spins {
		return c.target(0).ch.Spins()
	}
	return c.sets[0].tgtS[c.idx-1]
}

// Overlap is q = (1/N) sum_i s_i s'_i of the two sets' target rungs after
// the last step (Sets = 2; else NaN).
func (c *Chain) Overlap() float64 {
	if c.q == nil {
		return math.NaN()
	}
	if c.rounds == 0 {
		return overlap(c.target(0).ch.Spins(), c.target(1).ch.Spins())
	}
	return c.q[c.idx-1]
}

// RoundEnd reports whether the step Step just returned is the last of its
// round: the next Step proposes the swaps and runs the next round.
func (c *Chain) RoundEnd() bool {
	return c.rounds > 0 && c.idx == len(c.sets[0].tgtE)
}

// RungEnergies appends to dst the energy at every rung, hottest first (set
// 0's members), at the end of the last round run: until the next Step
// they are the members' energies, before the swaps that open the next
// round. After the round's last step (RoundEnd) the last is Energy.
func (c *Chain) RungEnergies(dst []float64) []float64 {
	s := c.sets[0]
	for _, j := range s.at {
		dst = append(dst, s.ms[j].ch.Energy())
	}
	return dst
}

// RungOverlaps appends to dst the overlap q = (1/N) sum_i s_i s'_i of the
// two sets' members at every rung, hottest first, at the end of the last
// round run (see RungEnergies); with one set it appends nothing. It costs
// O(N) a rung.
func (c *Chain) RungOverlaps(dst []float64) []float64 {
	if len(c.sets) < 2 {
		return dst
	}
	a, b := c.sets[0], c.sets[1]
	for k := range a.at {
		dst = append(dst, overlap(a.ms[a.at[k]].ch.Spins(), b.ms[b.at[k]].ch.Spins()))
	}
	return dst
}

// Sets is the number of independent ladders (1, or 2 for the overlap).
func (c *Chain) Sets() int { return len(c.sets) }

// Rungs is the number of rungs.
func (c *Chain) Rungs() int { return len(c.betas) }

// overlap is (1/N) sum_i a_i b_i of two +-1 states of N spins. Eight
// spins at a time: +1 and -1 are the bytes 0x01 and 0xff, which differ in
// 7 bits, so the XOR of two words has 7 bits set per differing spin, and
// sum_i a_i b_i = N - 2 (differing spins); the rest one at a time.
func overlap(a, b []int8) float64 {
	n := len(a)
	b = b[:n]
	diff := 0
	i := 0
	for ; i+8 <= n; i += 8 {
		diff += bits.OnesCount64(word(a[i:i+8]) ^ word(b[i:i+8]))
	}
	diff /= 7
	for ; i < n; i++ {
		if a[i] != b[i] {
			diff++
		}
	}
	return float64(n-2*diff) / float64(n)
}

// word is the 8 bytes of x as one little-endian word.
func word(x []int8) uint64 {
	_ = x[7]
	return uint64(uint8(x[0])) | uint64(uint8(x[1]))<<8 | uint64(uint8(x[2]))<<16 | uint64(uint8(x[3]))<<24 |
		uint64(uint8(x[4]))<<32 | uint64(uint8(x[5]))<<40 | uint64(uint8(x[6]))<<48 | uint64(uint8(x[7]))<<56
}

// Stats sums the members' counters (Flips is -1 if any member has none).
func (c *Chain) Stats() sampler.Stats {
	var st sampler.Stats
	for _, s := range c.sets {
		for _, m := range s.ms {
			x := m.ch.Stats()
			if x.Flips < 0 || st.Flips < 0 {
				st.Flips = -1
			} else {
				st.Flips += x.Flips
			}
			st.Proposed += x.Proposed
			st.Accepted += x.Accepted
		}
	}
	return st
}

// runRound steps every member SwapEvery times (on the work clock: until
// each has done the round's work), recording each set's target (and,
// while the cycle tuner runs, what it measures).
func (c *Chain) runRound() {
	var jobs int
	for _, s := range c.sets {
		if c.cfg.Work > 0 {
			s.tgtE = s.tgtE[:0]
		} else {
			s.tgtE = s.tgtE[:c.cfg.SwapEvery]
		}
		jobs += len(s.ms)
	}
	run := c.runMember
	if c.tn != nil && c.tn.st.Phase == tuneRun {
		run = c.tuneMember
	}
	if c.pool != nil {
		c.pool.run(jobs, run)
	} else {
		for j := range jobs {
			run(j)
		}
	}
	if c.tn != nil && c.tn.st.Phase == tuneRun {
		c.tuneRecord()
	}
	if c.q != nil {
		a, b := c.sets[0].tgtS, c.sets[1].tgtS
		if c.cfg.Work > 0 {
			// The targets of the two sets ran their own numbers of steps:
			// step i of set 0's is paired with the step of set 1's at the
			// same fraction of the round (the same work done).
			n0, n1 := len(c.sets[0].tgtE), len(c.sets[1].tgtE)
			c.q = c.q[:0]
			for i := range n0 {
				j := ((i+1)*n1+n0-1)/n0 - 1
				c.q = append(c.q, overlap(a[i], b[j]))
			}
		} else {
			for i := range c.q {
				c.q[i] = overlap(a[i], b[i])
			}
		}
	}
	c.rounds++
	c.done += int64(len(c.sets[0].tgtE))
}

// runMember runs job j (member j%R of set j/R) for one round.
func (c *Chain) runMember(j int) {
	R := len(c.betas)
	s := c.sets[j/R]
	m := s.ms[j%R]
	if c.cfg.Work > 0 {
		c.runWork(s, m, m.pos == R-1, nil)
		return
	}
	isTarget := m.pos == R-1
	for i := 0; i < c.cfg.SwapEvery; i++ {
		m.ch.Step()
		if isTarget {
			s.tgtE[i] = m.ch.Energy()
			if s.spins {
				copy(s.tgtS[i], m.ch.Spins())
			}
		}
	}
}

// runWork runs member m of set s for one round of the work clock: steps
// until the proposed bit changes since the round began reach c.need,
// recording the target's energies and spins (isTarget) or every energy
// (into e, when not nil). Only the target's job writes its set's buffers.
func (c *Chain) runWork(s *set, m *member, isTarget bool, e *[]float64) {
	st := m.ch.Stats()
	var done int64
	for i := 0; done < c.need; i++ {
		m.ch.Step()
		if isTarget {
			s.tgtE = append(s.tgtE, m.ch.Energy())
			if s.spins {
				if i == len(s.tgtS) {
					s.tgtS = append(s.tgtS, make([]int8, c.n))
				}
				copy(s.tgtS[i], m.ch.Spins())
			}
		}
		if e != nil {
			*e = append(*e, m.ch.Energy())
		}
		next := m.ch.Stats()
		done += stepWork(st, next, c.n)
		st = next
	}
}

// stepWork is the work of one step that moved a chain's counters from a
// to b, in proposed single-bit changes: Flips, or Proposed where a chain
// has no Flips; a step that moved neither counts as a sweep (n), so that
// a chain without counters (blockgibbs, whose step is a sweep) still runs
// a round.
func stepWork(a, b sampler.Stats, n int) int64 {
	d := b.Flips - a.Flips
	if a.Flips < 0 || b.Flips < 0 {
		d = b.Proposed - a.Proposed
	}
	if d <= 0 {
		return int64(n)
	}
	return d
}
