package denseising

// table holds the integer pick weights of the spins at both biases, as
// pairs w0 | w1<<32 (one 8-byte store per spin from the kernels), their
// sums per block of 64 spins and in all. Weights are below 2^31, so every
// sum is an exact uint64, updated in place and equal to the sum of the
// weights in any order (dense.Table with one layer). A taken spin has the
// pair 0; an available one never has (every weight is at least 1).
type table struct {
	w  []uint64    // [spin]
	bs [2][]uint64 // [bias][block]
	z  [2]uint64
}

func newTable(n int) *table {
	nb := (n + blockBits - 1) / blockBits
	return &table{w: make([]uint64, n), bs: [2][]uint64{make([]uint64, nb), make([]uint64, nb)}}
}

// set gives spin l the weight pair p and updates the sums.
func (t *table) set(l int, p uint64) {
	bl := l / blockBits
	o := t.w[l]
	d0 := p&0xffffffff - o&0xffffffff // mod 2^64
	d1 := p>>32 - o>>32
	t.w[l] = p
	t.bs[0][bl] += d0
	t.bs[1][bl] += d1
	t.z[0] += d0
	t.z[1] += d1
}

// takeAll zeroes the pairs of the spins of path in the block sums and the
// pairs (a kernel pass gave every spin its weights, taken or not).
func (t *table) takeAll(path []int32) {
	b0, b1 := t.bs[0], t.bs[1]
	for _, l := range path {
		p := t.w[l]
		b0[l/blockBits] -= p & 0xffffffff
		b1[l/blockBits] -= p >> 32
		t.w[l] = 0
	}
}

// total recomputes z from the block sums.
func (t *table) total() {
	var z0, z1 uint64
	b0, b1 := t.bs[0], t.bs[1][:len(t.bs[0])]
	for i := range b0 {
		z0 += b0[i]
		z1 += b1[i]
	}
	t.z = [2]uint64{z0, z1}
}

// draw returns the spin at which the running sum of the weights at bias b
// first exceeds u (u < z[b]): a block by its sum, then a spin in it, so
// spin l has probability w_b(l) / z[b] for u uniform. It returns -1 when
// u >= z[b].
func (t *table) draw(b int, u uint64) int {
	sh := uint(32 * b)
	for bl, z := range t.bs[b] {
		if u >= z {
			u -= z
			continue
		}
		a := bl * blockBits
		for i, p := range t.w[a:min(a+blockBits, len(t.w))] {
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
