package baseline

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// The table path's sweeps draw their uniforms from a sweep-local
// xoroshiro128+ generator (Blackman and Vigna 2018) whose 128-bit state is
// two draws from the chain's *rand.PCG at the start of each sweep. The
// chain therefore stays a deterministic function of its PCG stream (two
// PCG draws per sweep), while the per-spin generator lives in two
// registers instead of being loaded and stored through a pointer for every
// spin. Only the top 53 bits of each output are used (compared with
// threshold's integer thresholds), which are the bits xoroshiro128+ is
// recommended for; its weak low bits are discarded. Sweeps are far shorter
// than the generator's period (2^128 - 1), and successive sweeps start
// from independent PCG draws.

// sweepRNG returns the sweep-local generator state drawn from r.
func sweepRNG(r *rand.PCG) (x0, x1 uint64) {
	x0, x1 = r.Uint64(), r.Uint64()
	if x0|x1 == 0 { // the one state xoroshiro cannot leave
		x1 = 0x9e3779b97f4a7c15
	}
	return x0, x1
}

// xoroshiro is one xoroshiro128+ step: the output and the next state.
// It inlines, so callers keep the state in locals.
func xoroshiro(x0, x1 uint64) (out, y0, y1 uint64) {
	out = x0 + x1
	x1 ^= x0
	return out, bits.RotateLeft64(x0, 24) ^ x1 ^ (x1 << 16), bits.RotateLeft64(x1, 37)
}

// Rows of the regular-degree fast paths: spin i's field and its d
// neighbours as 16-bit indices into s16, a view of the spins as a 2^16-byte
// array, so neither the row nor the neighbours' spins need bounds checks.
// Weights stay int32: Go folds no sign-extending indexed loads. thr8 is the
// threshold table indexed by uint8(f) (uint8(s_i f_i) for Metropolis), so
// negative values wrap to the top half and the index needs no offset or
// bounds check.
type (
	row4 struct {
		h int32
		j [4]uint16
		w [4]int32
		_ int32 // 32 bytes: the row address is a shift
	}
	row6 struct {
		h int32
		j [6]uint16
		w [6]int32
	}
)

const (
	maxFast  = 127     // largest K of the fast paths
	fastSpan = 1 << 16 // most spins of the fast paths
)

// setupFast fills the rows, s16 and thr8 when every spin has degree 4 or 6,
// K <= maxFast and there are at most fastSpan spins; otherwise the generic
// CSR sweep is used. The spins move into a fastSpan-byte buffer (c.s stays
// its first n bytes).
func (c *single) setupFast() {
	n := len(c.s)
	if c.k > maxFast || n == 0 || n > fastSpan {
		return
	}
	d := c.start[1] - c.start[0]
	if d != 4 && d != 6 {
		return
	}
	for i := range n {
		if c.start[i+1]-c.start[i] != d {
			return
		}
	}
	buf := make([]int8, fastSpan)
	copy(buf, c.s)
	c.s, c.s16 = buf[:n:n], (*[fastSpan]int8)(buf)
	c.thr8 = new([256]uint64)
	c.setThresholds()
	if d == 4 {
		c.rows4 = make([]row4, n)
		for i := range c.rows4 {
			r := &c.rows4[i]
			r.h = c.hInt[i]
			for e, x := range c.sweepOrder(i) {
				r.j[e], r.w[e] = uint16(x.j), x.w
			}
		}
	} else {
		c.rows6 = make([]row6, n)
		for i := range c.rows6 {
			r := &c.rows6[i]
			r.h = c.hInt[i]
			for e, x := range c.sweepOrder(i) {
				r.j[e], r.w[e] = uint16(x.j), x.w
			}
		}
	}
}

// sweepOrder is row i's neighbours with those updated latest in a sweep
// last (j > i first, then j < i ascending, so i-1 ends the row): the
// spin just written then enters the field through one add, which shortens
// the dependency chain from one update to the next. Integer sums are exact
// in any order.
func (c *single) sweepOrder(i int) []nbr {
	row := slices.Clone(c.nb[c.start[i]:c.start[i+1]])
	n := len(c.s)
	key := func(x nbr) int { return (int(x.j) - i + n) % n }
	slices.SortStableFunc(row, func(a, b nbr) int { return key(a) - key(b) })
	return row
}

// gibbsTable is branch-free in the draw: heat-bath outcomes are random, so
// a branch on them would mispredict half the time.
func (c *single) gibbsTable() {
	s, start, nb, h, thr, k := c.s, c.start, c.nb, c.hInt, c.thr, c.k
	h = h[:len(s)]
	start = start[:len(s)+1]
	x0, x1 := sweepRNG(c.r)
	var u uint64
	var dE int64
	lo := start[0]
	for i := range s {
		hi := start[i+1]
		f := h[i]
		for _, x := range nb[lo:hi] {
			f += x.w * int32(s[x.j])
		}
		lo = hi
		u, x0, x1 = xoroshiro(x0, x1)
		d := int64(u>>11) - int64(thr[int(f)+k])
		nw := int8(-1 - 2*(d>>63)) // d>>63 is -1 exactly when the draw is below P(up)
		dE += int64(s[i]-nw) * int64(f)
		s[i] = nw
	}
	c.eInt += dE
}

func (c *single) metropolisTable() int64 {
	s, start, nb, h, thr, k := c.s, c.start, c.nb, c.hInt, c.thr, c.k
	h = h[:len(s)]
	start = start[:len(s)+1]
	x0, x1 := sweepRNG(c.r)
	var u uint64
	var dE, acc int64
	lo := start[0]
	for i := range s {
		hi := start[i+1]
		f := h[i]
		for _, x := range nb[lo:hi] {
			f += x.w * int32(s[x.j])
		}
		lo = hi
		sf := int32(s[i]) * f // dE/2 in units
		// Branch-free: thr is 2^53 (always accept) for sf <= 0, so one draw
		// per spin costs less than mispredicting a data-dependent branch.
		u, x0, x1 = xoroshiro(x0, x1)
		a := -((int64(u>>11) - int64(thr[int(sf)+k])) >> 63) // 1 if accepted
		s[i] *= int8(1 - 2*a)
		dE += 2 * a * int64(sf)
		acc += a
	}
	c.eInt += dE
	return acc
}

// The fast sweeps below are gibbsTable and metropolisTable with the
// neighbour loop unrolled; they consume the same draws and give identical
// results (TestFastPathsMatchGeneric).

func (c *single) gibbs4() {
	rows, thr, sa := c.rows4, c.thr8[:], c.s16[:] // slices of constant length: one nil check
	s := c.s[:len(rows)]
	x0, x1 := sweepRNG(c.r)
	var u uint64
	var dE int64
	for i := range rows {
		r := &rows[i]
		f := r.h + r.w[0]*int32(sa[r.j[0]]) + r.w[1]*int32(sa[r.j[1]]) +
			r.w[2]*int32(sa[r.j[2]]) + r.w[3]*int32(sa[r.j[3]])
		u, x0, x1 = xoroshiro(x0, x1)
		m := int8((int64(u>>11) - int64(thr[uint8(f)])) >> 63) // -1 when the draw is below P(up)
		nw := ^m | 1
		dE += int64(s[i]-nw) * int64(f)
		s[i] = nw
	}
	c.eInt += dE
}

func (c *single) gibbs6() {
	rows, thr, sa := c.rows6, c.thr8[:], c.s16[:] // slices of constant length: one nil check
	s := c.s[:len(rows)]
	x0, x1 := sweepRNG(c.r)
	var u uint64
	var dE int64
	for i := range rows {
		r := &rows[i]
		f := r.h + r.w[0]*int32(sa[r.j[0]]) + r.w[1]*int32(sa[r.j[1]]) +
			r.w[2]*int32(sa[r.j[2]]) + r.w[3]*int32(sa[r.j[3]]) +
			r.w[4]*int32(sa[r.j[4]]) + r.w[5]*int32(sa[r.j[5]])
		u, x0, x1 = xoroshiro(x0, x1)
		m := int8((int64(u>>11) - int64(thr[uint8(f)])) >> 63)
		nw := ^m | 1
		dE += int64(s[i]-nw) * int64(f)
		s[i] = nw
	}
	c.eInt += dE
}

func (c *single) metropolis4() int64 {
	rows, thr, sa := c.rows4, c.thr8[:], c.s16[:] // slices of constant length: one nil check
	s := c.s[:len(rows)]
	x0, x1 := sweepRNG(c.r)
	var u uint64
	var dE, acc int64
	for i := range rows {
		r := &rows[i]
		f := r.h + r.w[0]*int32(sa[r.j[0]]) + r.w[1]*int32(sa[r.j[1]]) +
			r.w[2]*int32(sa[r.j[2]]) + r.w[3]*int32(sa[r.j[3]])
		si := s[i]
		ms := int32(si) >> 31
		sf := f ^ ms - ms // s_i f_i without a multiply on the dependency chain
		u, x0, x1 = xoroshiro(x0, x1)
		m := (int64(u>>11) - int64(thr[uint8(sf)])) >> 63 // -1 if accepted
		s[i] = si ^ int8(m)&-2                            // flips +-1
		dE += m & int64(sf)
		acc -= m
	}
	c.eInt += 2 * dE
	return acc
}

func (c *single) metropolis6() int64 {
	rows, thr, sa := c.rows6, c.thr8[:], c.s16[:] // slices of constant length: one nil check
	s := c.s[:len(rows)]
	x0, x1 := sweepRNG(c.r)
	var u uint64
	var dE, acc int64
	for i := range rows {
		r := &rows[i]
		f := r.h + r.w[0]*int32(sa[r.j[0]]) + r.w[1]*int32(sa[r.j[1]]) +
			r.w[2]*int32(sa[r.j[2]]) + r.w[3]*int32(sa[r.j[3]]) +
			r.w[4]*int32(sa[r.j[4]]) + r.w[5]*int32(sa[r.j[5]])
		si := s[i]
		ms := int32(si) >> 31
		sf := f ^ ms - ms // s_i f_i without a multiply on the dependency chain
		u, x0, x1 = xoroshiro(x0, x1)
		m := (int64(u>>11) - int64(thr[uint8(sf)])) >> 63 // -1 if accepted
		s[i] = si ^ int8(m)&-2                            // flips +-1
		dE += m & int64(sf)
		acc -= m
	}
	c.eInt += 2 * dE
	return acc
}
