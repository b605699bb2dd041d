package dense

import (
	"testing"

	"sardonics/saw"
)

// BenchmarkUpdate is the hot kernel: one flip's update of 500 bits.
func BenchmarkUpdate(b *testing.B) {
	const n = 500
	tb := NewBias(24, 0.95, 1.05, saw.Logistic)
	tab := NewTable(0, n)
	s, F, f, mask := make([]int8, n), make([]int32, n), make([]float64, n), make([]uint32, n)
	rowq, row := make([]int32, n), make([]float64, n)
	for i := range s {
		s[i], F[i], mask[i] = int8(2*(i%2)-1), int32(i-250)<<18, ^uint32(i%17/16)
		rowq[i], row[i] = int32(i*7919%1001-500)<<12, float64(i%11)*0.01
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tab.Update(1, tb, s, F, f, mask, rowq, row, int32(1-2*(i&1)))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/bit")
}
