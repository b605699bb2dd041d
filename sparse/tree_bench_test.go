package sparse

import (
	"math/rand/v2"
	"testing"
	"time"

	"sardonics/model"
	"sardonics/saw"
)

// BenchmarkTreeDefault runs the tree engine as `sample --model
// chimera:M=4,N=4,T=4,seed=1 --T 1 --engine tree` does (saw.DefaultTheta,
// beta = 1, the move choosing between fast reverse and replay) and reports
// the CPU time per proposed flip, the figure of the command's summary.
func BenchmarkTreeDefault(b *testing.B) {
	for _, spec := range []string{"chimera:M=4,N=4,T=4,seed=1", "chimera:M=16,N=16,T=4,seed=1", "frustrated2d:L=60,seed=1"} {
		b.Run(spec, func(b *testing.B) {
			m, err := model.Load(spec)
			if err != nil {
				b.Fatal(err)
			}
			benchTreeTheta(b, NewTree(m.Ising, nil), saw.DefaultTheta)
		})
	}
}

func benchTreeTheta(b *testing.B, eng saw.Engine, th saw.Theta) {
	c, err := saw.NewChain(eng, 1, []saw.Theta{th}, saw.Options{}, rand.NewPCG(1, 2))
	if err != nil {
		b.Fatal(err)
	}
	for range 2000 {
		c.Step()
	}
	flips0 := c.Stats().Flips
	cpu0, t0 := cpuTime(), time.Now()
	for b.Loop() {
		c.Step()
	}
	flips := float64(c.Stats().Flips - flips0)
	b.ReportMetric(float64(time.Since(t0).Nanoseconds())/flips, "ns/flip")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/flips, "cpu-ns/flip")
	b.ReportMetric(float64(c.Stats().Accepted)/float64(c.Stats().Proposed), "acc")
}
