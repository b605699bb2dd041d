package parallelsaw

import (
	"fmt"
	"testing"

	"sardonics/internal/enginetest"
	"sardonics/model"
	"sardonics/saw"
)

func sections(P int) (rbm, dense enginetest.Factory) {
	return func(m *model.Model, s []int8) (saw.Engine, error) { return New(m.RBM, s, P, nil) },
		func(m *model.Model, s []int8) (saw.Engine, error) { return NewDense(m.DenseForm(), s, P, nil) }
}

// Both partitioned engines, at 2 and 3 sections, pass the engine
// conformance suite.
func TestConformance(t *testing.T) {
	for _, P := range []int{2, 3} {
		rbm, dense := sections(P)
		for seed := range uint64(2) {
			for _, c := range []struct {
				spec string
				f    enginetest.Factory
			}{
				{"rbm-random:V=130,H=70,seed=%d,scale=0.3", rbm},
				{"sk:N=200,seed=%d", dense},
			} {
				m, err := model.Load(fmt.Sprintf(c.spec, seed+1))
				if err != nil {
					t.Fatal(err)
				}
				enginetest.Check(t, c.f, m, seed, 24)
			}
		}
	}
}
