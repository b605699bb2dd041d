package denseising

import "sardonics/dense"

// Table holds the integer pick weights of spins at both biases, as pairs
// w0 | w1<<32 (one 8-byte store per spin from the kernels), their sums
// per block of 64 spins and in all. Weights are below 2^31, so every sum
// is an exact uint64, updated in place and equal to the sum of the
// weights in any order (dense.Table with one layer). A taken spin has the
// pair 0; an available one never has (every weight is at least 1). The
// engine keeps one for all its spins; package parallelsaw's dense engine
// one per section.
type Table struct {
	W  []uint64    // [spin]
	Bs [2][]uint64 // [bias][block]
	Z  [2]uint64
}

// NewTable returns the table of n spins, every weight 0.
func NewTable(n int) *Table {
	nb := (n + blockBits - 1) / blockBits
	return &Table{W: make([]uint64, n), Bs: [2][]uint64{make([]uint64, nb), make([]uint64, nb)}}
}

// Update applies a flip of the spin with fixed-point couplings q (to
// these spins) to them, F += m q, and gives each its weights at tb from
// its class (s_j F_j), in one pass (the kernel of the package doc); taken
// spins get theirs like the others (TakeAll zeroes them). With row set, it
// also returns Dot32(row, s), computed in the same pass. Z is not
// updated: call Total.
func (t *Table) Update(tb *dense.Bias, s []int8, F []int32, q []int16, m int32, row []float32) float64 {
	return update(useAVX2, tb, s, F, q, t.W, m, t.Bs[0], t.Bs[1], row)
}

// Weigh gives every spin its weights at tb from its fixed-point field (as
// Update with no flip). Z is not updated: call Total.
func (t *Table) Weigh(tb *dense.Bias, s []int8, F []int32) {
	weigh(useAVX2, tb, s, F, t.W, t.Bs[0], t.Bs[1])
}

// Set gives spin l the weight pair p and updates the sums.
func (t *Table) Set(l int, p uint64) {
	bl := l / blockBits
	o := t.W[l]
	d0 := p&0xffffffff - o&0xffffffff // mod 2^64
	d1 := p>>32 - o>>32
	t.W[l] = p
	t.Bs[0][bl] += d0
	t.Bs[1][bl] += d1
	t.Z[0] += d0
	t.Z[1] += d1
}

// Take zeroes spin l's pair in the block sums and the pairs (not in Z).
func (t *Table) Take(l int) {
	p := t.W[l]
	t.Bs[0][l/blockBits] -= p & 0xffffffff
	t.Bs[1][l/blockBits] -= p >> 32
	t.W[l] = 0
}

// TakeAll is Take for the spins of path (a kernel pass gave every spin
// its weights, taken or not).
func (t *Table) TakeAll(path []int32) {
	for _, l := range path {
		t.Take(int(l))
	}
}

// Total recomputes Z from the block sums.
func (t *Table) Total() {
	var z0, z1 uint64
	b0, b1 := t.Bs[0], t.Bs[1][:len(t.Bs[0])]
	for i := range b0 {
		z0 += b0[i]
		z1 += b1[i]
	}
	t.Z = [2]uint64{z0, z1}
}

// Draw returns the spin at which the running sum of the weights at bias b
// first exceeds u (u < Z[b]): a block by its sum, then a spin in it, so
// spin l has probability w_b(l) / Z[b] for u uniform. It returns -1 when
// u >= Z[b].
func (t *Table) Draw(b int, u uint64) int {
	sh := uint(32 * b)
	for bl, z := range t.Bs[b] {
		if u >= z {
			u -= z
			continue
		}
		a := bl * blockBits
		for i, p := range t.W[a:min(a+blockBits, len(t.W))] {
			x := p >> sh & 0xffffffff
			if u < x {
				return a + i
			}
			u -= x
		}
		break // unreachable: the block sum is exact
	}
	return -1
}
