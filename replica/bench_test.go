package replica_test

import (
	"fmt"
	"testing"

	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
	"sardonics/sampler"
)

// BenchmarkOverhead compares, per step of all 16 rungs, replica exchange
// (swaps every 1 and 10 steps, one worker) with the same 16 chains
// stepped side by side without swaps: the difference is what replica
// exchange adds (issue 16: under 5% at R = 16). spinglass3d:L=9 at beta 2,
// ladder from beta 0.2. Compare with benchstat:
//
//	go test ./replica -run XXX -bench Overhead -count 6 | tee /tmp/rx.txt
func BenchmarkOverhead(b *testing.B) {
	m, err := model.Load("spinglass3d:L=9,seed=1")
	if err != nil {
		b.Fatal(err)
	}
	betas := replica.Geometric(0.2, 2, 16)
	for _, k := range []string{"metropolis", "sardonics"} {
		build := builder(k, m, "", 0)
		b.Run(k+"/plain", func(b *testing.B) {
			var chs []sampler.Chain
			for i, beta := range betas {
				c, rel, err := build(beta, rng.Sub(1, uint64(i), 2), randomSpins(rng.Sub(1, uint64(i), 3), m.Variables()))
				if err != nil {
					b.Fatal(err)
				}
				defer rel()
				chs = append(chs, c)
			}
			for b.Loop() {
				for _, c := range chs {
					c.Step()
				}
			}
		})
		for _, every := range []int{1, 10} {
			b.Run(fmt.Sprintf("%s/swap-every-%d", k, every), func(b *testing.B) {
				cfg := replica.Config{Betas: betas, SwapEvery: every, Sets: 1}
				c, err := replica.New(cfg, build, rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables()))
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				for b.Loop() {
					c.Step()
				}
			})
		}
	}
}
