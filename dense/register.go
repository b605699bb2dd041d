package dense

import (
	"fmt"

	"sardonics/model"
	"sardonics/saw"
)

// The RBM engine's registration (saw.RegisterEngine): --engine dense, and
// auto's choice for every RBM that the partitioned engine does not take.
func init() {
	saw.RegisterEngine(saw.EngineKind{Name: "dense", Rank: 30,
		Fits: func(m *model.Model) error {
			if m.RBM == nil {
				return fmt.Errorf("%w: %s is not an RBM", saw.ErrOtherModels, m.Spec)
			}
			return nil
		},
		Auto: func(m *model.Model, _ int) bool { return m.RBM != nil },
		New: func(m *model.Model, init []int8, _ int, _ []int) (saw.Engine, error) {
			return New(m.RBM, init), nil
		},
		Cost: func(*model.Model) saw.Cost { return saw.CostDense }})
}
