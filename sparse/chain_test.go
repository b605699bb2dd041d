package sparse

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/exact"
	"sardonics/internal/stattest"
	"sardonics/saw"
)

// TestChainExactDistribution runs saw.Chain on each engine and compares
// the visited states with the exact Boltzmann distribution of a small
// model (a finer test than the energy distribution it implies). Tree runs
// on real couplings, bucket on integer ones; every weight and rule appears.
func TestChainExactDistribution(t *testing.T) {
	const (
		M     = 8
		beta  = 0.4
		steps = 80000
		thin  = 4
	)
	th := []saw.Theta{{KL: 1, KU: 4, GL: 0.7, GH: 1.2, PLL: 0.3, PHL: 0.4, PLH: 0.3, N: 1}}
	for fi, f := range factories {
		for oi, opts := range []saw.Options{{}, {Weight: saw.Exp, Accept: saw.Joint, Layout: saw.Pairs}} {
			m := randomGraph(t, M, 4, f.integer, 0.8, uint64(20+b2i(f.integer)))
			probs, err := exact.Probs(m, beta)
			if err != nil {
				t.Fatal(err)
			}
			eng := f.make(t, m, nil)
			// Use the engine's fast reverse on every move (it refuses
			// some, which replay) and count them: both paths must keep pi
			// exact.
			var cr *countRev
			if _, ok := eng.(saw.FastReverser); ok {
				cr = newCountRev(eng)
				eng = cr
			}
			c, err := saw.NewChain(eng, beta, th, opts, rand.NewPCG(uint64(fi), uint64(oi)))
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]float64, 1<<M)
			for i := range steps {
				c.Step()
				if i%thin == 0 {
					counts[stateIndex(c.Spins())]++
				}
			}
			if d := math.Abs(c.Energy() - m.Energy(c.Spins())); d > 1e-9 {
				t.Errorf("%s: tracked energy off by %g", f.name, d)
			}
			if cr != nil {
				t.Logf("%s: fast reverse refused on %d of %d moves", f.name, cr.refused, cr.calls)
				if f.name != "tree-direct" && !(cr.refused*2 < cr.calls) {
					t.Errorf("%s: fast reverse refused on %d of %d moves", f.name, cr.refused, cr.calls)
				}
			}
			stat, df, p := stattest.ChiSquare(counts, probs)
			t.Logf("%s %+v: chi2 %.1f df %d p %.3g, acceptance %.2f", f.name, opts, stat, df, p,
				float64(c.Stats().Accepted)/float64(c.Stats().Proposed))
			if !(p > 1e-4) {
				t.Errorf("%s %+v: chi-square %.1f with %d df, p = %.3g (expected p > 1e-4)", f.name, opts, stat, df, p)
			}
		}
	}
}

// stateIndex has bit i set when s_i = +1, as exact.Probs.
func stateIndex(s []int8) int {
	k := 0
	for i, v := range s {
		if v == 1 {
			k |= 1 << i
		}
	}
	return k
}

// TestLargeCouplings runs chains with |J| = |h| = 1000 at beta = 1: weights
// hit the clamp, yet every walk probability stays finite, the energy stays
// exact, and moves are accepted.
func TestLargeCouplings(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	big := func() float64 { return 1000 * float64(2*r.IntN(2)-1) }
	m := torus(t, 6, big, big)
	for _, f := range factories {
		for _, w := range []saw.Weight{saw.Logistic, saw.Exp} {
			eng := f.make(t, m, randomSpins(r, m.N))
			th := []saw.Theta{{KL: 1, KU: 8, GL: 0.5, GH: 1, PLL: 0.3, PHL: 0.4, PLH: 0.3, N: 2}}
			c, err := saw.NewChain(eng, 1, th, saw.Options{Weight: w}, rand.NewPCG(1, 1))
			if err != nil {
				t.Fatal(err)
			}
			for range 2000 {
				c.Step()
			}
			if c.Stats().Accepted == 0 {
				t.Errorf("%s %v: no move accepted", f.name, w)
			}
			if e := m.Energy(eng.Spins()); eng.Energy() != e {
				t.Errorf("%s %v: energy %v, model says %v", f.name, w, eng.Energy(), e)
			}
			// Walks and their reverses from the final state are finite.
			pcg := rand.NewPCG(2, 2)
			start := slices.Clone(eng.Spins())
			for b := range 2 {
				path, lf, dE := eng.Walk(pcg, 10, b, nil)
				rev, rdE := eng.Replay(path, true)
				for _, x := range []float64{lf[0], lf[1], rev[0], rev[1], dE, rdE} {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("%s %v: walk gave %v (fwd %v, rev %v)", f.name, w, x, lf, rev)
					}
				}
			}
			if !slices.Equal(eng.Spins(), start) {
				t.Fatalf("%s %v: walk and reverse did not restore the state", f.name, w)
			}
		}
	}
}
