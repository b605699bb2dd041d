package dense

import (
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
