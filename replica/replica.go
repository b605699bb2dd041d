package replica

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/rng"
	"sardonics/sampler"
)

// Builder makes one member chain at inverse temperature beta from the
// spins init, drawing only from r; the function it returns releases the
// chain's resources.
type Builder func(beta float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error)

// Config is a replica-exchange chain's ladder and schedule.
type Config struct {
	Betas     []float64 // the starting ladder, strictly increasing; the last is the target
	SwapEvery int       // member steps between swap rounds (>= 1)
	Adapt     int       // steps during which the ladder adapts (0: fixed)
	CountFrom int       // steps after which swaps and round trips are counted (the burn-in)
	Sets      int       // independent ladders: 1, or 2 for the overlap
	Workers   int       // goroutines that step the members between swaps (<= 1: the caller's)
	CPUs      []int     // CPUs for workers 1..Workers-1 (optional; index 0 is the caller's)
	KeepSpins bool      // make Spins right at every step (else only at round ends)
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
	if cfg.SwapEvery < 1 || cfg.Adapt < 0 || cfg.CountFrom < 0 || cfg.Sets != 1 && cfg.Sets != 2 {
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
	tgtE  []float64 // target energy after each step of the round
	tgtS  [][]int8  // target spins after each step of the round (kept when needed)
	acc   []int64   // accepted swaps of pair (k, k+1), counted after CountFrom
	tries []int64   // proposed swaps of pair (k, k+1), counted after CountFrom
	trips int64     // round trips hottest -> target -> hottest, counted after CountFrom
	walk  []int16   // set 0: rung of member 0 after each round
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
	idx    int       // steps of the current round already returned
	q      []float64 // overlap after each step of the round (Sets = 2)
	// adaptation: swaps of each pair since the ladder last moved, and the
	// round of the next move
	aAcc, aTries []int64
	nextAdapt    int64
	pool         *pool
}

var (
	_ sampler.Stateful = (*Chain)(nil)
)

// brokenSwap drops the temperature difference from the swap rule (tests
// use it to show that the exact-enumeration check catches a wrong rule).
var brokenSwap = false

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
		aAcc: make([]int64, R-1), aTries: make([]int64, R-1), nextAdapt: 32}
	keep := cfg.KeepSpins || cfg.Sets == 2
	// The members' streams come from a copy of r, so r is not advanced: a
	// caller that restores r and then rebuilds the chain to restore its
	// state continues exactly. rng.Sub mixes the copy's draw, so the
	// members' streams are unrelated to the swap decisions r makes.
	rc := *r
	base := rc.Uint64()
	for si := 0; si < cfg.Sets; si++ {
		s := &set{at: make([]int, R), tgtE: make([]float64, 0, cfg.SwapEvery), acc: make([]int64, R-1),
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
			s.at[k] = k
		}
		if keep {
			s.tgtS = make([][]int8, cfg.SwapEvery)
			for i := range s.tgtS {
				s.tgtS[i] = make([]int8, len(init))
			}
		}
	}
	if cfg.Sets == 2 {
		c.q = make([]float64, cfg.SwapEvery)
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

// Step advances every member by one step; every SwapEvery steps the swap
// round follows. Members run a whole round ahead: Energy, Spins and
// Overlap replay the target's values step by step.
func (c *Chain) Step() {
	if c.idx == 0 || c.idx == c.cfg.SwapEvery {
		if c.rounds > 0 {
			c.swapRound()
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

func overlap(a, b []int8) float64 {
	var s int
	for i, x := range a {
		s += int(x) * int(b[i])
	}
	return float64(s) / float64(len(a))
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

// runRound steps every member SwapEvery times, recording each set's
// target.
func (c *Chain) runRound() {
	var jobs []*member
	for _, s := range c.sets {
		s.tgtE = s.tgtE[:c.cfg.SwapEvery]
		jobs = append(jobs, s.ms...)
	}
	if c.pool != nil {
		c.pool.run(len(jobs), func(j int) { c.runMember(j) })
	} else {
		for j := range jobs {
			c.runMember(j)
		}
	}
	if c.q != nil {
		a, b := c.sets[0].tgtS, c.sets[1].tgtS
		for i := range c.q {
			c.q[i] = overlap(a[i], b[i])
		}
	}
	c.rounds++
}

// runMember runs job j (member j%R of set j/R) for one round.
func (c *Chain) runMember(j int) {
	R := len(c.betas)
	s := c.sets[j/R]
	m := s.ms[j%R]
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

// swapRound proposes the swaps of the even or odd pairs (alternating by
// round), counts them, tracks round trips and moves the ladder while it
// adapts.
func (c *Chain) swapRound() {
	R := len(c.betas)
	end := c.rounds * int64(c.cfg.SwapEvery) // steps done
	count := end > int64(c.cfg.CountFrom)
	adapt := end <= int64(c.cfg.Adapt)
	for _, s := range c.sets {
		for k := int((c.rounds - 1) & 1); k+1 < R; k += 2 {
			a, b := s.ms[s.at[k]], s.ms[s.at[k+1]]
			x := (c.betas[k] - c.betas[k+1]) * (a.ch.Energy() - b.ch.Energy())
			if brokenSwap {
				x = a.ch.Energy() - b.ch.Energy()
			}
			ok := x >= 0 || rng.Float64(c.r) < math.Exp(x)
			if count {
				s.tries[k]++
			}
			if adapt {
				c.aTries[k]++
			}
			if !ok {
				continue
			}
			if count {
				s.acc[k]++
			}
			if adapt {
				c.aAcc[k]++
			}
			s.at[k], s.at[k+1] = s.at[k+1], s.at[k]
			a.pos, b.pos = k+1, k
			a.ch.SetBeta(c.betas[k+1])
			b.ch.SetBeta(c.betas[k])
		}
		for _, m := range s.ms {
			switch {
			case m.pos == 0:
				if m.dir == -1 && count {
					s.trips++
				}
				m.dir = 1
			case m.pos == R-1 && m.dir == 1:
				m.dir = -1
			}
		}
	}
	c.sets[0].walk = append(c.sets[0].walk, int16(c.sets[0].ms[0].pos))
	if adapt && c.rounds >= c.nextAdapt {
		c.moveLadder()
		c.nextAdapt *= 2
	}
}

// moveLadder places the inner rungs at equal lengths erfcinv(a_k) (see
// the package comment) from the swaps since the last move, and tells the
// members their new temperatures.
func (c *Chain) moveLadder() {
	nb := Adapted(c.betas, c.aAcc, c.aTries)
	copy(c.betas, nb)
	for _, s := range c.sets {
		for _, m := range s.ms {
			m.ch.SetBeta(c.betas[m.pos])
		}
	}
	clear(c.aAcc)
	clear(c.aTries)
}

// Adapted is the ladder that gives every interval the same length
// erfcinv(a_k), a_k = acc[k]/tries[k] clamped to [0.001, 0.999] (0.5
// where there were no tries), the length being spread evenly in beta
// within each interval. The ends stay where they are.
func Adapted(betas []float64, acc, tries []int64) []float64 {
	R := len(betas)
	cum := make([]float64, R)
	for k := 0; k+1 < R; k++ {
		a := 0.5
		if tries[k] > 0 {
			a = float64(acc[k]) / float64(tries[k])
		}
		a = min(max(a, 0.001), 0.999)
		cum[k+1] = cum[k] + math.Erfcinv(a)
	}
	out := make([]float64, R)
	out[0], out[R-1] = betas[0], betas[R-1]
	k := 0
	for j := 1; j+1 < R; j++ {
		l := cum[R-1] * float64(j) / float64(R-1)
		for k+2 < R && cum[k+1] < l {
			k++
		}
		f := (l - cum[k]) / (cum[k+1] - cum[k])
		out[j] = betas[k] + f*(betas[k+1]-betas[k])
	}
	for j := 1; j < R; j++ { // rounding must not break the order
		if !(out[j] > out[j-1]) {
			return append([]float64(nil), betas...)
		}
	}
	return out
}

// Report is what a trial's stats.json says about its replica exchange.
type Report struct {
	Ladder         []float64  `json:"ladder"`          // inverse temperatures, hottest first (after adaptation)
	SwapEvery      int        `json:"swap_every"`      // steps between swap rounds
	SwapAcceptance []*float64 `json:"swap_acceptance"` // of each neighbouring pair after burn-in (null: never proposed)
	RoundTrips     int64      `json:"round_trips"`     // hottest -> target -> hottest after burn-in, all members
	Sets           int        `json:"sets"`
	Walk           []int16    `json:"-"` // the rung of set 0's member 0 after each round
}

// Report summarizes the swaps so far.
func (c *Chain) Report() *Report {
	R := len(c.betas)
	rep := &Report{Ladder: append([]float64(nil), c.betas...), SwapEvery: c.cfg.SwapEvery, Sets: c.cfg.Sets,
		SwapAcceptance: make([]*float64, R-1), Walk: append([]int16(nil), c.sets[0].walk...)}
	for k := 0; k+1 < R; k++ {
		var acc, tries int64
		for _, s := range c.sets {
			acc += s.acc[k]
			tries += s.tries[k]
		}
		if tries > 0 {
			v := float64(acc) / float64(tries)
			rep.SwapAcceptance[k] = &v
		}
	}
	for _, s := range c.sets {
		rep.RoundTrips += s.trips
	}
	return rep
}
