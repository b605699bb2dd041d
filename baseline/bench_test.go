package baseline

import (
	"syscall"
	"testing"

	"sardonics/data"
	"sardonics/model"
	"sardonics/rng"
)

func benchChain(b *testing.B, f newFunc, m *model.Model, beta float64, warm int) {
	n := m.Variables()
	c, err := f(m, beta, rng.Stream(1, 1), randomSpins(n, 1))
	if err != nil {
		b.Fatal(err)
	}
	for range warm {
		c.Step()
	}
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for b.Loop() {
		c.Step()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(sec*1e9/float64(b.N)/float64(n), "ns/spin")
	b.ReportMetric(float64(b.N)/sec, "steps/s")
	// The machine may be shared: CPU time per step is the steadier figure.
	b.ReportMetric((cpuSeconds()-cpu0)*1e9/float64(b.N)/float64(n), "cpu-ns/spin")
}

// cpuSeconds is the process's user+system CPU time (the benchmark loop
// allocates nothing, so it is the chain's).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func benchModels(b *testing.B) []struct {
	name string
	m    *model.Model
	beta float64
} {
	return []struct {
		name string
		m    *model.Model
		beta float64
	}{
		{"ferro2d-L60-T2.27", ferro2D(b, 60), 1 / 2.27},
		{"spinglass3d-L9-beta1", spinGlass3D(b, 9, 1), 1},
		{"spinglass3d-L9-realJ-beta1", realJ(b, spinGlass3D(b, 9, 1)), 1}, // float path: exp per spin
	}
}

func BenchmarkGibbs(b *testing.B) {
	for _, tc := range benchModels(b) {
		b.Run(tc.name, func(b *testing.B) { benchChain(b, NewGibbs, tc.m, tc.beta, 100) })
	}
	b.Run("rbm784x500", func(b *testing.B) { benchChain(b, NewGibbs, randomRBM(b, 784, 500, 0.1, false, 1), 1, 2) })
}

func BenchmarkMetropolis(b *testing.B) {
	for _, tc := range benchModels(b) {
		b.Run(tc.name, func(b *testing.B) { benchChain(b, NewMetropolis, tc.m, tc.beta, 100) })
	}
	b.Run("rbm784x500", func(b *testing.B) { benchChain(b, NewMetropolis, randomRBM(b, 784, 500, 0.1, false, 1), 1, 2) })
}

func BenchmarkSW(b *testing.B) {
	b.Run("ferro2d-L60-T2.27", func(b *testing.B) { benchChain(b, NewSW, ferro2D(b, 60), 1/2.27, 100) })
	b.Run("rbm784x500", func(b *testing.B) { benchChain(b, NewSW, randomRBM(b, 784, 500, 0.05, true, 1), 1, 10) })
	b.Run("paper-rbm", func(b *testing.B) {
		m, err := data.PaperRBM()
		if err != nil {
			b.Fatal(err)
		}
		benchChain(b, NewSW, m, 1, 10)
	})
}

// BenchmarkBlockGibbs is one h|v, v|h sweep of a 784 x 500 RBM with
// W ~ N(0, 0.1^2); ns/op is the time per sweep.
func BenchmarkBlockGibbs(b *testing.B) {
	benchChain(b, NewBlockGibbs, randomRBM(b, 784, 500, 0.1, false, 1), 1, 10)
}

// realJ rescales every coupling by a uniform factor in (0,1], so no unit
// divides them and the chains take their float path.
func realJ(b *testing.B, m *model.Model) *model.Model {
	r := rng.Stream(2, 2)
	edges := m.Ising.Edges()
	for k := range edges {
		edges[k].W *= 1 - rng.Float64(r)
	}
	is, err := model.NewIsing(m.Ising.N, edges, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	return &model.Model{Kind: model.KindIsing, Ising: is}
}
