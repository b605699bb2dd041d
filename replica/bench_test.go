package replica_test

import (
	"fmt"
	"runtime"
	"testing"

	"sardonics/internal/handoff"
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

// BenchmarkICM prices the cluster move against Metropolis sweeps on the
// same model: spinglass3d:L=8,seed=1 (16 rungs from beta 0.4 to 2) and
// spinglass2d:L=32,seed=1 (24 rungs from beta 0.3 to 1/0.3), at the target
// rung and at the hottest, after 2000 steps of the ladder with the move at
// every rung. "sweeps" is one Metropolis sweep of each of the two members
// at the rung; "sweeps+icm" adds one move between them (count the q = -1
// sites, draw the seed, search the cluster, flip it in both), so that each
// move meets a new pair of states; the difference is the move's cost, and
// half of "sweeps" is one sweep. sites/op is the mean cluster.
// "sweeps+icm-twoflips" flips the two members one after the other, as
// chains without sampler.PairFlipper are. Compare
// with benchstat:
//
//	go test ./replica -run XXX -bench ICM -count 6 | tee /tmp/icm.txt
func BenchmarkICM(b *testing.B) {
	for _, tc := range []struct {
		name, spec string
		lo, hi     float64
		R          int
	}{
		{"3d-L8", "spinglass3d:L=8,seed=1", 0.4, 2, 16},
		{"2d-L32", "spinglass2d:L=32,seed=1", 0.3, 1 / 0.3, 24},
	} {
		m, err := model.Load(tc.spec)
		if err != nil {
			b.Fatal(err)
		}
		is := m.Sparse()
		cfg := replica.Config{Betas: replica.Geometric(tc.lo, tc.hi, tc.R), SwapEvery: 1, Sets: 2,
			Cluster: replica.ICM, Graph: replica.Graph{Start: is.Start, Adj: is.Adj, Even: is.NoFields()}, ClusterBetaMin: tc.lo}
		c, err := replica.New(cfg, builder("metropolis", m, "", 0), rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables()))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		for range 2000 {
			c.Step()
		}
		for _, rung := range []struct {
			name string
			k    int
		}{{"target", tc.R - 1}, {"hottest", 0}} {
			x, y := c.RungChain(0, rung.k), c.RungChain(1, rung.k)
			b.Run(tc.name+"/"+rung.name+"/sweeps", func(b *testing.B) {
				for b.Loop() {
					x.Step()
					y.Step()
				}
			})
			icm := func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				sites := 0
				var sweepNs, moveNs int64
				for b.Loop() {
					t0 := handoff.ThreadCPU()
					x.Step()
					y.Step()
					t1 := handoff.ThreadCPU()
					sites += c.ClusterMove(rung.k)
					t2 := handoff.ThreadCPU()
					sweepNs += t1 - t0
					moveNs += t2 - t1
				}
				b.ReportMetric(float64(sites)/float64(b.N), "sites/op")
				// The thread's CPU time, which a busy machine inflates far
				// less than the wall time: the move's cost in sweeps of
				// one member and per cluster site. Each reading is a
				// system call (about 0.4 us here), which each interval
				// includes once: it weighs on the move of a small cluster.
				b.ReportMetric(float64(moveNs)/(float64(sweepNs)/2), "sweeps/move")
				if sites > 0 {
					b.ReportMetric(float64(moveNs)/float64(sites), "cpu-ns/site")
				}
			}
			b.Run(tc.name+"/"+rung.name+"/sweeps+icm", icm)
			b.Run(tc.name+"/"+rung.name+"/sweeps+icm-twoflips", func(b *testing.B) {
				defer replica.NoPairFlip()()
				icm(b)
			})
		}
	}
}
