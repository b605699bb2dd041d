package sparse

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
)

// TestDrawPCG: the kernel's generator gives rand.PCG's draws and leaves
// its state where rand.PCG would.
func TestDrawPCG(t *testing.T) {
	if !bucketAsm {
		t.Skip("no assembly kernels in this build")
	}
	for _, n := range []int{1, 2, 7, 100} {
		a, b := rand.NewPCG(3, uint64(n)), rand.NewPCG(3, uint64(n))
		u := make([]uint64, n)
		drawPCG(a, u)
		for i := range u {
			if v := b.Uint64(); v != u[i] {
				t.Fatalf("n=%d: draw %d is %x, want %x", n, i, u[i], v)
			}
		}
		if a.Uint64() != b.Uint64() {
			t.Fatalf("n=%d: states differ after the draws", n)
		}
	}
}

// TestPickRejected drives the walk through pick's last resort: on a model
// whose bits are all in one class of 3 (no couplings, no fields), a member
// draw of all ones has every 2-bit field rejected. The Go code and the
// kernel (which stops, lets its caller draw afresh, and goes on) must
// take the same draws and give the same walk.
func TestPickRejected(t *testing.T) {
	if got := pick(^uint64(0), 3, rand.NewPCG(1, 1)); got >= 3 {
		t.Fatalf("pick gave %d of 3", got)
	}
	if !bucketAsm {
		t.Skip("no assembly kernels in this build")
	}
	m, err := model.NewIsing(3, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mustBucketS(t, m, nil), mustBucketS(t, m, nil)
	a.asm, b.asm = true, false
	u := []uint64{1 << 62, ^uint64(0), 1 << 61, ^uint64(0), 0, ^uint64(0)}
	ra, rb := rand.NewPCG(7, 7), rand.NewPCG(7, 7)
	ua, ub := slices.Clone(u), slices.Clone(u)
	pa := make([]int32, 3)
	wa := walkArgs{ws: newWalkSums(), u: &ua[0], path: &pa[0], k: 3}
	a.walkAsm(&wa, ua, ra)
	wb := newWalkSums()
	pb, dqb := walk(b, b.edges, rb, ub, 0, nil, nil, &wb)
	b.release(pb)
	if !slices.Equal(pa, pb) || wa.ws != wb || wa.dq != dqb {
		t.Fatalf("kernel %v %v %d, Go %v %v %d", pa, wa.ws, wa.dq, pb, wb, dqb)
	}
	if x := ra.Uint64(); x != rb.Uint64() || x == rand.NewPCG(7, 7).Uint64() {
		t.Fatal("the kernel's caller and the Go code took different fresh draws, or none")
	}
	same(t, a, b, "after the walk")
}
