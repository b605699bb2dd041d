package parallelsaw

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"sardonics/dense"
	"sardonics/denseising"
	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/saw"
	"sardonics/topology"
)

const benchWalk = 40

// benchRBM is 784 x 500 with W ~ N(0, 0.1^2) and zero biases.
func benchRBM(b *testing.B) *model.RBM {
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]float64, 784*500)
	for i := range w {
		w[i] = 0.1 * r.NormFloat64()
	}
	m, err := model.NewRBM(784, 500, w, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func benchEngine(b *testing.B, m *model.RBM, P int) saw.Engine {
	if P == 0 {
		return dense.New(m, nil)
	}
	cpus, _ := topology.CPUs()
	e, err := New(m, nil, P, cpus)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Close)
	return e
}

// pinCoordinator pins the calling goroutine (which runs section 0) to the
// first usable CPU, as a caller should; the returned func undoes it.
func pinCoordinator(b *testing.B) func() {
	cpus, err := topology.CPUs()
	if err != nil {
		b.Fatal(err)
	}
	undo, err := topology.PinFor(cpus[0])
	if err != nil {
		b.Log(err)
	}
	return undo
}

// cpuTime is the process's user+system CPU time (spinning included).
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// walks runs n walks of benchWalk flips and returns the time per flip.
func walks(e saw.Engine, r *rand.PCG, n int, path []int32) time.Duration {
	t0 := time.Now()
	for i := 0; i < n; i++ {
		path, _, _ = e.Walk(r, benchWalk, i%2, path[:0])
	}
	return time.Since(t0) / time.Duration(n*benchWalk)
}

// BenchmarkWalk reports ns per proposed flip: dense (P=0) and P sections.
func BenchmarkWalk(b *testing.B) {
	b.Log(topology.Describe())
	benchWalkP(b, benchRBM(b))
}

// BenchmarkWalkLarge is BenchmarkWalk on rbm-random:V=4096,H=4096 (seed
// 1), whose matrices outgrow the caches: the engines are compact
// (dense.CompactFrom).
func BenchmarkWalkLarge(b *testing.B) {
	b.Log(topology.Describe())
	m, err := model.RandomRBM(4096, 4096, 1, 0.1)
	if err != nil {
		b.Fatal(err)
	}
	benchWalkP(b, m.RBM)
}

// benchWalkP runs benchWalks on m with dense and P = 1, 2.
func benchWalkP(b *testing.B, m *model.RBM) {
	for _, P := range []int{0, 1, 2} {
		name := fmt.Sprintf("P=%d", P)
		if P == 0 {
			name = "dense"
		}
		b.Run(name, func(b *testing.B) {
			defer pinCoordinator(b)()
			benchWalks(b, benchEngine(b, m, P))
		})
	}
}

// benchWalks runs b.N walks of benchWalk flips on e (gamma about 1) and
// reports wall and process CPU ns per flip and the hand-offs.
func benchWalks(b *testing.B, e saw.Engine) {
	e.SetBiases(0.95, 1.05, saw.Logistic)
	r := rand.NewPCG(1, 1)
	path := make([]int32, 0, benchWalk)
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		path, _, _ = e.Walk(r, benchWalk, i%2, path[:0])
	}
	flips := float64(b.N * benchWalk)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/flips, "ns/flip")
	b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/flips, "cpu-ns/flip")
	reportHandoffs(b, e, flips, "flip")
}

// reportHandoffs reports the sections the coordinator ran for its workers
// and the wake-ups it sent, per n units (parallel engines only).
func reportHandoffs(b *testing.B, e saw.Engine, n float64, unit string) {
	var sh *hub
	switch p := e.(type) {
	case *Engine:
		sh = &p.sh.hub
	case *DenseEngine:
		sh = &p.sh.hub
	}
	if sh != nil && len(sh.slots) > 1 {
		b.ReportMetric(float64(sh.steals)/n, "steals/"+unit)
		b.ReportMetric(float64(sh.wakes)/n, "wakes/"+unit)
	}
}

// BenchmarkOversubscribed: walks on the 12 x 6 RBM of issue 15 with P
// sections and no pinning, on however many CPUs the machine has: P = 3 and
// 8 exceed a 2-CPU machine, where the workers must not make the
// coordinator wait (each flip costs about as much as a serial one).
func BenchmarkOversubscribed(b *testing.B) {
	m := rbmtest.RandomRBM(b, 12, 6, 1, 1)
	b.Log(topology.Describe())
	for _, P := range []int{1, 2, 3, 8} {
		b.Run(fmt.Sprintf("P=%d", P), func(b *testing.B) {
			e, err := New(m, nil, P, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			// Built with every worker active, then squeezed onto 2 CPUs
			// (as TestOversubscribedBitIdentical does): workers that are
			// active but starved must not make the coordinator wait.
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
			r := rand.NewPCG(1, 1)
			path := make([]int32, 0, 8)
			b.ResetTimer()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				path, _, _ = e.Walk(r, 8, i%2, path[:0])
				if i%3 == 0 {
					e.Flip(path) // undo: a rejected move now and then
				}
			}
			flips := float64(b.N * 8)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/flips, "ns/flip")
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/flips, "cpu-ns/flip")
			reportHandoffs(b, e, flips, "flip")
		})
	}
}

// BenchmarkSpeedup times whole SARDONICS chain steps (default theta) of
// the dense engine and of P = 2 in alternating rounds of 300 steps, so that
// load changes on a shared machine hit both, and reports the median over
// rounds of the speedup of P = 2 over dense in wall time.
func BenchmarkSpeedup(b *testing.B) {
	m := benchRBM(b)
	defer pinCoordinator(b)()
	chain := func(e saw.Engine) *saw.Chain {
		c, err := saw.NewChain(e, 1, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(1, 2))
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	d, p := chain(benchEngine(b, m, 0)), chain(benchEngine(b, m, 2))
	steps := func(c *saw.Chain) time.Duration {
		t0 := time.Now()
		for range 300 {
			c.Step()
		}
		return time.Since(t0)
	}
	steps(d)
	steps(p)
	var ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		td := steps(d)
		ratios = append(ratios, float64(td)/float64(steps(p)))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "median-speedup")
}

// BenchmarkSync is the cost of one coordinator-worker round trip with no
// work: the synchronization cost per flip (a walk does one per flip).
func BenchmarkSync(b *testing.B) {
	for _, P := range []int{2, 3} {
		b.Run(fmt.Sprintf("P=%d", P), func(b *testing.B) {
			defer pinCoordinator(b)()
			e := benchEngine(b, rbmtest.RandomRBM(b, 8, 8, 1, 1), P).(*Engine)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.sh.cmd.op = opNop
				e.sh.run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/roundtrip")
			reportHandoffs(b, e, float64(b.N), "roundtrip")
		})
	}
}

// BenchmarkDenseWalk reports wall and CPU ns per proposed flip of walks
// of benchWalk flips on SK glasses (gamma about 1): the serial denseising
// engine and the partitioned one at P = 1, 2, 4.
func BenchmarkDenseWalk(b *testing.B) {
	b.Log(topology.Describe())
	for _, n := range []int{1000, 8192} {
		m, err := model.SK(n, 1, false)
		if err != nil {
			b.Fatal(err)
		}
		for _, P := range []int{0, 1, 2, 4} {
			name := fmt.Sprintf("N=%d/P=%d", n, P)
			if P == 0 {
				name = fmt.Sprintf("N=%d/serial", n)
			}
			b.Run(name, func(b *testing.B) {
				defer pinCoordinator(b)()
				var e saw.Engine = denseising.New(m.Dense, nil)
				if P > 0 {
					cpus, _ := topology.CPUs()
					p, err := NewDense(m.Dense, nil, P, cpus)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					e = p
				}
				benchWalks(b, e)
			})
		}
	}
}

// BenchmarkWalkRatio is the per-flip work at P = 1 over the serial dense
// engine's on rbm-random:V=4096,H=4096 (seed 1): walks of benchWalk flips
// in alternating rounds of 200 walks on each engine (refreshes included),
// so that load changes on a shared machine hit both, and the median over
// rounds of the ratio of their process CPU times (b.N rounds).
func BenchmarkWalkRatio(b *testing.B) {
	m, err := model.RandomRBM(4096, 4096, 1, 0.1)
	if err != nil {
		b.Fatal(err)
	}
	defer pinCoordinator(b)()
	d, p := benchEngine(b, m.RBM, 0), benchEngine(b, m.RBM, 1)
	rd, rp := rand.NewPCG(1, 1), rand.NewPCG(1, 1)
	path := make([]int32, 0, benchWalk)
	round := func(e saw.Engine, r *rand.PCG) time.Duration {
		c0 := cpuTime()
		for i := range 200 {
			path, _, _ = e.Walk(r, benchWalk, i%2, path[:0])
		}
		return cpuTime() - c0
	}
	d.SetBiases(0.95, 1.05, saw.Logistic)
	p.SetBiases(0.95, 1.05, saw.Logistic)
	round(d, rd)
	round(p, rp)
	var ratios []float64
	b.ResetTimer()
	for range b.N {
		td := round(d, rd)
		ratios = append(ratios, float64(round(p, rp))/float64(td))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "median-P1/dense")
}

// BenchmarkLockstep compares, in one run, lockstep walks with walks a step
// at a time (stepWalks) at P = 2 on rbm-random:V=4096,H=4096 (scale 0.02,
// seed 1) and 784 x 500: wall and CPU ns per flip.
func BenchmarkLockstep(b *testing.B) {
	for _, sz := range [][2]int{{4096, 4096}, {784, 500}} {
		m, err := model.RandomRBM(sz[0], sz[1], 1, map[int]float64{4096: 0.02, 784: 0.1}[sz[0]])
		if err != nil {
			b.Fatal(err)
		}
		for _, apart := range []bool{true, false} {
			name := fmt.Sprintf("%dx%d/lockstep", sz[0], sz[1])
			if apart {
				name = fmt.Sprintf("%dx%d/apart", sz[0], sz[1])
			}
			b.Run(name, func(b *testing.B) {
				defer func(s bool) { stepWalks = s }(stepWalks)
				stepWalks = apart
				defer pinCoordinator(b)()
				benchWalks(b, benchEngine(b, m.RBM, 2))
			})
		}
	}
}
