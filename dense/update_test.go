package dense

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/internal/rbmtest"
	"sardonics/rng"
	"sardonics/saw"
)

// TestKernelsAgree: the AVX2 kernels (where the CPU has them) give the same
// bits as the Go loops: fields, float64 fields, weights and sums, for every
// length from 0 to 200 and extreme fields (clamped classes).
func TestKernelsAgree(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	r := rand.NewPCG(6, 6)
	for _, S := range []int{24, 12} {
		tb := NewBias(S, 0.9, 1.3, saw.Logistic)
		for n := 0; n <= 200; n++ {
			s := rbmtest.RandomSpins(r, n)
			F, f, mask := make([]int32, n), make([]float64, n), make([]uint32, n)
			rowq, row := make([]int32, n), make([]float64, n)
			for i := range F {
				F[i] = int32(rng.Intn(r, 1<<31)) - 1<<30 + 1
				if i%3 == 0 {
					F[i] >>= 8
				}
				rowq[i] = int32(rng.Intn(r, 1<<22)) - 1<<21
				row[i] = rng.Float64(r) - 0.5
				f[i] = 10 * (rng.Float64(r) - 0.5)
				if rng.Intn(r, 4) != 0 {
					mask[i] = ^uint32(0)
				}
			}
			for _, d := range []int32{1, -1} {
				F2, f2 := slices.Clone(F), slices.Clone(f)
				wa0, wa1 := make([]uint32, n), make([]uint32, n)
				wb0, wb1 := make([]uint32, n), make([]uint32, n)
				nb := numBlocks(n)
				ba0, ba1 := make([]uint64, nb), make([]uint64, nb)
				bb0, bb1 := make([]uint64, nb), make([]uint64, nb)
				updateLayer(true, tb, s, F, f, mask, rowq, row, wa0, wa1, d, ba0, ba1)
				updateLayer(false, tb, s, F2, f2, mask, rowq, row, wb0, wb1, d, bb0, bb1)
				if !slices.Equal(ba0, bb0) || !slices.Equal(ba1, bb1) || !slices.Equal(F, F2) || !slices.Equal(f, f2) || !slices.Equal(wa0, wb0) || !slices.Equal(wa1, wb1) {
					t.Fatalf("S=%d n=%d d=%d: update kernels differ", S, n, d)
				}
				ca0, ca1 := make([]uint64, nb), make([]uint64, nb)
				cb0, cb1 := make([]uint64, nb), make([]uint64, nb)
				weighLayer(true, tb, s, F, mask, wa0, wa1, ca0, ca1)
				weighLayer(false, tb, s, F, mask, wb0, wb1, cb0, cb1)
				if !slices.Equal(ca0, cb0) || !slices.Equal(ca1, cb1) || !slices.Equal(ca0, ba0) || !slices.Equal(ca1, ba1) || !slices.Equal(wa0, wb0) || !slices.Equal(wa1, wb1) {
					t.Fatalf("S=%d n=%d d=%d: weigh kernels differ", S, n, d)
				}
			}
		}
	}
}

// TestFixByScale: rounding x 2^S as the kernels do (fixBy with Scale)
// gives Quant.Fix's integers, ties, subnormals and signed zeros included,
// at every scale NewQuantScale can choose.
func TestFixByScale(t *testing.T) {
	r := rand.NewPCG(8, 8)
	for S := -1000; S <= 60; S++ {
		q := &Quant{S: S, Scale: math.Ldexp(1, S)}
		xs := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022}
		for range 40 {
			k := float64(rng.Intn(r, 1<<30) - 1<<29)
			frac := []float64{0, 0.5, -0.5, rng.Float64(r) - 0.5}[rng.Intn(r, 4)]
			xs = append(xs, math.Ldexp(k+frac, -S), math.Ldexp(k*rng.Float64(r), -S-rng.Intn(r, 80)))
		}
		for _, x := range xs {
			if math.Abs(math.Ldexp(x, S)) >= 1<<30 {
				continue // beyond what NewQuantScale allows
			}
			if got, want := fixBy(x, q.Scale), q.Fix(x); got != want || fixBy(-x, q.Scale) != -want {
				t.Fatalf("S=%d x=%g: fixBy %d (Fix %d)", S, x, got, want)
			}
		}
	}
}

// TestFixKernelsAgree: the kernels that round the couplings on the fly
// (UpdateFix) and that leave the float64 fields alone (Update with row
// nil), AVX2 and Go, give the same bits as updateLayer with rowq = Fix(row)
// for every length from 0 to 200, ties of the rounding included.
func TestFixKernelsAgree(t *testing.T) {
	r := rand.NewPCG(9, 9)
	for _, S := range []int{24, 12, 3} {
		q := &Quant{S: S, Scale: math.Ldexp(1, S)}
		tb := NewBias(S, 0.9, 1.3, saw.Logistic)
		for n := 0; n <= 200; n++ {
			s := rbmtest.RandomSpins(r, n)
			F := fill(n, func(int) int32 { return int32(rng.Intn(r, 1<<29)) - 1<<28 })
			// every fourth coupling a tie of the rounding, half of them odd
			row := fill(n, func(i int) float64 {
				return math.Ldexp(float64(rng.Intn(r, 1<<21)-1<<20)+[]float64{0, 0.5, -0.5, rng.Float64(r)}[i%4], -S)
			})
			rowq := fill(n, func(i int) int32 { return q.Fix(row[i]) })
			f := fill(n, func(int) float64 { return 10 * (rng.Float64(r) - 0.5) })
			mask := fill(n, func(int) uint32 { return ^uint32(0) * uint32(min(rng.Intn(r, 4), 1)) })
			nb := numBlocks(n)
			for _, d := range []int32{1, -1} {
				type out struct {
					F      []int32
					f      []float64
					w0, w1 []uint32
					b0, b1 []uint64
				}
				run := func(kernel func(o *out)) out {
					o := out{slices.Clone(F), slices.Clone(f), make([]uint32, n), make([]uint32, n), make([]uint64, nb), make([]uint64, nb)}
					kernel(&o)
					return o
				}
				same := func(a, b out, floats bool) bool {
					return slices.Equal(a.F, b.F) && (!floats || slices.Equal(a.f, b.f)) && slices.Equal(a.w0, b.w0) &&
						slices.Equal(a.w1, b.w1) && slices.Equal(a.b0, b.b0) && slices.Equal(a.b1, b.b1)
				}
				want := run(func(o *out) { updateLayer(false, tb, s, o.F, o.f, mask, rowq, row, o.w0, o.w1, d, o.b0, o.b1) })
				for _, avx := range []bool{false, useAVX2} {
					fix := run(func(o *out) { updateFixLayer(avx, tb, s, o.F, o.f, mask, row, q.Scale, o.w0, o.w1, d, o.b0, o.b1) })
					qo := run(func(o *out) { updateLayer(avx, tb, s, o.F, nil, mask, rowq, nil, o.w0, o.w1, d, o.b0, o.b1) })
					if !same(fix, want, true) || !same(qo, want, false) || !slices.Equal(qo.f, f) {
						t.Fatalf("S=%d n=%d d=%d avx=%v: kernels differ", S, n, d, avx)
					}
				}
			}
		}
	}
}

// fill is n values of g(i).
func fill[T any](n int, g func(i int) T) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = g(i)
	}
	return x
}
