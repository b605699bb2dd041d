package hybrid_test

import (
	"testing"

	"sardonics/rng"
)

// BenchmarkSwitch measures what keeping both components at the same spins
// costs: a 1:10 cycle against its parts alone (1:0 and 0:10) on the 60 x 60
// frustrated lattice (tree engine, float Metropolis) at beta 1 and 2. The
// difference is a Reset of the Metropolis chain and the flipping (or a
// Reset) of the bits the sweep changed in the SARDONICS engine, per step.
func BenchmarkSwitch(b *testing.B) {
	m := load(b, "frustrated2d:L=60,seed=1")
	for _, beta := range []struct {
		name string
		v    float64
	}{{"beta=1", 1}, {"beta=2", 2}} {
		for _, c := range []struct {
			name string
			a, m int
		}{{"1:0", 1, 0}, {"0:10", 0, 10}, {"1:10", 1, 10}} {
			b.Run(c.name+"/"+beta.name, func(b *testing.B) {
				ch := newHybrid(b, m, beta.v, opts(c.a, c.m, ""), rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables()))
				for range 200 {
					ch.Step()
				}
				b.ResetTimer()
				for range b.N {
					ch.Step()
				}
			})
		}
	}
}
