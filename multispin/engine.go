package multispin

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"sardonics/model"
)

// Lanes is the number of chains an Engine runs: one per bit of a word.
const Lanes = 64

// maxDegree bounds a site's bonds, field included, so that its count of
// unsatisfied bonds fits the four bit-sliced counter words.
const maxDegree = 15

// Engine is 64 Metropolis chains of +-J instances on one graph, packed
// one spin of every chain per word (see the package comment).
type Engine struct {
	n          int
	start, adj []int32
	neg        []uint64 // per adjacency entry: bit b set where chain b's coupling is -a
	hOn, hNeg  []uint64 // per site: chain b has a field (hOn), of sign - (hNeg)
	a          float64  // the couplings' magnitude
	offset     []float64
	bonds      int // bonds of the graph (each pair once)
	x          []uint64
	beta       float64
	q          [2*maxDegree + 2]uint64 // q[k]: exp(-2 beta a k) as a 64-bit binary fraction
	r          *rand.PCG               // the random words
	sweeps     int64
}

// New builds the 64 chains of instances (one instance for all 64 chains,
// or 64 instances, one per chain, on one graph) at inverse temperature
// beta, each chain starting at the spins its bit of init gives (nil:
// states drawn from r). Every coupling must be +-a for one a > 0 and
// every field 0 or +-a.
func New(instances []*model.Ising, beta float64, r *rand.PCG, init []uint64) (*Engine, error) {
	if len(instances) != 1 && len(instances) != Lanes {
		return nil, fmt.Errorf("multispin: %d instances (expected 1 or %d)", len(instances), Lanes)
	}
	m0 := instances[0]
	e := &Engine{n: m0.N, start: m0.Start, adj: m0.Adj, neg: make([]uint64, len(m0.Adj)),
		hOn: make([]uint64, m0.N), hNeg: make([]uint64, m0.N), offset: make([]float64, Lanes), r: r}
	for k := range m0.Adj {
		if e.a == 0 {
			e.a = math.Abs(m0.J[k])
		}
	}
	if !(e.a > 0) || math.IsInf(e.a, 0) {
		return nil, errors.New("multispin: the model has no nonzero finite coupling")
	}
	for i := range m0.N {
		if d := int(m0.Start[i+1]-m0.Start[i]) + 1; d > maxDegree {
			return nil, fmt.Errorf("multispin: site %d has %d bonds with its field (at most %d)", i, d, maxDegree)
		}
	}
	e.bonds = len(m0.Adj) / 2
	for b := range Lanes {
		m := instances[b%len(instances)]
		if m.N != m0.N || !slices.Equal(m.Start, m0.Start) || !slices.Equal(m.Adj, m0.Adj) {
			return nil, fmt.Errorf("multispin: instance %d is on another graph than instance 0", b)
		}
		bit := uint64(1) << b
		for k, j := range m.J {
			switch j {
			case e.a:
			case -e.a:
				e.neg[k] |= bit
			default:
				return nil, fmt.Errorf("multispin: instance %d has coupling %g (expected +-%g)", b, j, e.a)
			}
		}
		for i, h := range m.H {
			switch h {
			case 0:
			case e.a:
				e.hOn[i] |= bit
			case -e.a:
				e.hOn[i] |= bit
				e.hNeg[i] |= bit
			default:
				return nil, fmt.Errorf("multispin: instance %d has field %g at site %d (expected 0 or +-%g)", b, h, i, e.a)
			}
		}
		e.offset[b] = m.Offset
	}
	e.x = make([]uint64, e.n)
	if init != nil {
		if len(init) != e.n {
			return nil, fmt.Errorf("multispin: %d start words for %d sites", len(init), e.n)
		}
		copy(e.x, init)
	} else {
		for i := range e.x {
			e.x[i] = r.Uint64()
		}
	}
	e.SetBeta(beta)
	return e, nil
}

// SetBeta sets the chains' inverse temperature.
func (e *Engine) SetBeta(beta float64) {
	e.beta = beta
	for k := range e.q {
		e.q[k] = fraction64(math.Exp(-2 * beta * e.a * float64(k)))
	}
}

// fraction64 is p in [0, 1] as a 64-bit binary fraction, rounded down
// (1 as all ones: within 2^-64).
func fraction64(p float64) uint64 {
	switch {
	case !(p > 0):
		return 0
	case p >= 1:
		return math.MaxUint64
	}
	// p = f 2^exp with f in [0.5, 1): its 53 mantissa bits, shifted.
	f, ex := math.Frexp(p)
	m := uint64(f * (1 << 53)) // exact
	s := 64 - 53 + ex          // p * 2^64 = m * 2^(11 + ex), ex <= 0
	if s >= 0 {
		return m << uint(s)
	}
	if -s >= 64 {
		return 0
	}
	return m >> uint(-s)
}

// Sweep updates every site of every chain once, in order.
func (e *Engine) Sweep() {
	x, neg, adj := e.x, e.neg, e.adj
	for i := range e.n {
		xi := x[i]
		var c0, c1, c2, c3 uint64 // bit-sliced count of unsatisfied bonds
		lo, hi := e.start[i], e.start[i+1]
		for k := lo; k < hi; k++ {
			c0, c1, c2, c3 = add4(c0, c1, c2, c3, xi^x[adj[k]]^neg[k])
		}
		on := e.hOn[i]
		if on != 0 { // the field: a bond to a ghost spin at +1
			c0, c1, c2, c3 = add4(c0, c1, c2, c3, (xi^e.hNeg[i])&on)
		}
		x[i] = xi ^ e.decide(int(hi-lo), on, c0, c1, c2, c3)
	}
	e.sweeps++
}

// add4 adds the bits of v to the bit-sliced 4-bit counters c0..c3 (a
// ripple-carry adder per lane; counts stay below 16, see maxDegree).
func add4(c0, c1, c2, c3, v uint64) (uint64, uint64, uint64, uint64) {
	t0 := c0 & v
	t1 := c1 & t0
	t2 := c2 & t1
	return c0 ^ v, c1 ^ t0, c2 ^ t1, c3 ^ t2
}

// decide is the mask of chains that flip a site of deg bonds (and a field
// where on is set) whose unsatisfied bonds are counted in c0..c3: every
// chain with dE <= 0, and each uphill one with probability
// exp(-beta dE), decided digit by digit (see the package comment).
func (e *Engine) decide(deg int, on, c0, c1, c2, c3 uint64) uint64 {
	// Classes of uphill chains: u unsatisfied with 2u < d, d = deg + f.
	var mask [2 * (maxDegree + 1)]uint64
	var q [2 * (maxDegree + 1)]uint64
	nc := 0
	var uphill uint64
	for u := 0; 2*u < deg+1; u++ {
		eq := ^(c0 ^ -uint64(u&1)) & ^(c1 ^ -uint64(u>>1&1)) & ^(c2 ^ -uint64(u>>2&1)) & ^(c3 ^ -uint64(u>>3&1))
		if eq == 0 {
			continue
		}
		for f := range 2 {
			k := deg + f - 2*u
			if k <= 0 {
				continue
			}
			m := eq & ^on
			if f == 1 {
				m = eq & on
			}
			if m != 0 {
				mask[nc], q[nc] = m, e.q[k]
				nc++
				uphill |= m
			}
		}
	}
	flip := ^uphill
	und := uphill
	top := 0 // every p's digits above top are 0
	for c := range nc {
		top = max(top, bits.Len64(q[c]))
	}
	for t := 63; und != 0 && t >= 0; t-- {
		r := e.r.Uint64()
		if brokenShared {
			r = -(r & 1)
		}
		if t >= top { // p's digit is 0: a chain whose digit is 1 rejects
			und &= ^r
			continue
		}
		var p uint64 // digit t of each undecided chain's p
		for c := range nc {
			p |= mask[c] & -(q[c] >> uint(t) & 1)
		}
		flip |= und & ^r & p
		und &= ^(r ^ p)
	}
	return flip
}

// Energies appends each chain's energy to dst.
func (e *Engine) Energies(dst []float64) []float64 {
	// Count each chain's unsatisfied bonds and fields in a bit-sliced
	// counter of enough words, then read the lanes out.
	w := bits.Len(uint(e.bonds + e.n))
	cnt := make([]uint64, w)
	add := func(v uint64) {
		for j := 0; v != 0 && j < w; j++ {
			cnt[j], v = cnt[j]^v, cnt[j]&v
		}
	}
	nf := make([]int, Lanes)
	for i := range e.n {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			if j := e.adj[k]; int(j) > i {
				add(e.x[i] ^ e.x[j] ^ e.neg[k])
			}
		}
		add((e.x[i] ^ e.hNeg[i]) & e.hOn[i])
		for b := range Lanes {
			nf[b] += int(e.hOn[i] >> b & 1)
		}
	}
	for b := range Lanes {
		u := 0
		for j := range w {
			u += int(cnt[j]>>b&1) << j
		}
		// E = -a (satisfied - unsatisfied) = a (2u - bonds).
		dst = append(dst, e.a*float64(2*u-e.bonds-nf[b])+e.offset[b])
	}
	return dst
}

// Spins writes chain b's spins (+-1) into dst.
func (e *Engine) Spins(b int, dst []int8) {
	for i, w := range e.x {
		dst[i] = 1 - 2*int8(w>>b&1)
	}
}

// Sites is the number of spins of each chain.
func (e *Engine) Sites() int { return e.n }

// Sweeps is the sweeps made.
func (e *Engine) Sweeps() int64 { return e.sweeps }
