package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// TestBucketKernelsAgree runs the assembly kernels and the Go code side by
// side, on two engines that see the same calls (walks of several lengths
// at both biases, fast reverses, undos, flips, replays, new biases) on
// random models, and requires the same results and the same whole state
// after every call, bit for bit.
func TestBucketKernelsAgree(t *testing.T) {
	if !bucketAsm {
		t.Skip("no assembly kernels in this build")
	}
	r := rand.New(rand.NewPCG(13, 13))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	zero := func() float64 { return 0 }
	small := func() float64 { return float64(r.IntN(7) - 3) }
	models := []struct {
		name string
		m    *model.Ising
	}{
		{"torus-pm", torus(t, 12, pm, pm)},
		{"torus-nofield", torus(t, 10, pm, zero)},
		{"torus-small", torus(t, 6, small, pm)},
		{"random-deg3", randomGraph(t, 80, 3, true, 0, 1)},
		{"random-deg6", randomGraph(t, 60, 6, true, 0, 2)},
		{"random-deg12", randomGraph(t, 40, 12, true, 0, 3)},
		{"random-sparse", randomGraph(t, 30, 1, true, 0, 4)},
		{"tiny", randomGraph(t, 3, 2, true, 0, 5)},
		{"spinglass3d", spinGlass3d(t)},
	}
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			if !Qualifies(tc.m) {
				t.Skip("model does not qualify")
			}
			agreeOn(t, tc.m, r)
		})
	}
}

func agreeOn(t *testing.T, m *model.Ising, r *rand.Rand) {
	s := randomSpins(r, m.N)
	a := mustBucketS(t, m, s)
	b := mustBucketS(t, m, s)
	a.asm, b.asm = true, false
	same(t, a, b, "start")
	var path, pa, pb []int32
	var rev, revB [][2]float64
	for it := range 400 {
		if it%50 == 0 {
			gl, gh := 0.1+3*r.Float64(), 0.1+3*r.Float64()
			if r.IntN(3) == 0 {
				gl = gh
			}
			w := saw.Weight(r.IntN(2))
			a.SetBiases(gl, gh, w)
			b.SetBiases(gl, gh, w)
		}
		switch op := r.IntN(10); {
		case op < 7: // a move: walks, the fast reverse, then accept or undo
			nw := 1 + r.IntN(4)
			bounds := []int{0}
			pa, pb = pa[:0], pb[:0]
			for w := range nw {
				k := r.IntN(min(m.N, 12) + 1)
				if r.IntN(8) == 0 {
					k = r.IntN(m.N + 1)
				}
				k = min(k, m.N-len(pa))
				bias := r.IntN(2)
				seed := r.Uint64()
				var la, lb [2]float64
				var da, db float64
				pa, la, da = a.Walk(rand.NewPCG(seed, 1), k, bias, pa)
				pb, lb, db = b.Walk(rand.NewPCG(seed, 1), k, bias, pb)
				label := fmt.Sprintf("move %d walk %d (k=%d)", it, w, k)
				if !slices.Equal(pa, pb) || !sameFloats(la[:], lb[:]) || !sameFloats([]float64{da}, []float64{db}) {
					t.Fatalf("%s: walks differ: %v %v %v / %v %v %v", label, pa, la, da, pb, lb, db)
				}
				same(t, a, b, label)
				bounds = append(bounds, len(pa))
			}
			rev = append(rev[:0], make([][2]float64, nw)...)
			revB = append(revB[:0], make([][2]float64, nw)...)
			oka := a.ReverseLogProbs(pa, bounds, rev)
			okb := b.ReverseLogProbs(pb, bounds, revB)
			if oka != okb || !sameFloats(flat(rev), flat(revB)) {
				t.Fatalf("move %d: reverses differ: %v %v / %v %v", it, oka, rev, okb, revB)
			}
			same(t, a, b, fmt.Sprintf("move %d reverse", it))
			if r.IntN(2) == 0 {
				a.Undo(pa)
				b.Undo(pb)
				same(t, a, b, fmt.Sprintf("move %d undo", it))
			}
		case op < 8:
			path = randomPath(r, m.N, r.IntN(min(m.N, 20)+1))
			a.Flip(path)
			b.Flip(path)
			same(t, a, b, fmt.Sprintf("flip %d", it))
			// A walk that continues a path it did not draw: no record.
			pre := path[:r.IntN(len(path)+1)]
			k := r.IntN(min(m.N-len(pre), 12) + 1)
			seed := r.Uint64()
			pa, la, da := a.Walk(rand.NewPCG(seed, 2), k, 1, slices.Clone(pre))
			pb, lb, db := b.Walk(rand.NewPCG(seed, 2), k, 1, slices.Clone(pre))
			if !slices.Equal(pa, pb) || !sameFloats(la[:], lb[:]) || !sameFloats([]float64{da}, []float64{db}) {
				t.Fatalf("flip %d: walks differ", it)
			}
			same(t, a, b, fmt.Sprintf("flip %d walk", it))
		default:
			path = randomPath(r, m.N, r.IntN(min(m.N, 20)+1))
			back := r.IntN(2) == 0
			la, da := a.Replay(path, back)
			lb, db := b.Replay(path, back)
			if !sameFloats(la[:], lb[:]) || !sameFloats([]float64{da}, []float64{db}) {
				t.Fatalf("replay %d: %v %v / %v %v", it, la, da, lb, db)
			}
			same(t, a, b, fmt.Sprintf("replay %d", it))
			if !back {
				bounds := []int{0, len(path)}
				rev = append(rev[:0], [2]float64{})
				revB = append(revB[:0], [2]float64{})
				oka := a.ReverseLogProbs(path, bounds, rev)
				okb := b.ReverseLogProbs(path, bounds, revB)
				if oka != okb || !sameFloats(flat(rev), flat(revB)) {
					t.Fatalf("replay %d: reverses differ: %v %v / %v %v", it, oka, rev, okb, revB)
				}
				same(t, a, b, fmt.Sprintf("replay %d reverse", it))
			}
		}
	}
}

func mustBucketS(t *testing.T, m *model.Ising, s []int8) *Bucket {
	b, err := NewBucket(m, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func flat(x [][2]float64) []float64 {
	var out []float64
	for _, v := range x {
		out = append(out, v[0], v[1])
	}
	return out
}

func sameFloats(x, y []float64) bool {
	return slices.EqualFunc(x, y, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
}

// same fails unless a and b hold the same state: spins, bits, class lists
// and counts, energy, and the move's record.
func same(t *testing.T, a, b *Bucket, label string) {
	t.Helper()
	nc := len(a.cl)
	ok := slices.Equal(a.s, b.s) && slices.Equal(a.bits, b.bits) && slices.Equal(a.mem, b.mem) &&
		a.cla == b.cla && a.tca == b.tca && a.eInt == b.eInt && a.recN == b.recN &&
		a.w == b.w && a.lw == b.lw
	if ok && a.recN >= 0 {
		ok = slices.Equal(a.rec[:a.recN*nc], b.rec[:b.recN*nc])
	}
	if !ok {
		t.Fatalf("%s: engine states differ", label)
	}
}
