package sparse

import (
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"sardonics/model"
	"sardonics/saw"
)

// Benchmark models, built here with model.NewIsing so the benchmarks do
// not depend on the generators.

func ferro2d(tb testing.TB) *model.Ising {
	return torus(tb, 60, func() float64 { return 1 }, func() float64 { return 0 })
}

func frustrated2d(tb testing.TB) *model.Ising {
	r := rand.New(rand.NewPCG(1, 2))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	return torus(tb, 60, pm, pm)
}

func spinGlass3d(tb testing.TB) *model.Ising {
	const L = 9
	r := rand.New(rand.NewPCG(3, 4))
	idx := func(x, y, z int) int32 { return int32(((x%L)*L+y%L)*L + z%L) }
	var edges []model.Edge
	for x := range L {
		for y := range L {
			for z := range L {
				for _, j := range []int32{idx(x+1, y, z), idx(x, y+1, z), idx(x, y, z+1)} {
					edges = append(edges, model.Edge{I: idx(x, y, z), J: j, W: float64(2*r.IntN(2) - 1)})
				}
			}
		}
	}
	m, err := model.NewIsing(L*L*L, edges, nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// chimera is C(M, N, T) in D-Wave's linear order with J uniform on [-1, 1].
func chimera(tb testing.TB, M, N, T int) *model.Ising {
	r := rand.New(rand.NewPCG(5, 6))
	idx := func(i, j, u, k int) int32 { return int32(((i*N+j)*2+u)*T + k) }
	var edges []model.Edge
	add := func(a, b int32) { edges = append(edges, model.Edge{I: a, J: b, W: 2*r.Float64() - 1}) }
	for i := range M {
		for j := range N {
			for k := range T {
				for k2 := range T {
					add(idx(i, j, 0, k), idx(i, j, 1, k2))
				}
				if i+1 < M {
					add(idx(i, j, 0, k), idx(i+1, j, 0, k))
				}
				if j+1 < N {
					add(idx(i, j, 1, k), idx(i, j+1, 1, k))
				}
			}
		}
	}
	m, err := model.NewIsing(M*N*2*T, edges, nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// benchTheta is kl=1, ku=40, n=1 with the default biases.
var benchTheta = saw.Theta{KL: 1, KU: 40, GL: 0.95, GH: 1.05, PLL: 0.4, PHL: 0.3, PLH: 0.3, N: 1}

// benchEngine runs a saw.Chain (blocks, marginal, logistic; theta
// benchTheta at beta = 1) on eng and reports the cost of a move per
// proposed flip (the summed lengths of the forward walks).
func benchEngine(b *testing.B, eng saw.Engine) {
	c, err := saw.NewChain(eng, 1, []saw.Theta{benchTheta}, saw.Options{}, rand.NewPCG(1, 2))
	if err != nil {
		b.Fatal(err)
	}
	for range 200 { // warm up: leave the all-up state
		c.Step()
	}
	flips0, bf0 := c.Stats().Flips, c.Stats().Flips
	best := math.Inf(1)
	cpu0 := cpuTime()
	t0 := time.Now()
	for b.Loop() {
		c.Step()
		if f := c.Stats().Flips; f-bf0 >= 2000 {
			best = min(best, float64(time.Since(t0).Nanoseconds())/float64(f-bf0))
			bf0, t0 = f, time.Now()
		}
	}
	flips := float64(c.Stats().Flips - flips0)
	// On a shared machine wall time counts other processes' slices: CPU
	// time per flip is steadier, and the best batch of about 2000 flips
	// estimates the cost on an idle core.
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/flips, "ns/flip")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/flips, "cpu-ns/flip")
	b.ReportMetric(float64(c.Stats().Accepted)/float64(c.Stats().Proposed), "acc")
	b.ReportMetric(flips/float64(b.N), "flips/op")
	if !math.IsInf(best, 1) {
		b.ReportMetric(best, "best-ns/flip")
	}
}

// cpuTime is the process's user+system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mustBucket(tb testing.TB, m *model.Ising) saw.Engine {
	e, err := NewBucket(m, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// benchBoth runs benchEngine on a fresh engine as the move uses it
// ("auto": its saw.FastReverser, if any, where the acceptance rate makes
// it pay), with the fast reverse on every move ("fast", also reporting the
// fraction of moves it refused) and with the reverse path always replayed
// ("replay"), back to back.
func benchBoth(b *testing.B, mk func() saw.Engine) {
	b.Run("auto", func(b *testing.B) { benchEngine(b, mk()) })
	eng := mk()
	if _, ok := eng.(saw.FastReverser); !ok {
		return
	}
	b.Run("fast", func(b *testing.B) {
		c := newCountRev(mk())
		benchEngine(b, c)
		b.ReportMetric(float64(c.refused)/float64(c.calls), "refused")
	})
	b.Run("replay", func(b *testing.B) { benchEngine(b, replayOnly{mk()}) })
}

// countRev forces the fast reverse of an engine that has one (acceptance
// threshold 0) and counts the moves it refuses.
type countRev struct {
	saw.Engine
	fr             saw.FastReverser
	calls, refused int
}

func newCountRev(eng saw.Engine) *countRev {
	return &countRev{Engine: eng, fr: eng.(saw.FastReverser)}
}

func (c *countRev) FastAcceptance() float64 { return 0 }

func (c *countRev) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	ok := c.fr.ReverseLogProbs(path, bounds, rev)
	c.calls++
	if !ok {
		c.refused++
	}
	return ok
}

func (c *countRev) Undo(path []int32) { c.fr.Undo(path) }

func BenchmarkFerroBucket(b *testing.B) {
	benchBoth(b, func() saw.Engine { return mustBucket(b, ferro2d(b)) })
}
func BenchmarkFerroTree(b *testing.B) {
	benchBoth(b, func() saw.Engine { return NewTree(ferro2d(b), nil) })
}
func BenchmarkFrustratedBucket(b *testing.B) {
	benchBoth(b, func() saw.Engine { return mustBucket(b, frustrated2d(b)) })
}
func BenchmarkFrustratedTree(b *testing.B) {
	benchBoth(b, func() saw.Engine { return NewTree(frustrated2d(b), nil) })
}
func BenchmarkSpinGlassBucket(b *testing.B) {
	benchBoth(b, func() saw.Engine { return mustBucket(b, spinGlass3d(b)) })
}
func BenchmarkChimeraTree(b *testing.B) {
	benchBoth(b, func() saw.Engine { return NewTree(chimera(b, 4, 4, 4), nil) })
}
func BenchmarkChimera16Tree(b *testing.B) {
	benchBoth(b, func() saw.Engine { return NewTree(chimera(b, 16, 16, 4), nil) })
}

// BenchmarkCalibrate is 4096 dependent float64 additions per op (about 4
// cycles each on an idle core): it shows how loaded the machine was when
// the other figures were taken.
func BenchmarkCalibrate(b *testing.B) {
	x := make([]float64, 4096)
	for i := range x {
		x[i] = float64(i)
	}
	cpu0 := cpuTime()
	for b.Loop() {
		s := 0.0
		for _, v := range x {
			s += v
		}
		sinkF = s
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/add")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*len(x)), "cpu-ns/add")
}

var sinkF float64
