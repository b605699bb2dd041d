package dense

// BlockBits is the size of the blocks whose weight sums a Table keeps: a
// draw scans block sums before weights.
const BlockBits = 64

// Table holds the integer pick weights of two layers of bits (layer 0
// first, as in an RBM's visible then hidden units, or one section's share
// of them) at both biases, with their block sums and layer sums. All sums
// are exact (uint64 sums of weights of at most 2^31), so they are updated
// in place, never re-added, and equal the sum of the weights whatever the
// order of the updates. Both RBM engines keep their weights in one.
type Table struct {
	W   [2][]uint32  // [bias][bit]; 0 for a taken bit
	Sum [2][2]uint64 // [layer][bias]
	n0  int          // bits of layer 0
	nb0 int          // blocks of layer 0
	bs  [2][]uint64  // [bias][block], layer 0's blocks first
}

// NewTable returns a table of n0 + n1 bits, all weights 0.
func NewTable(n0, n1 int) *Table {
	nb := numBlocks(n0) + numBlocks(n1)
	return &Table{
		W:   [2][]uint32{make([]uint32, n0+n1), make([]uint32, n0+n1)},
		n0:  n0,
		nb0: numBlocks(n0),
		bs:  [2][]uint64{make([]uint64, nb), make([]uint64, nb)},
	}
}

func numBlocks(n int) int { return (n + BlockBits - 1) / BlockBits }

// Layer is the layer of bit l.
func (t *Table) Layer(l int) int {
	if l >= t.n0 {
		return 1
	}
	return 0
}

// span returns layer k's bit range and its block sums at both biases.
func (t *Table) span(k int) (lo, hi int, bs0, bs1 []uint64) {
	if k == 0 {
		return 0, t.n0, t.bs[0][:t.nb0], t.bs[1][:t.nb0]
	}
	return t.n0, len(t.W[0]), t.bs[0][t.nb0:], t.bs[1][t.nb0:]
}

// block is the index of bit l's block in bs.
func (t *Table) block(l int) int {
	if l < t.n0 {
		return l / BlockBits
	}
	return t.nb0 + (l-t.n0)/BlockBits
}

// Set gives bit l the weights w0, w1 and updates its block's and layer's
// sums.
func (t *Table) Set(l int, w0, w1 uint32) {
	o0, o1 := t.W[0][l], t.W[1][l]
	t.W[0][l], t.W[1][l] = w0, w1
	bl, k := t.block(l), t.Layer(l)
	d0, d1 := uint64(w0)-uint64(o0), uint64(w1)-uint64(o1) // mod 2^64
	t.bs[0][bl] += d0
	t.bs[1][bl] += d1
	t.Sum[k][0] += d0
	t.Sum[k][1] += d1
}

// Take zeroes the weights of bit l (Set(l, 0, 0)).
func (t *Table) Take(l int) { t.Set(l, 0, 0) }

// Z is the sum of all weights at bias b.
func (t *Table) Z(b int) uint64 { return t.Sum[0][b] + t.Sum[1][b] }

// Draw returns the bit at which the running sum of the weights at bias b
// (layer 0, then layer 1) first exceeds u, for u < Z(b): a layer, then a
// block by its sum, then a bit within the block. The sums are exact, so
// the bit has probability W[b][l] / Z(b) for u uniform. It returns -1 when
// u >= Z(b).
func (t *Table) Draw(b int, u uint64) int {
	k := 0
	if u >= t.Sum[0][b] {
		u -= t.Sum[0][b]
		k = 1
		if u >= t.Sum[1][b] {
			return -1
		}
	}
	lo, hi, bs0, bs1 := t.span(k)
	bs := bs0
	if b == 1 {
		bs = bs1
	}
	w := t.W[b][lo:hi]
	for bl, z := range bs {
		if u >= z {
			u -= z
			continue
		}
		a := bl * BlockBits
		for i, x := range w[a:min(a+BlockBits, len(w))] {
			if u < uint64(x) {
				return lo + a + i
			}
			u -= uint64(x)
		}
		break // unreachable: the block sum is exact
	}
	return -1
}

// Update applies a change d = +1 or -1 of one bit of the other layer, with
// fixed-point couplings rowq and float64 couplings row to the bits of
// layer k (rowq, row, s, F, f and mask all indexed like that layer), then
// recomputes their weights and the layer's sums: F += d rowq, f += d row,
// and each bit's weights are tb's weights of its class, ANDed with its
// mask (all ones for an available bit, 0 for a taken one). With row nil
// only F changes (f unused); with rowq nil it only recomputes the weights
// (f and row unused).
func (t *Table) Update(k int, tb *Bias, s []int8, F []int32, f []float64, mask []uint32, rowq []int32, row []float64, d int32) {
	lo, hi, bs0, bs1 := t.span(k)
	n := hi - lo
	s, F, mask = s[:n], F[:n], mask[:n]
	w0, w1 := t.W[0][lo:hi], t.W[1][lo:hi]
	if rowq == nil {
		weighLayer(useAVX2, tb, s, F, mask, w0, w1, bs0, bs1)
	} else {
		updateLayer(useAVX2, tb, s, F, f, mask, rowq[:n], row, w0, w1, d, bs0, bs1)
	}
	t.sum(k, bs0, bs1)
}

// UpdateFix is Update with the fixed-point couplings rounded from row on
// the fly: F += d round(row scale) (ties to even; Quant.Fix of row for
// scale = Quant.Scale), f += d row. A kernel reads each float64 coupling
// once for both fields.
func (t *Table) UpdateFix(k int, tb *Bias, s []int8, F []int32, f []float64, mask []uint32, row []float64, scale float64, d int32) {
	lo, hi, bs0, bs1 := t.span(k)
	n := hi - lo
	updateFixLayer(useAVX2, tb, s[:n], F[:n], f[:n], mask[:n], row[:n], scale, t.W[0][lo:hi], t.W[1][lo:hi], d, bs0, bs1)
	t.sum(k, bs0, bs1)
}

// sum sets layer k's sums from its block sums.
func (t *Table) sum(k int, bs0, bs1 []uint64) {
	var z0, z1 uint64
	for bl := range bs0 {
		z0 += bs0[bl]
		z1 += bs1[bl]
	}
	t.Sum[k] = [2]uint64{z0, z1}
}

// overLayer runs one pass of the hot loop over a layer of n bits, writing
// its block sums to bs0, bs1: asm(a), the AVX2 kernel, on the first a
// bits (a multiple of 8) when avx, then block(a, b), the Go loop returning
// the sums of bits [a, b), on the rest, one block at a time.
func overLayer(avx bool, n int, bs0, bs1 []uint64, asm func(a int), block func(a, b int) (z0, z1 uint64)) {
	a := 0
	if avx && n >= 8 {
		a = n &^ 7
		_, _ = bs0[(a-1)/BlockBits], bs1[(a-1)/BlockBits]
		asm(a)
	}
	for a < n {
		bl := a / BlockBits
		b := min((bl+1)*BlockBits, n)
		y0, y1 := block(a, b)
		if a%BlockBits != 0 { // the kernel did the start of this block
			y0 += bs0[bl]
			y1 += bs1[bl]
		}
		bs0[bl], bs1[bl] = y0, y1
		a = b
	}
}

// updateLayer is the hot loop of both RBM engines (Update of one layer,
// writing its block sums to bs0, bs1). With row nil, f is left alone.
func updateLayer(avx bool, tb *Bias, s []int8, F []int32, f []float64, mask []uint32, rowq []int32, row []float64, w0, w1 []uint32, d int32, bs0, bs1 []uint64) {
	n := len(F)
	s, mask, rowq, w0, w1 = s[:n], mask[:n], rowq[:n], w0[:n], w1[:n]
	var pf, prow *float64 // nil: no float64 fields
	if row != nil {
		f, row = f[:n], row[:n]
		if n > 0 {
			pf, prow = &f[0], &row[0]
		}
	}
	neg := signBit(d)
	overLayer(avx, n, bs0, bs1, func(a int) {
		updateAVX2(&tb.Pairs, uint64(tb.Shift&31), &s[0], &F[0], pf, &mask[0], &w0[0], &w1[0], a, neg, &bs0[0], &bs1[0], &rowq[0], prow, d)
	}, func(a, b int) (uint64, uint64) {
		if row == nil {
			AddRow(F[a:b], nil, rowq[a:b], nil, d)
		} else {
			AddRow(F[a:b], f[a:b], rowq[a:b], row[a:b], d)
		}
		return weighGo(&tb.W[0], &tb.W[1], tb.Shift&31, s[a:b], F[a:b], mask[a:b], w0[a:b], w1[a:b])
	})
}

// updateFixLayer is updateLayer with rowq = round(row scale) (UpdateFix).
func updateFixLayer(avx bool, tb *Bias, s []int8, F []int32, f []float64, mask []uint32, row []float64, scale float64, w0, w1 []uint32, d int32, bs0, bs1 []uint64) {
	n := len(F)
	s, f, mask, row, w0, w1 = s[:n], f[:n], mask[:n], row[:n], w0[:n], w1[:n]
	neg := signBit(d)
	overLayer(avx, n, bs0, bs1, func(a int) {
		updateFixAVX2(&tb.Pairs, uint64(tb.Shift&31), &s[0], &F[0], &f[0], &mask[0], &w0[0], &w1[0], a, neg, &bs0[0], &bs1[0], &row[0], scale)
	}, func(a, b int) (uint64, uint64) {
		AddRowFix(F[a:b], f[a:b], row[a:b], scale, d)
		return weighGo(&tb.W[0], &tb.W[1], tb.Shift&31, s[a:b], F[a:b], mask[a:b], w0[a:b], w1[a:b])
	})
}

// weighLayer is updateLayer without a field change.
func weighLayer(avx bool, tb *Bias, s []int8, F []int32, mask []uint32, w0, w1 []uint32, bs0, bs1 []uint64) {
	n := len(F)
	s, mask, w0, w1 = s[:n], mask[:n], w0[:n], w1[:n]
	overLayer(avx, n, bs0, bs1, func(a int) {
		weighAVX2(&tb.Pairs, uint64(tb.Shift&31), &s[0], &F[0], &mask[0], &w0[0], &w1[0], a, &bs0[0], &bs1[0])
	}, func(a, b int) (uint64, uint64) {
		return weighGo(&tb.W[0], &tb.W[1], tb.Shift&31, s[a:b], F[a:b], mask[a:b], w0[a:b], w1[a:b])
	})
}

// signBit is the float64 sign bit for d < 0, else 0: XORed into a row, it
// multiplies it by d = +-1 exactly.
func signBit(d int32) uint64 {
	if d < 0 {
		return 1 << 63
	}
	return 0
}

// weighGo computes the weights of bits of one block from their fields (the
// Go loop of every kernel) and returns their sums.
func weighGo(t0, t1 *[Classes]uint32, sh uint, s []int8, F []int32, mask []uint32, w0, w1 []uint32) (z0, z1 uint64) {
	n := len(F)
	s, mask, w0, w1 = s[:n], mask[:n], w0[:n], w1[:n]
	for j, x := range F {
		c := (int32(s[j]) * x) >> sh
		c = min(max(c, -halfClasses), halfClasses-1) + halfClasses
		m := mask[j]
		a, b := t0[c&(Classes-1)]&m, t1[c&(Classes-1)]&m
		w0[j], w1[j] = a, b
		z0 += uint64(a)
		z1 += uint64(b)
	}
	return z0, z1
}
