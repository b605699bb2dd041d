package hybrid

import (
	"math/rand/v2"

	"sardonics/model"
	"sardonics/sampler"
	"sardonics/saw"
)

// The hybrid sampler's registration: rank 5, between sardonics (0) and
// gibbs (10). Its opts are an Options (see resolve for the others).
func init() {
	sampler.Register(sampler.Kind{Name: "hybrid", Rank: 5, New: newKind, CPUs: cpus, WorkClock: true,
		// Metropolis is its cheap cycle (1:0), with which its ladder also
		// adapts: its default cycle's SARDONICS moves made the pilot 30
		// times dearer (44 s against 1.4 s on frustrated2d:L=60, 64 rungs).
		Pilot: "metropolis", DefaultCycle: defaultCycle})
}

// defaultCycle is DefaultCycle on m with the SARDONICS settings in opts
// (sampler.Kind.DefaultCycle).
func defaultCycle(m *model.Model, opts any) (a, k int) {
	var th []saw.Theta
	if ts, ok := opts.(ThetaSource); ok {
		th = ts.SAWThetas()
	}
	return DefaultCycle(m.Variables(), th)
}

func newKind(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
	c, rel, err := New(m, beta, opts, r, init)
	if err != nil {
		return nil, rel, err
	}
	return c, rel, nil
}

// cpus is what the SARDONICS component occupies (its parallel engine's
// sections), 1 without one: the Metropolis sweeps run on the caller's
// thread, between its moves.
func cpus(m *model.Model, opts any) int {
	o, err := resolve(opts, m.Variables())
	if err != nil || o.M == 0 {
		return 1
	}
	k, ok := sampler.Lookup(kindNames[sard])
	if !ok {
		return 1
	}
	return k.ChainCPUs(m, o.SAW)
}
