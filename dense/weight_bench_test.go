package dense

import (
	"math"
	"testing"
)

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 512)
	for i := range xs {
		xs[i] = float64(i-256) * 0.01
	}
	b.Run("fast", func(b *testing.B) {
		s := 0.0
		for i := 0; i < b.N; i++ {
			for _, x := range xs {
				s += exp(x)
			}
		}
		sink = s
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
	})
	b.Run("math", func(b *testing.B) {
		s := 0.0
		for i := 0; i < b.N; i++ {
			for _, x := range xs {
				s += math.Exp(x)
			}
		}
		sink = s
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
	})
}

var sink float64

func BenchmarkWeights(b *testing.B) {
	const n = 500
	s, f, av := make([]int8, n), make([]float64, n), make([]bool, n)
	w0, w1 := make([]float64, n), make([]float64, n)
	for i := range s {
		s[i], f[i], av[i] = int8(2*(i%2)-1), float64(i-250)*0.013, i%17 != 0
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Weights(0, 0.95, 1.05, s, f, av, w0, w1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/bit")
}
