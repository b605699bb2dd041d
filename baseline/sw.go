package baseline

import (
	"math"
	"math/rand/v2"

	"sardonics/model"
	"sardonics/sampler"
)

// NewSW returns a Swendsen-Wang chain for any Ising model (RBMs and QUBOs
// through their exact Ising form). Fields are exact through a ghost spin g,
// fixed at +1 and coupled to spin i with coupling h_i. A step puts a bond on
// each satisfied edge (J_ij s_i s_j > 0, ghost edges included) with
// probability 1 - exp(-2 beta |J_ij|), finds the clusters by union-find and
// flips each cluster not containing the ghost with probability 1/2.
//
// Why this is exact: SW on the model plus ghost leaves exp(-beta E(s, g))
// invariant and that law is symmetric under a global flip, so mapping each
// state to the frame g = +1 (a global flip when g ended at -1) gives a chain
// on s with the original law. In that frame the ghost's cluster stays put
// and every other cluster is flipped with probability 1/2.
func NewSW(m *model.Model, beta float64, r *rand.PCG, init []int8) (sampler.Chain, error) {
	s, err := checkArgs(m, beta, init)
	if err != nil {
		return nil, err
	}
	is := m.Ising
	n := is.N
	s = append(s, 1) // the ghost, index n
	c := &sw{m: is, n: n, r: r, s: s, parent: make([]int32, n+1), flip: make([]int8, n+1)}
	add := func(i, j int32, w float64) {
		if w == 0 { // never satisfied strictly enough to bond: p = 0
			return
		}
		sg := int8(1)
		if w < 0 {
			sg = -1
		}
		c.ei = append(c.ei, i)
		c.ej = append(c.ej, j)
		c.sg = append(c.sg, sg)
		c.w = append(c.w, w)
		c.thr = append(c.thr, threshold(-math.Expm1(-2*beta*math.Abs(w))))
	}
	for _, e := range is.Edges() {
		add(e.I, e.J, e.W)
	}
	for i, h := range is.H {
		add(int32(i), int32(n), h)
	}
	c.bonds = make([]int32, len(c.ei))
	c.e = c.energy()
	return c, nil
}

// sw holds the edges (ghost edges last) as flat arrays: endpoints, the sign
// a satisfied edge has for s_i s_j, the coupling, and the bond threshold
// for a 53-bit uniform draw.
type sw struct {
	m      *model.Ising
	n      int
	r      *rand.PCG
	s      []int8 // len n+1; s[n] is the ghost, always +1
	ei, ej []int32
	sg     []int8
	w      []float64
	thr    []uint64
	parent []int32 // parent, or -size for a root (union by size without a second array)
	flip   []int8  // per root: the factor applied to its cluster
	bonds  []int32 // scratch: the edges bonded this step
	e      float64
}

func (c *sw) find(x int32) int32 {
	parent := c.parent
	for {
		p := parent[x]
		if p < 0 {
			return x
		}
		g := parent[p]
		if g < 0 {
			return p
		}
		parent[x] = g // path halving
		x = g
	}
}

func (c *sw) Step() {
	s, parent, flip, r := c.s, c.parent, c.flip, c.r
	for i := range parent {
		parent[i] = -1
	}
	ei, ej, sg, thr := c.ei, c.ej[:len(c.ei)], c.sg[:len(c.ei)], c.thr[:len(c.ei)]
	// Bond decisions are coin flips, so a branch on them mispredicts about
	// half the time: decide them branch-free (one draw per edge) into a
	// list, then join.
	bonds := c.bonds[:len(ei)]
	nb := 0
	for e, i := range ei {
		sat := uint64(s[i]*s[ej[e]]*sg[e]) >> 63 // 1 when unsatisfied
		d := int64(r.Uint64()>>11) - int64(thr[e]&(sat-1))
		bonds[nb] = int32(e)
		nb += int(uint64(d) >> 63)
	}
	for _, e := range bonds[:nb] {
		a, b := c.find(ei[e]), c.find(ej[e])
		if a == b {
			continue
		}
		if parent[a] > parent[b] { // make a the larger root (sizes are stored negated)
			a, b = b, a
		}
		parent[a] += parent[b] // union by size
		parent[b] = a
	}
	// Every root draws its factor, 63 per random word (the top bit is a
	// sentinel: bits == 1 means used up); the ghost's root is then pinned.
	bits := uint64(1)
	for i, p := range parent {
		if p < 0 {
			if bits == 1 {
				bits = r.Uint64()>>1 | 1<<63
			}
			flip[i] = int8(bits&1)*2 - 1
			bits >>= 1
		}
	}
	flip[c.find(int32(c.n))] = 1
	for i := range c.n {
		s[i] *= flip[c.find(int32(i))]
	}
	c.e = c.energy()
}

// energy is computed exactly from the edges each step: it costs about as
// much as one pass of the bond loop, and SW changes too many spins for an
// incremental update to be cheaper.
func (c *sw) energy() float64 {
	s := c.s
	ej, w := c.ej[:len(c.ei)], c.w[:len(c.ei)]
	e := 0.0
	for k, i := range c.ei {
		e -= w[k] * float64(s[i]*s[ej[k]])
	}
	return e + c.m.Offset
}

func (c *sw) Energy() float64      { return c.e }
func (c *sw) Spins() []int8        { return c.s[:c.n] }
func (c *sw) Stats() sampler.Stats { return sampler.Stats{Flips: -1} }
