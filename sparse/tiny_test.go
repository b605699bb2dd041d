package sparse

import (
	"math/rand/v2"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// TestTinyModels covers one and two bits, walks of length 0 and of every
// bit, and a model without couplings.
func TestTinyModels(t *testing.T) {
	one, err := model.NewIsing(1, nil, []float64{1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	two, err := model.NewIsing(2, []model.Edge{{I: 0, J: 1, W: -2}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range factories {
		for _, m := range []*model.Ising{one, two} {
			s0 := make([]int8, m.N)
			for i := range s0 {
				s0[i] = -1
			}
			eng, ref := f.make(t, m, s0), saw.NewNaive(m, s0)
			eng.SetBiases(0.5, 2, saw.Logistic)
			ref.SetBiases(0.5, 2, saw.Logistic)
			pcg := rand.NewPCG(3, 3)
			for k := range m.N + 1 {
				path, lf, dE := eng.Walk(pcg, k, k%2, nil)
				if len(path) != k {
					t.Fatalf("%s M=%d: walk of %d bits for k=%d", f.name, m.N, len(path), k)
				}
				wlf, wdE := ref.Replay(path, false)
				closeLF(t, f.name, lf, wlf)
				closeE(t, f.name, dE, wdE)
			}
		}
	}
}
