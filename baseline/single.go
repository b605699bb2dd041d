package baseline

import (
	"math"
	"math/rand/v2"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// NewGibbs returns a chain whose step is one systematic sweep (spins 0..M-1)
// of heat-bath updates: s_i = +1 with probability 1/(1+exp(-2 beta f_i)),
// f_i the local field. RBMs and dense models (model.UseDense) keep every
// local field incrementally; other models use the CSR form, with a table
// of probabilities when couplings are integer multiples of one unit.
func NewGibbs(m *model.Model, beta float64, r *rand.PCG, init []int8) (sampler.Chain, error) {
	return newSingle(m, beta, r, init, false)
}

// NewMetropolis is NewGibbs with Metropolis updates: flip s_i with
// probability min(1, exp(-beta dE_i)). Its Stats count every update as a
// proposal.
func NewMetropolis(m *model.Model, beta float64, r *rand.PCG, init []int8) (sampler.Chain, error) {
	return newSingle(m, beta, r, init, true)
}

func newSingle(m *model.Model, beta float64, r *rand.PCG, init []int8, metropolis bool) (sampler.Chain, error) {
	s, err := checkArgs(m, beta, init)
	if err != nil {
		return nil, err
	}
	if m.RBM != nil {
		return newRBMSingle(m.RBM, beta, r, s, metropolis), nil
	}
	if m.UseDense() {
		return newDenseSingle(m.DenseForm(), beta, r, s, metropolis), nil
	}
	return newSparseSingle(m.Sparse(), beta, r, s, metropolis), nil
}

// newSparseSingle is the single-site chain on the CSR form (s is the
// chain's own copy of the initial state).
func newSparseSingle(is *model.Ising, beta float64, r *rand.PCG, s []int8, metropolis bool) *single {
	c := &single{m: is, beta: beta, r: r, s: s, metropolis: metropolis, start: is.Start}
	if u, jInt, hInt, k, ok := integerForm(is); ok {
		c.table, c.u, c.jInt, c.hInt, c.k = true, u, jInt, hInt, k
		c.thr = make([]uint64, 2*k+1)
		c.setThresholds()
		c.nb = make([]nbr, len(jInt))
		for e := range c.nb {
			c.nb[e] = nbr{is.Adj[e], jInt[e]}
		}
		c.eInt = c.exactInt(c.s)
		c.setupFast()
	} else {
		c.nbF = make([]nbrF, len(is.J))
		for e := range c.nbF {
			c.nbF[e] = nbrF{is.Adj[e], is.J[e]}
		}
		c.e = is.Energy(s)
	}
	return c
}

// setThresholds fills the acceptance table (and the fast paths' copy) for
// c.beta.
func (c *single) setThresholds() {
	k := c.k
	for f := -k; f <= k; f++ {
		x := 2 * c.beta * c.u * float64(f)
		if f == 0 {
			x = 0 // 2 beta may overflow to +Inf, and Inf * 0 is NaN
		}
		if c.metropolis { // indexed by s_i f_i = dE/2
			c.thr[f+k] = threshold(math.Exp(-x))
		} else { // indexed by f_i: P(s_i = +1)
			c.thr[f+k] = threshold(1 / (1 + math.Exp(-x)))
		}
		if c.thr8 != nil {
			c.thr8[uint8(f)] = c.thr[f+k]
		}
	}
}

// SetBeta changes the inverse temperature (see sampler.Tempered).
func (c *single) SetBeta(beta float64) {
	c.beta = beta
	if c.table {
		c.setThresholds()
	}
}

// single is the sparse single-site chain. The table path keeps couplings,
// fields and the energy in integer units of u, so its energy is exact and
// never needs refreshing; the float path recomputes it every refreshEvery
// steps.
type single struct {
	m          *model.Ising
	beta       float64
	r          *rand.PCG
	s          []int8
	metropolis bool
	start      []int32

	table      bool
	u          float64
	jInt, hInt []int32
	nb         []nbr // CSR rows of (neighbour, coupling in units), packed for one bounds check
	k          int
	thr        []uint64
	eInt       int64
	rows4      []row4          // degree-4 rows, or nil
	rows6      []row6          // degree-6 rows, or nil
	thr8       *[256]uint64    // thr indexed by uint8(f), when K <= maxFast
	s16        *[fastSpan]int8 // the spins' buffer, for the fast paths

	nbF []nbrF // the same rows with real couplings, for the float path
	e   float64

	counters
}

type (
	nbr  struct{ j, w int32 }
	nbrF struct {
		j int32
		w float64
	}
)

func (c *single) Step() {
	var acc int64
	switch {
	case c.rows4 != nil && c.metropolis:
		acc = c.metropolis4()
	case c.rows4 != nil:
		c.gibbs4()
	case c.rows6 != nil && c.metropolis:
		acc = c.metropolis6()
	case c.rows6 != nil:
		c.gibbs6()
	case c.table && c.metropolis:
		acc = c.metropolisTable()
	case c.table:
		c.gibbsTable()
	case c.metropolis:
		acc = c.metropolisFloat()
	default:
		c.gibbsFloat()
	}
	c.sweep(int64(len(c.s)), acc, c.metropolis)
	if !c.table && c.steps%refreshEvery == 0 {
		c.e = c.m.Energy(c.s)
	}
}

func (c *single) Energy() float64 {
	if c.table {
		return c.m.Offset + c.u*float64(c.eInt)
	}
	return c.e
}

func (c *single) Spins() []int8 { return c.s }

func (c *single) Stats() sampler.Stats {
	return sampler.Stats{Flips: c.flips, Proposed: c.proposed, Accepted: c.accepted}
}

// exactInt is the energy at s in units of u, without Offset.
func (c *single) exactInt(s []int8) int64 {
	var twice int64 // 2E counts each pair twice
	for i, si := range s {
		f := 2 * int64(c.hInt[i])
		for e := c.start[i]; e < c.start[i+1]; e++ {
			f += int64(c.jInt[e]) * int64(s[c.m.Adj[e]])
		}
		twice -= int64(si) * f
	}
	return twice / 2
}

func (c *single) gibbsFloat() {
	s, start, nb, h, r := c.s, c.start, c.nbF, c.m.H, c.r
	h = h[:len(s)]
	start = start[:len(s)+1]
	lo := start[0]
	b2 := min(2*c.beta, math.MaxFloat64) // finite, so that b2 * 0 is 0
	dE := 0.0
	for i := range s {
		hi := start[i+1]
		f := h[i]
		for _, x := range nb[lo:hi] {
			f += x.w * float64(s[x.j])
		}
		lo = hi
		nw := int8(-1)
		if belowLogistic(rng.Float64(r), b2*f) {
			nw = 1
		}
		dE += float64(s[i]-nw) * f
		s[i] = nw
	}
	c.e += dE
}

func (c *single) metropolisFloat() int64 {
	s, start, nb, h, r := c.s, c.start, c.nbF, c.m.H, c.r
	h = h[:len(s)]
	start = start[:len(s)+1]
	lo := start[0]
	beta := c.beta
	dE := 0.0
	var acc int64
	for i := range s {
		hi := start[i+1]
		f := h[i]
		for _, x := range nb[lo:hi] {
			f += x.w * float64(s[x.j])
		}
		lo = hi
		d := 2 * float64(s[i]) * f
		if d > 0 && !belowExpNeg(rng.Float64(r), beta*d) {
			continue
		}
		s[i] = -s[i]
		dE += d
		acc++
	}
	c.e += dE
	return acc
}
