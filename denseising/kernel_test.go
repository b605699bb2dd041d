package denseising

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/dense"
	"sardonics/internal/rbmtest"
	"sardonics/rng"
	"sardonics/saw"
)

// TestKernelsAgree: every AVX2 kernel (where the CPU has it) gives the
// same bits as its Go loop, for every length from 0 to 200, extreme
// fields (clamped classes) and masked spins. Under -tags purego it checks
// the Go loops against themselves and is skipped.
func TestKernelsAgree(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels in this build or on this CPU")
	}
	r := rand.NewPCG(6, 6)
	tb := dense.NewBias(20, 0.9, 1.3, saw.Logistic)
	for n := 0; n <= 200; n++ {
		s := rbmtest.RandomSpins(r, n)
		F, q := make([]int32, n), make([]int16, n)
		row32, row64, f := make([]float32, n), make([]float64, n), make([]float64, n)
		for i := range F {
			F[i] = int32(rng.Intn(r, 1<<31)) - 1<<30 + 1<<16
			if i%3 == 0 {
				F[i] >>= 8
			}
			q[i] = int16(rng.Intn(r, 1<<16) - 1<<15)
			row64[i] = (rng.Float64(r) - 0.5) * math.Ldexp(1, rng.Intn(r, 40)-20)
			row32[i] = float32(row64[i])
			f[i] = 10 * (rng.Float64(r) - 0.5)
		}
		for _, m := range []int32{2, -2} {
			nb := (n + blockBits - 1) / blockBits
			Fa, Fb := slices.Clone(F), slices.Clone(F)
			wa, wb := make([]uint64, n), make([]uint64, n)
			ba0, ba1, bb0, bb1 := make([]uint64, nb), make([]uint64, nb), make([]uint64, nb), make([]uint64, nb)
			for _, row := range [][]float32{nil, row32} {
				copy(Fa, F)
				copy(Fb, F)
				da := update(true, tb, s, Fa, q, wa, m, ba0, ba1, row)
				db := update(false, tb, s, Fb, q, wb, m, bb0, bb1, row)
				if !slices.Equal(Fa, Fb) || !slices.Equal(wa, wb) || !slices.Equal(ba0, bb0) || !slices.Equal(ba1, bb1) ||
					math.Float64bits(da) != math.Float64bits(db) {
					t.Fatalf("n=%d m=%d row %v: update kernels differ", n, m, row != nil)
				}
				if want := Dot32(row, s); row != nil && math.Float64bits(da) != math.Float64bits(want) {
					t.Fatalf("n=%d m=%d: update's dot product %v (Dot32 %v)", n, m, da, want)
				}
			}
			// The pairs are the tables' and the block sums their sums.
			for i := range n {
				c := tb.Class(s[i], Fa[i])
				if wa[i] != uint64(tb.W[0][c])|uint64(tb.W[1][c])<<32 {
					t.Fatalf("n=%d: pair %d is %x", n, i, wa[i])
				}
			}
			for bl := range nb {
				var z0, z1 uint64
				for _, p := range wa[bl*blockBits : min((bl+1)*blockBits, n)] {
					z0 += p & 0xffffffff
					z1 += p >> 32
				}
				if ba0[bl] != z0 || ba1[bl] != z1 {
					t.Fatalf("n=%d: block %d sums %d, %d (expected %d, %d)", n, bl, ba0[bl], ba1[bl], z0, z1)
				}
			}
			weigh(true, tb, s, Fa, wa, ba0, ba1)
			weigh(false, tb, s, Fa, wb, bb0, bb1)
			if !slices.Equal(wa, wb) || !slices.Equal(ba0, bb0) || !slices.Equal(ba1, bb1) {
				t.Fatalf("n=%d m=%d: weigh kernels differ", n, m)
			}
			Fc := slices.Clone(F)
			AddQ(Fc, q, m)
			addQGo(F, q, m)
			if !slices.Equal(F, Fc) || !slices.Equal(F, Fb) {
				t.Fatalf("n=%d m=%d: AddQ differs", n, m)
			}
			fa, fb := slices.Clone(f), slices.Clone(f)
			AddRow32(fa, row32, float64(m))
			addRowGo(fb, row32, float64(m))
			fc, fd := slices.Clone(f), slices.Clone(f)
			AddRow64(fc, row64, float64(m))
			addRowGo(fd, row64, float64(m))
			if !slices.Equal(fa, fb) || !slices.Equal(fc, fd) {
				t.Fatalf("n=%d m=%d: AddRow differs", n, m)
			}
		}
		a := n &^ 7
		if a > 0 {
			if x, y := dot32AVX2(&row32[0], &s[0], a), dotGo(row32[:a], s[:a]); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("n=%d: dot32 %v (Go %v)", n, x, y)
			}
			if x, y := dot64AVX2(&row64[0], &s[0], a), dotGo(row64[:a], s[:a]); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("n=%d: dot64 %v (Go %v)", n, x, y)
			}
		}
	}
}

// TestDot: Dot64 and Dot32 are the sum of row_j s_j (to rounding), and
// AddRow64 adds c row.
func TestDot(t *testing.T) {
	r := rand.NewPCG(1, 9)
	for _, n := range []int{0, 1, 15, 16, 17, 100, 1000} {
		s := rbmtest.RandomSpins(r, n)
		row := make([]float64, n)
		want := 0.0
		for j := range row {
			row[j] = rng.Float64(r) - 0.5
			want += row[j] * float64(s[j])
		}
		if got := Dot64(row, s); math.Abs(got-want) > 1e-12 {
			t.Fatalf("n=%d: Dot64 %v (expected %v)", n, got, want)
		}
		row32 := make([]float32, n)
		want = 0
		for j := range row32 {
			row32[j] = float32(row[j])
			want += float64(row32[j]) * float64(s[j])
		}
		if got := Dot32(row32, s); math.Abs(got-want) > 1e-12 {
			t.Fatalf("n=%d: Dot32 %v (expected %v)", n, got, want)
		}
		f := make([]float64, n)
		AddRow64(f, row, -2)
		for j := range f {
			if f[j] != -2*row[j] {
				t.Fatalf("n=%d: AddRow gives %v at %d (expected %v)", n, f[j], j, -2*row[j])
			}
		}
	}
}
