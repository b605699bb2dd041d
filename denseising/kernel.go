package denseising

import "sardonics/dense"

// The kernels. Each has a Go loop and, on amd64, an AVX2 twin used when
// useAVX2 (cpuid at run time; never with -tags purego) on the longest
// prefix it handles, the Go loop doing the rest. They give the same bits:
// integer arithmetic, products by +-1 or +-2 (exact), and float64 sums in
// the order the Go loops spell out.

const (
	blockBits   = 64 // the block of the weight table's partial sums
	halfClasses = dense.Classes / 2
)

// update applies a flip of the spin with couplings q (its fixed-point row)
// to every spin: F += m q (m = +-2, the change of the flipped spin), then
// recomputes each spin's weights at both biases from tb (its class from
// s_j F_j, ANDed with its mask) and writes each block's sums to bs0, bs1.
func update(avx bool, tb *dense.Bias, s []int8, F []int32, mask []uint32, q []int16, w0, w1 []uint32, m int32, bs0, bs1 []uint64) {
	n := len(F)
	s, mask, q, w0, w1 = s[:n], mask[:n], q[:n], w0[:n], w1[:n]
	a := 0
	if avx && n >= 8 {
		a = n &^ 7
		_, _ = bs0[(a-1)/blockBits], bs1[(a-1)/blockBits]
		updateAVX2(&tb.Pairs, uint64(tb.Shift&31), &s[0], &F[0], &mask[0], &q[0], &w0[0], &w1[0], a, m, &bs0[0], &bs1[0])
	}
	for a < n {
		bl := a / blockBits
		b := min((bl+1)*blockBits, n)
		y0, y1 := updateGo(&tb.W[0], &tb.W[1], tb.Shift&31, s[a:b], F[a:b], mask[a:b], q[a:b], w0[a:b], w1[a:b], m)
		if a%blockBits != 0 { // the kernel did the start of this block
			y0 += bs0[bl]
			y1 += bs1[bl]
		}
		bs0[bl], bs1[bl] = y0, y1
		a = b
	}
}

// weigh is update without a field change (q nil).
func weigh(avx bool, tb *dense.Bias, s []int8, F []int32, mask []uint32, w0, w1 []uint32, bs0, bs1 []uint64) {
	n := len(F)
	s, mask, w0, w1 = s[:n], mask[:n], w0[:n], w1[:n]
	a := 0
	if avx && n >= 8 {
		a = n &^ 7
		_, _ = bs0[(a-1)/blockBits], bs1[(a-1)/blockBits]
		weighAVX2(&tb.Pairs, uint64(tb.Shift&31), &s[0], &F[0], &mask[0], &w0[0], &w1[0], a, &bs0[0], &bs1[0])
	}
	for a < n {
		bl := a / blockBits
		b := min((bl+1)*blockBits, n)
		y0, y1 := updateGo(&tb.W[0], &tb.W[1], tb.Shift&31, s[a:b], F[a:b], mask[a:b], nil, w0[a:b], w1[a:b], 0)
		if a%blockBits != 0 {
			y0 += bs0[bl]
			y1 += bs1[bl]
		}
		bs0[bl], bs1[bl] = y0, y1
		a = b
	}
}

// updateGo is update (q != nil) or weigh (q nil) in Go on the spins of one
// block; it returns their weight sums.
func updateGo(t0, t1 *[dense.Classes]uint32, sh uint, s []int8, F []int32, mask []uint32, q []int16, w0, w1 []uint32, m int32) (z0, z1 uint64) {
	n := len(F)
	s, mask, w0, w1 = s[:n], mask[:n], w0[:n], w1[:n]
	if q != nil {
		q = q[:n]
		for j := range F {
			F[j] += m * int32(q[j])
		}
	}
	for j, x := range F {
		c := (int32(s[j]) * x) >> sh
		c = min(max(c, -halfClasses), halfClasses-1) + halfClasses
		mj := mask[j]
		a, b := t0[c&(dense.Classes-1)]&mj, t1[c&(dense.Classes-1)]&mj
		w0[j], w1[j] = a, b
		z0 += uint64(a)
		z1 += uint64(b)
	}
	return z0, z1
}

// AddQ adds m times a fixed-point row to fixed-point fields: F += m q.
func AddQ(F []int32, q []int16, m int32) {
	n := len(F)
	q = q[:n]
	a := 0
	if useAVX2 && n >= 8 {
		a = n &^ 7
		addQAVX2(&F[0], &q[0], a, m)
	}
	addQGo(F[a:], q[a:], m)
}

func addQGo(F []int32, q []int16, m int32) {
	q = q[:len(F)]
	for j := range F {
		F[j] += m * int32(q[j])
	}
}

// Row is a row of a dense model's coupling matrix.
type Row interface{ ~float32 | ~float64 }

// dotLanes is the number of partial sums of Dot32 and Dot64: four AVX2 registers of
// four float64 each.
const dotLanes = 16

// Dot32 is sum_j row_j s_j. Element j goes to partial sum j mod 16 (for
// j below the largest multiple of 16), each added in index order; the
// partial sums are then combined as ((p_k + p_k+4) + (p_k+8 + p_k+12)) for
// k = 0..3, then (u_0 + u_2) + (u_1 + u_3); the remaining elements are
// added in order. Every product is exact (s_j = +-1), so the AVX2 kernel,
// which adds in that order, gives the same bits.
func Dot32(row []float32, s []int8) float64 {
	n := len(row)
	s = s[:n]
	a := n &^ (dotLanes - 1)
	x := 0.0
	if a > 0 {
		if useAVX2 {
			x = dot32AVX2(&row[0], &s[0], a)
		} else {
			x = dotGo(row[:a], s[:a])
		}
	}
	return dotTail(x, row[a:], s[a:])
}

// Dot64 is Dot32 for a float64 row.
func Dot64(row []float64, s []int8) float64 {
	n := len(row)
	s = s[:n]
	a := n &^ (dotLanes - 1)
	x := 0.0
	if a > 0 {
		if useAVX2 {
			x = dot64AVX2(&row[0], &s[0], a)
		} else {
			x = dotGo(row[:a], s[:a])
		}
	}
	return dotTail(x, row[a:], s[a:])
}

func dotTail[R Row](x float64, row []R, s []int8) float64 {
	s = s[:len(row)]
	for j, w := range row {
		x += float64(w) * float64(s[j])
	}
	return x
}

// dotGo is Dot32's partial sums and their combination on a multiple of 16
// elements.
func dotGo[R Row](row []R, s []int8) float64 {
	var p [dotLanes]float64
	s = s[:len(row)]
	for b := 0; b+dotLanes <= len(row); b += dotLanes {
		r, t := row[b:b+dotLanes], s[b:b+dotLanes]
		for k := range dotLanes {
			p[k] += float64(r[k]) * float64(t[k])
		}
	}
	var u [4]float64
	for k := range 4 {
		u[k] = (p[k] + p[k+4]) + (p[k+8] + p[k+12])
	}
	return (u[0] + u[2]) + (u[1] + u[3])
}

// AddRow32 adds c times a row of couplings to float64 fields: f += c row,
// for c = +-2 (so each product is exact and each field is rounded once,
// however the sum is computed).
func AddRow32(f []float64, row []float32, c float64) {
	n := len(f)
	row = row[:n]
	a := 0
	if useAVX2 && n >= 8 {
		a = n &^ 7
		axpy32AVX2(&f[0], &row[0], a, c)
	}
	addRowGo(f[a:], row[a:], c)
}

// AddRow64 is AddRow32 for a float64 row.
func AddRow64(f []float64, row []float64, c float64) {
	n := len(f)
	row = row[:n]
	a := 0
	if useAVX2 && n >= 8 {
		a = n &^ 7
		axpy64AVX2(&f[0], &row[0], a, c)
	}
	addRowGo(f[a:], row[a:], c)
}

func addRowGo[R Row](f []float64, row []R, c float64) {
	row = row[:len(f)]
	for j := range f {
		f[j] += c * float64(row[j])
	}
}
