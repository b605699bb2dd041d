package baseline

import (
	"fmt"
	"math/rand/v2"

	"sardonics/model"
	"sardonics/sampler"
)

// The baselines' registrations (see sampler.Kind). Ranks follow
// sardonics's (0): gibbs, metropolis, sw, blockgibbs.
func init() {
	plain := func(f func(*model.Model, float64, *rand.PCG, []int8) (sampler.Chain, error)) func(*model.Model, float64, any, *rand.PCG, []int8) (sampler.Chain, func(), error) {
		return func(m *model.Model, beta float64, _ any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
			c, err := f(m, beta, r, init)
			return c, func() {}, err
		}
	}
	sampler.Register(sampler.Kind{Name: "gibbs", Rank: 10, New: plain(NewGibbs)})
	sampler.Register(sampler.Kind{Name: "metropolis", Rank: 20, New: plain(NewMetropolis)})
	sampler.Register(sampler.Kind{Name: "sw", Rank: 30, New: plain(NewSW),
		Untempered: "its bond probabilities are built for one beta"})
	sampler.Register(sampler.Kind{Name: "blockgibbs", Rank: 40, New: plain(NewBlockGibbs),
		Check: func(m *model.Model) error {
			if m.RBM == nil {
				return fmt.Errorf("blockgibbs needs a bipartite model (an RBM); %s is not one", m.Spec)
			}
			return nil
		}})
}
