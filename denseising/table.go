package denseising

// table holds the integer pick weights of the spins at both biases, their
// sums per block of 64 spins and in all. Weights are below 2^31, so every
// sum is an exact uint64, updated in place and equal to the sum of the
// weights in any order (dense.Table with one layer).
type table struct {
	w  [2][]uint32 // [bias][spin]; 0 for a taken spin
	bs [2][]uint64 // [bias][block]
	z  [2]uint64
}

func newTable(n int) *table {
	nb := (n + blockBits - 1) / blockBits
	return &table{
		w:  [2][]uint32{make([]uint32, n), make([]uint32, n)},
		bs: [2][]uint64{make([]uint64, nb), make([]uint64, nb)},
	}
}

// set gives spin l the weights w0, w1 and updates the sums.
func (t *table) set(l int, w0, w1 uint32) {
	bl := l / blockBits
	d0 := uint64(w0) - uint64(t.w[0][l]) // mod 2^64
	d1 := uint64(w1) - uint64(t.w[1][l])
	t.w[0][l], t.w[1][l] = w0, w1
	t.bs[0][bl] += d0
	t.bs[1][bl] += d1
	t.z[0] += d0
	t.z[1] += d1
}

// total recomputes z from the block sums (after a kernel wrote them).
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
// spin l has probability w[b][l] / z[b] for u uniform. It returns -1 when
// u >= z[b].
func (t *table) draw(b int, u uint64) int {
	w := t.w[b]
	for bl, z := range t.bs[b] {
		if u >= z {
			u -= z
			continue
		}
		a := bl * blockBits
		for i, x := range w[a:min(a+blockBits, len(w))] {
			if u < uint64(x) {
				return a + i
			}
			u -= uint64(x)
		}
		break // unreachable: the block sum is exact
	}
	return -1
}
