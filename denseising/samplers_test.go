package denseising_test

import (
	"math/rand/v2"
	"testing"

	_ "sardonics/baseline" // registers gibbs, metropolis, sw, blockgibbs
	"sardonics/denseising"
	"sardonics/exact"
	_ "sardonics/hybrid" // registers hybrid
	"sardonics/internal/rbmtest"
	"sardonics/sampler"
	"sardonics/saw"
	_ "sardonics/sawsampler" // registers sardonics
)

// TestSamplersExact: every registered sampler that runs on a dense model of
// 20 spins (the automatic choice puts it on the dense engines) agrees with
// exact enumeration on the means of the energy, s_0 and s_0 s_1, for real
// and integer couplings; sardonics runs this package's engine.
func TestSamplersExact(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 1.5M states enumerated per model")
	}
	for _, integer := range []bool{false, true} {
		m := rbmtest.RandomDense(t, 20, 0.12, integer, 31)
		m.Spec = "dense20"
		if !m.UseDense() {
			t.Fatal("a complete graph of 20 spins is not dense for the automatic choice")
		}
		probs, err := exact.Probs(m.Sparse(), 1)
		if err != nil {
			t.Fatal(err)
		}
		ran := 0
		for si, name := range sampler.Names() {
			k, _ := sampler.Lookup(name)
			if k.Check != nil && k.Check(m) != nil {
				continue
			}
			ran++
			init := rbmtest.RandomSpins(rand.NewPCG(uint64(si), 1), 20)
			c, done, err := k.New(m, 1, nil, rand.NewPCG(uint64(si), 2), init)
			if err != nil {
				t.Fatal(err)
			}
			if sc, ok := c.(*saw.Chain); ok {
				if _, ok := sc.Engine().(*denseising.Engine); !ok {
					t.Errorf("sardonics runs %T (expected the dense engine)", sc.Engine())
				}
			}
			steps := 60000
			if name == "sardonics" || name == "sw" {
				steps = 150000
			}
			rbmtest.CheckMeans(t, name, c, probs, m.Dense.Energy, steps)
			done()
		}
		if ran < 5 {
			t.Errorf("%d samplers ran (expected sardonics, hybrid, gibbs, metropolis, sw)", ran)
		}
	}
}
