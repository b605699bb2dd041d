package exact

import (
	"testing"

	"sardonics/model"
)

// BenchmarkEnumerate20 enumerates 2^20 states of a random model, integer
// couplings (density-of-states pass) and real ones (two passes).
func BenchmarkEnumerate20(b *testing.B) {
	for _, integer := range []bool{true, false} {
		name := "real"
		if integer {
			name = "integer"
		}
		b.Run(name, func(b *testing.B) {
			m := randomIsing(b, 20, 5, integer)
			for b.Loop() {
				if _, err := Enumerate(&model.Model{Ising: m}, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEnumerateRBM enumerates a 16 x 100 RBM over its visible layer.
func BenchmarkEnumerateRBM(b *testing.B) {
	w := make([]float64, 16*100)
	for i := range w {
		w[i] = float64(i%7-3) / 10
	}
	rbm, err := model.NewRBM(16, 100, w, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	m := &model.Model{Ising: &model.Ising{N: 116}, RBM: rbm}
	for b.Loop() {
		if _, err := Enumerate(m, 1); err != nil {
			b.Fatal(err)
		}
	}
}
