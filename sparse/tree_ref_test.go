package sparse

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/saw"
)

// treeRefReplay is the log-probability at both biases of replaying path
// (in reverse order if backwards) from spins s0 with the tree's quantized
// weights, everything computed from scratch from the model at every pick
// (fixed-point fields, classes, weights, exact sums): the definition the
// tree's incremental sums, Walk, Replay and ReverseLogProbs must equal.
func treeRefReplay(e *Tree, s0 []int8, path []int32, backwards bool) [2]float64 {
	m := e.m
	fx := newFix(m)
	tb := newWtab(fx.s, e.wb, e.gam, e.wt)
	if backwards {
		path = slices.Clone(path)
		slices.Reverse(path)
	}
	s := slices.Clone(s0)
	F := make([]int32, len(s))
	taken := make([]bool, len(s))
	var lf [2]float64
	for _, l := range path {
		fx.fields(m, s, F)
		var z [2]uint64
		for u := range s {
			if !taken[u] {
				w := tb.pair(int32(s[u]) * F[u])
				z[0] += w[0]
				z[1] += w[1]
			}
		}
		lw := tb.logPair(int32(s[l]) * F[l])
		for b := range 2 {
			lf[b] += lw[b] - math.Log(float64(z[b]))
		}
		taken[l] = true
		s[l] = -s[l]
	}
	return lf
}

// replayRef replays path on the reference engine ref and returns its
// log-probabilities and energy change, except that for a tree engine eng
// the log-probabilities are treeRefReplay's from ref's state (the tree's
// weights are quantized, not exp(saw.LogWeight)); the energies stay the
// reference's.
func replayRef(eng, ref saw.Engine, path []int32, backwards bool) ([2]float64, float64) {
	tr, isTree := eng.(*Tree)
	var want [2]float64
	if isTree {
		want = treeRefReplay(tr, ref.Spins(), path, backwards)
	}
	lf, dE := ref.Replay(path, backwards)
	if isTree {
		lf = want
	}
	return lf, dE
}

// TestTreeMatchesReference checks the tree's Walk, Replay (both ways) and
// ReverseLogProbs against treeRefReplay bit for bit in the exact parts:
// the fast reverse equals the backward replay exactly, and both are within
// rounding of the from-scratch reference, on models with real, integer,
// huge and high-degree couplings.
func TestTreeMatchesReference(t *testing.T) {
	ms := testModels(t, factories[0])
	ms = append(ms, torus(t, 5, func() float64 { return 1000 }, func() float64 { return -700 }))
	for mi, m := range ms {
		for _, bc := range biasCases {
			r := rand.New(rand.NewPCG(uint64(mi), 3))
			eng := NewTree(m, randomSpins(r, m.N))
			eng.SetBiases(bc.gl, bc.gh, bc.w)
			pcg := rand.NewPCG(uint64(mi), 4)
			for it := range 30 {
				start := slices.Clone(eng.Spins())
				path, lf, _ := eng.Walk(pcg, 1+r.IntN(m.N), it%2, nil)
				want := treeRefReplay(eng, start, path, false)
				closeLF(t, "walk vs reference", lf, want)
				end := slices.Clone(eng.Spins())
				var rev [1][2]float64
				if !eng.ReverseLogProbs(path, []int{0, len(path)}, rev[:]) {
					t.Fatalf("m%d it %d: fast reverse refused", mi, it)
				}
				if !slices.Equal(eng.Spins(), end) {
					t.Fatal("ReverseLogProbs changed the state")
				}
				closeLF(t, "fast reverse vs reference", rev[0], treeRefReplay(eng, end, path, true))
				back, _ := eng.Replay(path, true)
				if back != rev[0] {
					t.Fatalf("m%d it %d: fast reverse %v, replay %v (expected identical)", mi, it, rev[0], back)
				}
				if !slices.Equal(eng.Spins(), start) {
					t.Fatal("replay did not restore the start")
				}
				if it%2 == 0 {
					eng.Flip(path)
				}
				// The sums are the state's: a fresh engine has the same tree.
				fresh := NewTree(m, eng.Spins())
				fresh.SetBiases(bc.gl, bc.gh, bc.w)
				if !slices.Equal(fresh.node, eng.node) || !slices.Equal(fresh.bits, eng.bits) {
					t.Fatalf("m%d it %d: incremental tree differs from a fresh one", mi, it)
				}
			}
		}
	}
}

// TestTreeWeightTables: every weight is an integer in [1, 2^wb] with its
// logarithm beside it, non-increasing in the class, and within 8% of the
// ideal weight exp(saw.LogWeight) (up to the tables' scale) wherever that
// is at least 2^-20 of the largest.
func TestTreeWeightTables(t *testing.T) {
	for _, wf := range []saw.Weight{saw.Logistic, saw.Exp} {
		for _, S := range []int{24, 10, -3} {
			for _, wb := range []uint{52, 34} {
				for _, g := range [][2]float64{{0.95, 1.05}, {1, 1}, {0.05, 3}, {0, 1}, {1e6, 2e6}} {
					tb := newWtab(S, wb, g, wf)
					one := math.Ldexp(1, int(wb))
					for b := range 2 {
						delta := math.Ldexp(1, int(tb.sh)-S+1)
						norm := 0.0
						if wf == saw.Exp {
							norm = -float64(wb+1) * math.Ln2 / 2
						}
						for c := range tClasses {
							w := tb.w[c][b]
							if w < 1 || float64(w) > one || tb.lw[c][b] != math.Log(float64(w)) {
								t.Fatalf("%v S=%d g=%v: class %d weight %d, log %g", wf, S, g, c, w, tb.lw[c][b])
							}
							if c > 0 && w > tb.w[c-1][b] {
								t.Fatalf("%v S=%d g=%v: weights increase at class %d", wf, S, g, c)
							}
							dE := (float64(c-tHalf) + 0.5) * delta
							ideal := math.Exp(saw.LogWeight(wf, g[b], dE)+norm) * one
							if ideal >= one/(1<<20) && ideal <= one && math.Abs(float64(w)/ideal-1) > 0.08 {
								t.Fatalf("%v S=%d g=%v: class %d (dE %g) weight %d (ideal %g)", wf, S, g, c, dE, w, ideal)
							}
						}
					}
				}
			}
		}
	}
}

// TestLogHalf: the tree's logarithm agrees with math.Log on [0.5, 1) to a
// few ulps.
func TestLogHalf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for i := range 200000 {
		m := 0.5 + r.Float64()/2
		if i < 2 {
			m = []float64{0.5, math.Nextafter(1, 0)}[i]
		}
		got, want := logHalf(m), math.Log(m)
		if math.Abs(got-want) > 4e-16*max(1, math.Abs(want)) {
			t.Fatalf("logHalf(%v) = %v, math.Log %v", m, got, want)
		}
	}
	if p := newTLogProd(); math.Abs(p.log()) > 1e-15 {
		t.Fatalf("log of the empty product is %v", p.log())
	}
	for _, z := range []float64{1, 3, 1e18, 4.6e18, 12345.678} {
		p := newTLogProd()
		p.mul(z)
		p.mul(z)
		if got, want := p.log(), 2*math.Log(z); math.Abs(got-want) > 1e-14*max(1, want) {
			t.Fatalf("log(%v^2) = %v, want %v", z, got, want)
		}
	}
}
