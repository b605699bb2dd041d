package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// BenchmarkChain times whole SARDONICS steps (default theta, beta 1: walks,
// reverse scoring, undone rejections, refreshes) on rbm-random models with
// full and compact engines (CompactFrom) and reports ns per flip;
// 4096 x 4096 is the size whose matrices outgrow the caches.
func BenchmarkChain(b *testing.B) {
	defer func(c int) { CompactFrom = c }(CompactFrom)
	for _, sz := range [][2]int{{784, 500}, {4096, 4096}} {
		var m *model.Model // generated once, by the first sub-benchmark that runs
		for _, compact := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%d/compact=%v", sz[0], sz[1], compact), func(b *testing.B) {
				if m == nil {
					var err error
					if m, err = model.RandomRBM(sz[0], sz[1], 1, 0.1); err != nil {
						b.Fatal(err)
					}
				}
				CompactFrom = sz[0]*sz[1] + 1
				if compact {
					CompactFrom = 0
				}
				c, err := saw.NewChain(New(m.RBM, nil), 1, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(1, 2))
				if err != nil {
					b.Fatal(err)
				}
				for range 200 { // past the first refresh
					c.Step()
				}
				f0 := c.Stats().Flips
				b.ResetTimer()
				for range b.N {
					c.Step()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(c.Stats().Flips-f0), "ns/flip")
			})
		}
	}
}
