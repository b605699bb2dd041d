package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// randomGraph is G(n, p) with couplings N(0, 1/(p (n-1))) (fields of
// order 1 at any density, as in SK), h = 0.
func randomGraph(tb testing.TB, n int, p float64, seed uint64) *model.Model {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	sd := 1 / math.Sqrt(p*float64(n-1))
	var edges []model.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if r.Float64() < p {
				edges = append(edges, model.Edge{I: int32(i), J: int32(j), W: sd * r.NormFloat64()})
			}
		}
	}
	is, err := model.NewIsing(n, edges, nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return &model.Model{Kind: model.KindIsing, Ising: is}
}

// BenchmarkDenseThreshold prices a Metropolis and a Gibbs update on the
// sparse (CSR) and the dense paths of the same models at beta 2: random
// graphs of 1000 spins over densities, and complete graphs over sizes
// (thread CPU ns per update). model.DenseMinDensity and DenseMinDegree come from it.
func BenchmarkDenseThreshold(b *testing.B) {
	type mc struct {
		n int
		p float64
	}
	var cases []mc
	for _, p := range []float64{0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 1} {
		cases = append(cases, mc{1000, p})
	}
	for _, n := range []int{8, 16, 32, 64, 128} {
		cases = append(cases, mc{n, 1})
	}
	for _, c := range cases {
		m := randomGraph(b, c.n, c.p, 1)
		for _, metro := range []bool{true, false} {
			name := "gibbs"
			if metro {
				name = "metropolis"
			}
			for _, path := range []string{"sparse", "dense"} {
				b.Run(fmt.Sprintf("N=%d/p=%g/%s/%s", c.n, c.p, name, path), func(b *testing.B) {
					s := randomSpins(c.n, 7)
					var ch sampler.Chain
					if path == "dense" {
						ch = newDenseSingle(m.DenseForm(), 2, rng.Stream(1, 1), s, metro)
					} else {
						ch = newSparseSingle(m.Sparse(), 2, rng.Stream(1, 1), s, metro)
					}
					for range 20 { // past the start's burst of accepted flips
						ch.Step()
					}
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					c0 := threadCPU()
					for b.Loop() {
						ch.Step()
					}
					b.ReportMetric((threadCPU()-c0)/float64(b.N*c.n), "cpu-ns/update")
				})
			}
		}
	}
}

// threadCPU is the calling thread's CPU time in ns (the benchmarks lock
// their goroutine to it): on a shared machine wall time counts the other
// processes too.
func threadCPU() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return float64(ts.Nano())
}
