package baseline

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

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
//
// Each step draws two words from the chain's PCG to seed a step-local
// xoroshiro128+ (see sweep.go); every other random bit of the step comes
// from that generator, so the chain is a deterministic function of its PCG.
func NewSW(m *model.Model, beta float64, r *rand.PCG, init []int8) (sampler.Chain, error) {
	s, err := checkArgs(m, beta, init)
	if err != nil {
		return nil, err
	}
	is := m.Sparse()
	n := is.N
	s = append(s, 1) // the ghost, index n
	c := &sw{m: is, n: n, r: r, s: s, parent: make([]int32, n+1), flip: make([]int8, n+1),
		sf: make([]float64, n+1), win: make([]uint64, n+1)}
	c.setSpins()
	// Upper rows: spin i's neighbours j > i, then the ghost's row of fields.
	// Edges with w = 0 never bond and add no energy, so they are dropped.
	var js []int32
	var ws []float64
	addRun := func(i int32) {
		for a := 0; a < len(js); {
			b := a + 1
			for b < len(js) && js[b] == js[b-1]+1 {
				b++
			}
			if b-a >= minRun {
				c.addRun(i, js[a], ws[a:b], beta)
			} else {
				for k := a; k < b; k++ {
					c.addFlat(i, js[k], ws[k], beta)
				}
			}
			a = b
		}
		js, ws = js[:0], ws[:0]
	}
	for i := range n {
		for k := is.Start[i]; k < is.Start[i+1]; k++ {
			if j := is.Adj[k]; j > int32(i) && is.J[k] != 0 {
				js, ws = append(js, j), append(ws, is.J[k])
			}
		}
		addRun(int32(i))
	}
	for j, h := range is.H {
		if h != 0 {
			js, ws = append(js, int32(j)), append(ws, h)
		}
	}
	addRun(int32(n))
	c.bonds = make([]uint64, lanes*len(c.lane)/2+len(c.flat))
	rows := 0
	for _, b := range c.blocks {
		rows = max(rows, b.rows)
	}
	c.y = make([]float64, rows)
	c.e = c.energy()
	return c, nil
}

const (
	lanes  = 7                  // edges per SWAR word (byte lanes 0-6; lane 7 is idle)
	minRun = 4                  // shorter runs go to the flat list (about where a word pays; puts the small test models on both paths)
	hiBits = 7                  // threshold bits decided in the SWAR lanes
	loBits = 53 - hiBits        // bits drawn only when the lane compare ties
	hiMax  = 1<<hiBits - 1      // thresholds of 2^53 (p = 1) clamp to it; their ties always bond
	laneLo = 0x007F7F7F7F7F7F7F // the hiBits of lanes 0-6
	laneK  = 0x807F7F7F7F7F7F7F // see scanRun
	laneHi = 0x8080808080808080 // bit 7 of every lane
	sgnBit = 1 << 63            // flat edges: sign of J_ij in the threshold word
)

// sw keeps the edges in two forms. Runs (row i, neighbours j0, j0+1, ...,
// as in dense models such as RBMs, and the ghost's row) are decided seven
// at a time in byte lanes: each lane holds J's sign (bit 7) and the top
// hiBits of the bond threshold, compared with hiBits of a uniform draw;
// only a tie (probability 2^-7) draws the remaining loBits, so one random
// word serves seven edges while the decision is still draw < threshold on
// 53 bits. The remaining edges are a flat list, one draw per edge.
type sw struct {
	m       *model.Ising
	n       int
	r       *rand.PCG
	s       []int8    // len n+1; s[n] is the ghost, always +1
	sf      []float64 // s as float64, for the energy
	win     []uint64  // win[j]: s[j..j+7] as bytes (bit 7 set for -1)
	runs    []run
	blocks  []block
	lane    []uint64  // per run word: seven lanes of sign | hi threshold, then of the next 8 bits
	thrLane []uint64  // per run word, 8 lanes: the full 53-bit threshold (0 for padding)
	wRun    []float64 // per run word, 7 lanes: J (0 for padding)
	flat    []flatEdge
	wFlat   []float64
	parent  []int32   // parent, or -size for a root (union by size without a second array)
	flip    []int8    // per root: the factor applied to its cluster
	bonds   []uint64  // scratch: i<<32 | j for each bond this step
	y       []float64 // scratch for the energy
	e       float64
}

type run struct {
	i, j0, n int32 // edges i-j0 ... i-(j0+n-1)
	w0, w1   int32 // its words, lane[2*w0 : 2*w1]
}

// block is consecutive runs with the same columns (rows i0 ... i0+rows-1,
// as an RBM's visible rows), a matrix in wRun for the energy's Gemv.
type block struct {
	i0, rows, j0, n, k0, stride int
}

type flatEdge struct {
	i, j int32
	thr  uint64 // sgnBit if J < 0 | the 53-bit threshold
}

func (c *sw) addRun(i, j0 int32, w []float64, beta float64) {
	w0 := len(c.lane) / 2
	for k := 0; k < len(w); k += lanes {
		var word, next uint64
		for q := range lanes {
			thr, sg, wk := uint64(0), uint64(0), 0.0
			if k+q < len(w) {
				wk = w[k+q]
				thr = bondThreshold(beta, wk)
				if wk < 0 {
					sg = 0x80
				}
			}
			word |= (sg | min(thr>>loBits, hiMax)) << (8 * q)
			next |= min(thr>>(loBits-8), 1<<15-1) & 0xFF << (8 * q)
			c.thrLane = append(c.thrLane, thr)
			c.wRun = append(c.wRun, wk)
		}
		c.thrLane = append(c.thrLane, 0)
		c.lane = append(c.lane, word, next)
	}
	rn := run{i, j0, int32(len(w)), int32(w0), int32(len(c.lane) / 2)}
	c.runs = append(c.runs, rn)
	if nb := len(c.blocks); nb > 0 {
		if b := &c.blocks[nb-1]; b.i0+b.rows == int(i) && b.j0 == int(j0) && b.n == len(w) {
			b.rows++
			return
		}
	}
	c.blocks = append(c.blocks, block{int(i), 1, int(j0), len(w), lanes * w0, lanes * int(rn.w1-rn.w0)})
}

// bondThreshold is the threshold of a bond of coupling w: p = 1 -
// exp(-2 beta |w|). Zero couplings never get here (they are dropped when
// the rows are built), so an overflowing 2 beta gives p = 1, never NaN.
func bondThreshold(beta, w float64) uint64 {
	return threshold(-math.Expm1(-2 * beta * math.Abs(w)))
}

func (c *sw) addFlat(i, j int32, w, beta float64) {
	thr := bondThreshold(beta, w)
	if w < 0 {
		thr |= sgnBit
	}
	c.flat = append(c.flat, flatEdge{i, j, thr})
	c.wFlat = append(c.wFlat, w)
}

// setSpins refreshes sf and win from s.
func (c *sw) setSpins() {
	s, sf, win := c.s, c.sf, c.win[:len(c.s)]
	w := uint64(0)
	for j := len(s) - 1; j >= 0; j-- {
		sf[j] = float64(s[j])
		w = w<<8 | uint64(uint8(s[j]))
		win[j] = w
	}
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
	s, parent, flip := c.s, c.parent, c.flip
	for i := range parent {
		parent[i] = -1
	}
	x0, x1 := sweepRNG(c.r)
	nb := 0
	nb, x0, x1 = c.bondRuns(nb, x0, x1)
	nb, x0, x1 = c.bondFlat(nb, x0, x1)
	for _, b := range c.bonds[:nb] {
		a, b := c.find(int32(b>>32)), c.find(int32(uint32(b)))
		if a == b {
			continue
		}
		if parent[a] > parent[b] { // make a the larger root (sizes are stored negated)
			a, b = b, a
		}
		parent[a] += parent[b] // union by size
		parent[b] = a
	}
	// Every spin draws a factor, one bit each from the top 60 bits of a
	// word, and a cluster takes its root's: drawing only for roots would
	// branch on which spins are roots, which mispredicts. The ghost's root
	// is then pinned.
	for i0 := 0; i0 < len(flip); i0 += 60 {
		var u uint64
		u, x0, x1 = xoroshiro(x0, x1)
		for i := i0; i < min(i0+60, len(flip)); i++ {
			flip[i] = int8(u>>63)*2 - 1
			u <<= 1
		}
	}
	flip[c.find(int32(c.n))] = 1
	for i := range c.n {
		s[i] *= flip[c.find(int32(i))]
	}
	c.setSpins()
	c.e = c.energy()
}

// bondRuns decides the run edges seven lanes per word. scanRun skips the
// words where no lane can bond, which is most of them when bonds are rare
// (dense models), without branching per lane; tie settles the others.
func (c *sw) bondRuns(nb int, x0, x1 uint64) (int, uint64, uint64) {
	for _, rn := range c.runs {
		si := uint64(uint8(c.s[rn.i])>>7) * laneHi
		w, j := int(rn.w0), int(rn.j0)
		for w < int(rn.w1) {
			var k int
			var hit, le uint64
			k, hit, le, x0, x1 = scanRun(c.lane[2*w:2*int(rn.w1)], c.win[j:], si, x0, x1)
			if hit == 0 {
				break
			}
			w, j = w+k, j+lanes*k
			nb, x0, x1 = c.tie(nb, w, rn.i, int32(j), hit, le, x0, x1)
			w, j = w+1, j+lanes
		}
	}
	return nb, x0, x1
}

// scanRun returns the index of the first word with a lane whose edge is
// satisfied and whose draw r is at or below its hi threshold (bit 7 of
// the lane set in hit), with le (below) for that word; hit = 0 if none.
// Each word's draw supplies the lanes from bits 8 to 62: the lowest four
// bits of xoroshiro128+ are its weak ones. win[lanes*k] holds the spins of
// word k's edges, si the row spin's sign in every lane.
func scanRun(lane, win []uint64, si, x0, x1 uint64) (int, uint64, uint64, uint64, uint64) {
	for k := range len(lane) / 2 {
		t := lane[2*k]
		var u uint64
		u, x0, x1 = xoroshiro(x0, x1)
		// Every lane of r + laneK - (t's threshold) stays in [0, 0xFE]
		// (no carry or borrow crosses lanes), and its bit 7 is clear
		// exactly when r <= the threshold; the idle lane 7 is 0x80. Bit 7
		// of t ^ si ^ s is set for an unsatisfied edge.
		le := u>>8&laneLo + laneK - t&laneLo
		if hit := ^(le | (t ^ si ^ win[lanes*k])) & laneHi; hit != 0 {
			return k, hit, le, x0, x1
		}
	}
	return len(lane) / 2, 0, 0, x0, x1
}

// tie settles the lanes of word w (edges i-j ... i-(j+6)) set in hit.
// The low bits of a lane of le are all ones exactly when the draw equals
// the hi threshold: then the draw's low loBits come from a fresh word and
// are compared with the next 8 threshold bits (the word after w's, in the
// same cache line), and only if those tie too with the full threshold,
// whose table is too large to stay in the caches.
func (c *sw) tie(nb, w int, i, j int32, hit, le, x0, x1 uint64) (int, uint64, uint64) {
	for hit != 0 {
		sh := bits.TrailingZeros64(hit) - 7 // the lane's first bit
		hit &= hit - 1
		if le>>sh&hiMax == hiMax {
			var v uint64
			v, x0, x1 = xoroshiro(x0, x1)
			t := c.lane[2*w]>>sh&hiMax<<8 | c.lane[2*w+1]>>sh&0xFF // thr>>(loBits-8), clamped
			u := c.lane[2*w]>>sh&hiMax<<loBits | v>>(64-loBits)    // the 53-bit draw
			if d := int(u>>(loBits-8)) - int(t); d > 0 || d == 0 && u >= c.thrLane[w*8+sh/8] {
				continue
			}
		}
		c.bonds[nb] = uint64(i)<<32 | uint64(j+int32(sh/8))
		nb++
	}
	return nb, x0, x1
}

// bondFlat decides the flat edges, one 53-bit draw each, branch-free (bond
// decisions are coin flips, so a branch on them would mispredict).
func (c *sw) bondFlat(nb int, x0, x1 uint64) (int, uint64, uint64) {
	s, bonds := c.s, c.bonds
	for _, e := range c.flat {
		var u uint64
		u, x0, x1 = xoroshiro(x0, x1)
		// s_i ^ s_j is negative exactly when s_i s_j = -1.
		unsat := (uint64(int64(s[e.i]^s[e.j])) ^ e.thr) >> 63
		d := int64(u>>11) - int64(e.thr&^sgnBit&(unsat-1))
		bonds[nb] = uint64(e.i)<<32 | uint64(uint32(e.j))
		nb += int(uint64(d) >> 63)
	}
	return nb, x0, x1
}

// energy is computed exactly each step: SW changes too many spins for an
// incremental update to be cheaper. Blocks are matrix-vector products
// (padding lanes hold J = 0 and are outside the columns).
func (c *sw) energy() float64 {
	sf := c.sf
	e := 0.0
	vec := func(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Data: x, Inc: 1} }
	for _, b := range c.blocks {
		x := vec(sf[b.j0 : b.j0+b.n])
		if b.rows == 1 {
			e -= sf[b.i0] * blas64.Dot(vec(c.wRun[b.k0:b.k0+b.n]), x)
			continue
		}
		y := vec(c.y[:b.rows])
		a := blas64.General{Rows: b.rows, Cols: b.n, Stride: b.stride, Data: c.wRun[b.k0 : b.k0+(b.rows-1)*b.stride+b.n]}
		blas64.Gemv(blas.NoTrans, 1, a, x, 0, y)
		e -= blas64.Dot(y, vec(sf[b.i0:b.i0+b.rows]))
	}
	for k, f := range c.flat {
		e -= c.wFlat[k] * sf[f.i] * sf[f.j]
	}
	return e + c.m.Offset
}

func (c *sw) Energy() float64      { return c.e }
func (c *sw) Spins() []int8        { return c.s[:c.n] }
func (c *sw) Stats() sampler.Stats { return sampler.Stats{Flips: -1} }
