package sparse

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// TestBucketPrimeAgree runs an engine with the kernels and the walks'
// cache priming (on small models, where the engine would not prime) beside
// the Go code, on the same moves from the same stream, and requires the
// same results and the same whole state after every move: the kernels
// (also those for couplings beyond an int8) give the Go code's bits, and
// prefetching guessed picks changes nothing.
func TestBucketPrimeAgree(t *testing.T) {
	if !bucketAsm {
		t.Skip("no assembly kernels in this build")
	}
	r := rand.New(rand.NewPCG(21, 21))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	for _, tc := range []struct {
		name string
		m    *model.Ising
	}{
		{"torus-pm", torus(t, 12, pm, pm)},
		{"random-deg6", randomGraph(t, 60, 6, true, 0, 2)},
		{"spinglass3d", spinGlass3d(t)},
		{"big-couplings", bigCouplings(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := randomSpins(r, tc.m.N)
			a, b := mustBucketS(t, tc.m, s), mustBucketS(t, tc.m, s)
			a.pf, b.asm = true, false
			for _, e := range []*Bucket{a, b} {
				e.SetBiases(0.8, 1.2, saw.Logistic)
			}
			ra, rb := rand.NewPCG(5, 5), rand.NewPCG(5, 5)
			var pa, pb []int32
			for it := range 300 {
				pa, pb = pa[:0], pb[:0]
				bounds := []int{0}
				for w := range 2 {
					k := 1 + rand.New(ra).IntN(min(tc.m.N, 10))
					rand.New(rb).IntN(min(tc.m.N, 10))
					var la, lb [2]float64
					var da, db float64
					pa, la, da = a.Walk(ra, k, w, pa)
					pb, lb, db = b.Walk(rb, k, w, pb)
					if !slices.Equal(pa, pb) || la != lb || da != db {
						t.Fatalf("move %d walk %d: %v %v %v / %v %v %v", it, w, pa, la, da, pb, lb, db)
					}
					bounds = append(bounds, len(pa))
				}
				rev, revB := make([][2]float64, 2), make([][2]float64, 2)
				if !a.ReverseLogProbs(pa, bounds, rev) || !b.ReverseLogProbs(pb, bounds, revB) || !slices.Equal(rev, revB) {
					t.Fatalf("move %d: reverses differ", it)
				}
				if ra.Uint64()%2 == 0 {
					a.Undo(pa)
					b.Undo(pb)
				}
				rb.Uint64()
				same(t, a, b, fmt.Sprintf("move %d", it))
			}
		})
	}
}

// bigCouplings is a torus whose couplings 2J/g do not fit in an int8
// (the int32 kernels).
func bigCouplings(tb testing.TB) *model.Ising {
	r := rand.New(rand.NewPCG(8, 8))
	return torus(tb, 8, func() float64 { return float64((2*r.IntN(2) - 1) * (1 + 99*r.IntN(2))) }, func() float64 { return 0 })
}
