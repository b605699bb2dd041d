package denseising_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"sardonics/denseising"
	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/saw"
	"sardonics/sparse"
)

// randomGraph is G(n, p) with couplings N(0, 1/(p (n-1))), h = 0 (as
// baseline's benchmark).
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

// BenchmarkDenseThreshold prices a SARDONICS flip (default theta, beta 2)
// on the sparse engines (sparse.New "auto": the tree for real couplings)
// and on this package's engine, on the models of baseline's benchmark
// (thread CPU ns per flip).
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
		for _, path := range []string{"sparse", "dense"} {
			b.Run(fmt.Sprintf("N=%d/p=%g/sardonics/%s", c.n, c.p, path), func(b *testing.B) {
				s := rbmtest.RandomSpins(rand.NewPCG(7, 7), c.n)
				var eng saw.Engine
				if path == "dense" {
					eng = denseising.New(m.DenseForm(), s)
				} else {
					var err error
					if eng, err = sparse.New(m.Sparse(), s, "auto"); err != nil {
						b.Fatal(err)
					}
				}
				ch, err := saw.NewChain(eng, 2, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(1, 1))
				if err != nil {
					b.Fatal(err)
				}
				for range 200 {
					ch.Step()
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				f0, c0 := ch.Stats().Flips, threadCPU()
				for b.Loop() {
					ch.Step()
				}
				b.ReportMetric((threadCPU()-c0)/float64(ch.Stats().Flips-f0), "cpu-ns/flip")
			})
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
