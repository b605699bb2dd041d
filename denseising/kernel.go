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

// update applies a flip of the spin with fixed-point couplings q to every
// spin: F += m q (m = +-2, the change of the flipped spin), then writes
// each spin's weights at both biases, tb's pair of its class (class from
// s_j F_j), to w, and each block's sums to bs0, bs1. Taken spins get
// their weights like the others (the engine zeroes them after). With row
// set (row and s of the same length as F), it also returns Dot32(row, s),
// computed in the same pass.
func update(avx bool, tb *dense.Bias, s []int8, F []int32, q []int16, w []uint64, m int32, bs0, bs1 []uint64, row []float32) float64 {
	n := len(F)
	s, q, w = s[:n], q[:n], w[:n]
	a, t, dot := 0, n&^7, 0.0
	if avx && n >= 8 {
		a = t
		_, _ = bs0[(a-1)/blockBits], bs1[(a-1)/blockBits]
		var r *float32
		if row != nil {
			r = &row[:n][0]
		}
		dot = updateAVX2(&tb.Pairs, uint64(tb.Shift&31), &s[0], &F[0], &q[0], &w[0], a, m, &bs0[0], &bs1[0], r)
	} else if row != nil {
		dot = dotGo(row[:t], s[:t])
	}
	for a < n {
		bl := a / blockBits
		b := min((bl+1)*blockBits, n)
		y0, y1 := updateGo(&tb.Pairs, tb.Shift&31, s[a:b], F[a:b], q[a:b], w[a:b], m)
		if a%blockBits != 0 { // the kernel did the start of this block
			y0 += bs0[bl]
			y1 += bs1[bl]
		}
		bs0[bl], bs1[bl] = y0, y1
		a = b
	}
	if row == nil {
		return 0
	}
	return dotTail(dot, row[t:n], s[t:])
}

// weigh is update without a field change (q nil, no dot).
func weigh(avx bool, tb *dense.Bias, s []int8, F []int32, w []uint64, bs0, bs1 []uint64) {
	n := len(F)
	s, w = s[:n], w[:n]
	a := 0
	if avx && n >= 8 {
		a = n &^ 7
		_, _ = bs0[(a-1)/blockBits], bs1[(a-1)/blockBits]
		weighAVX2(&tb.Pairs, uint64(tb.Shift&31), &s[0], &F[0], &w[0], a, &bs0[0], &bs1[0])
	}
	for a < n {
		bl := a / blockBits
		b := min((bl+1)*blockBits, n)
		y0, y1 := updateGo(&tb.Pairs, tb.Shift&31, s[a:b], F[a:b], nil, w[a:b], 0)
		if a%blockBits != 0 {
			y0 += bs0[bl]
			y1 += bs1[bl]
		}
		bs0[bl], bs1[bl] = y0, y1
		a = b
	}
}

// updateGo is update (q != nil) or weigh (q nil) in Go on the spins of one
// block, without the dot product; it returns their weight sums.
func updateGo(pairs *[dense.Classes]uint64, sh uint, s []int8, F []int32, q []int16, w []uint64, m int32) (z0, z1 uint64) {
	n := len(F)
	s, w = s[:n], w[:n]
	if q != nil {
		q = q[:n]
		for j := range F {
			F[j] += m * int32(q[j])
		}
	}
	for j, x := range F {
		c := (int32(s[j]) * x) >> sh
		c = min(max(c, -halfClasses), halfClasses-1) + halfClasses
		p := pairs[c&(dense.Classes-1)]
		w[j] = p
		z0 += p & 0xffffffff
		z1 += p >> 32
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

// dotLanes is the number of partial sums of Dot32 and Dot64: four AVX2
// registers of four float64 each.
const dotLanes = 16

// Dot32 is sum_j row_j s_j. Below the largest multiple of 8, element j
// goes to partial sum j mod 16, each added in index order; the partial
// sums are then combined as ((p_k + p_k+4) + (p_k+8 + p_k+12)) for k =
// 0..3, then (u_0 + u_2) + (u_1 + u_3); the remaining elements (at most 7)
// are added in order. Every product is exact (s_j = +-1), so the AVX2
// kernels, which add in that order, give the same bits.
func Dot32(row []float32, s []int8) float64 { return dot(row, s, dot32AVX2) }

// Dot64 is Dot32 for a float64 row.
func Dot64(row []float64, s []int8) float64 { return dot(row, s, dot64AVX2) }

// dot is Dot32 and Dot64 with avx, the AVX2 kernel of the row's type.
func dot[R Row](row []R, s []int8, avx func(*R, *int8, int) float64) float64 {
	n := len(row)
	s = s[:n]
	a := n &^ 7
	x := 0.0
	if a > 0 {
		if useAVX2 {
			x = avx(&row[0], &s[0], a)
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

// dotGo is Dot32's partial sums and their combination on a multiple of 8
// elements.
func dotGo[R Row](row []R, s []int8) float64 {
	var p [dotLanes]float64
	n := len(row)
	s = s[:n]
	b := 0
	for ; b+dotLanes <= n; b += dotLanes {
		r, t := row[b:b+dotLanes], s[b:b+dotLanes]
		for k := range dotLanes {
			p[k] += float64(r[k]) * float64(t[k])
		}
	}
	if b+8 <= n {
		r, t := row[b:b+8], s[b:b+8]
		for k := range 8 {
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
// however the sum is computed: the AVX2 kernel fuses it).
func AddRow32(f []float64, row []float32, c float64) {
	n := len(f)
	row = row[:n]
	a := 0
	if useFMA && n >= 8 {
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
	if useFMA && n >= 8 {
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
