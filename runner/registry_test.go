package runner

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/sampler"
	"sardonics/summary"
)

// independent is a sampler defined only here: every step draws a fresh
// uniform state (exact at beta = 0). Registering it is all it takes for
// the runner to run it: no list or switch in runner names samplers.
type independent struct {
	m     *model.Ising
	r     *rand.PCG
	s     []int8
	e     float64
	steps int64
}

func (c *independent) Step() {
	for i := range c.s {
		c.s[i] = int8(2*(c.r.Uint64()&1)) - 1
	}
	c.e = c.m.Energy(c.s)
	c.steps++
}
func (c *independent) Energy() float64 { return c.e }
func (c *independent) Spins() []int8   { return c.s }
func (c *independent) Stats() sampler.Stats {
	return sampler.Stats{Flips: -1}
}

func init() {
	sampler.Register(sampler.Kind{Name: "independent-test", Rank: 1000,
		New: func(m *model.Model, beta float64, _ any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
			c := &independent{m: m.Ising, r: r, s: slices.Clone(init)}
			c.e = m.Ising.Energy(c.s)
			return c, func() {}, nil
		}})
}

func TestRegisteredSamplerRuns(t *testing.T) {
	m, err := model.Load("ferro2d:L=4")
	if err != nil {
		t.Fatal(err)
	}
	names, err := ParseSamplers("independent-test,gibbs", m)
	if err != nil || !slices.Equal(names, []string{"gibbs", "independent-test"}) {
		t.Fatalf("ParseSamplers = %v, %v", names, err)
	}
	recs, _, err := Run(&Config{Model: m, Beta: 0, Samplers: names, Steps: 2000, Burn: 0, Trials: 2, Seed: 3, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := summary.Summarize("independent-test", recs["independent-test"], 2000, 0, 1)
	// At beta = 0 the mean energy of the 4x4 ferromagnet is 0 and each draw
	// is independent: ESS close to the 4000 draws.
	if !(r.ESS > 3000) || r.EnergyMean < -4*r.EnergyStderr || r.EnergyMean > 4*r.EnergyStderr {
		t.Fatalf("independent sampler: ESS %v, mean %v +- %v", r.ESS, r.EnergyMean, r.EnergyStderr)
	}
}
