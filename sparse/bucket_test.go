package sparse

import (
	"math/rand/v2"
	"testing"
)

// checkBucket verifies the bucket's redundant per-bit and per-class state
// with all bits available: each bit's cached class is the class of its dE,
// each sits at its position in its class's array, the class counts and
// the per-class arrays agree, and no bit is counted unavailable.
func checkBucket(t *testing.T, bk *Bucket) {
	t.Helper()
	n := make([]int32, len(bk.cl))
	for i := range bk.bits {
		b := &bk.bits[i]
		c := bk.cls[b.qb]
		if b.c != c {
			t.Fatalf("bit %d: cached class %d, dE class %d", i, b.c, c)
		}
		if int(b.s) != int(bk.s[i]) {
			t.Fatalf("bit %d: spin %d, state %d", i, b.s, bk.s[i])
		}
		cl := bk.cl[c]
		if b.pos < cl.base || b.pos >= cl.base+cl.cnt || bk.mem[b.pos] != int32(i) {
			t.Fatalf("bit %d: position %d outside class %d [%d, %d) or not holding it", i, b.pos, c, cl.base, cl.base+cl.cnt)
		}
		n[c]++
	}
	for c, cl := range bk.cl {
		if cl.cnt != n[c] || bk.tcnt[c] != 0 {
			t.Fatalf("class %d: count %d, %d members, %d unavailable", c, cl.cnt, n[c], bk.tcnt[c])
		}
	}
}

// TestBucketConsistent runs walks, fast reverses, undos, flips and
// replays, and checks the bucket's state after each against a fresh
// engine built from its spins (energy) and against checkBucket.
func TestBucketConsistent(t *testing.T) {
	for seed := range uint64(3) {
		m := randomGraph(t, 40, 4, true, 0, seed+10)
		r := rand.New(rand.NewPCG(seed, 30))
		pcg := rand.NewPCG(seed, 31)
		bk, err := NewBucket(m, randomSpins(r, m.N))
		if err != nil {
			t.Fatal(err)
		}
		bk.SetBiases(0.7, 1.3, 0)
		checkBucket(t, bk)
		var path []int32
		for it := range 200 {
			path = path[:0]
			bounds := []int{0}
			for range 1 + r.IntN(3) {
				path, _, _ = bk.Walk(pcg, 1+r.IntN(m.N/2), r.IntN(2), path)
				bounds = append(bounds, len(path))
			}
			checkBucket(t, bk)
			rev := make([][2]float64, len(bounds)-1)
			if !bk.ReverseLogProbs(path, bounds, rev) {
				t.Fatal("ReverseLogProbs refused the move's own walks")
			}
			switch it % 3 {
			case 0:
				bk.Undo(path)
			case 1:
				for w := len(bounds) - 2; w >= 0; w-- {
					bk.Replay(path[bounds[w]:bounds[w+1]], true)
				}
				bk.Flip(path)
			}
			checkBucket(t, bk)
			ref, _ := NewBucket(m, bk.Spins())
			if ref.Energy() != bk.Energy() {
				t.Fatalf("it %d: energy %g, recomputed %g", it, bk.Energy(), ref.Energy())
			}
		}
	}
}
