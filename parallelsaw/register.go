package parallelsaw

import (
	"fmt"

	"sardonics/denseising"
	"sardonics/model"
	"sardonics/saw"
)

// The partitioned engines' registrations (saw.RegisterEngine): --engine
// parallel, and auto's choice with more than one engine thread where the
// cost model says the sections pay (Pays, PaysDense). They count as their
// serial forms' cost (their flips cost the same CPU, spread over threads).
func init() {
	saw.RegisterEngine(saw.EngineKind{Name: "parallel", Rank: 10, Sections: true,
		Fits: func(m *model.Model) error {
			if m.RBM == nil {
				return fmt.Errorf("%w: %s is not an RBM", saw.ErrOtherModels, m.Spec)
			}
			return nil
		},
		Auto: func(m *model.Model, threads int) bool {
			return m.RBM != nil && threads > 1 && Pays(m.RBM.V, m.RBM.H, threads)
		},
		New: func(m *model.Model, init []int8, sections int, cpus []int) (saw.Engine, error) {
			return New(m.RBM, init, sections, cpus)
		},
		Cost: func(*model.Model) saw.Cost { return saw.CostDense }})
	saw.RegisterEngine(saw.EngineKind{Name: "parallel", Rank: 20, Sections: true,
		Fits: func(m *model.Model) error { return denseising.DenseFits("parallel", m) },
		Auto: func(m *model.Model, threads int) bool {
			return m.RBM == nil && threads > 1 && m.UseDense() && PaysDense(m.Variables(), threads)
		},
		New: func(m *model.Model, init []int8, sections int, cpus []int) (saw.Engine, error) {
			return NewDense(m.DenseForm(), init, sections, cpus)
		},
		Cost: func(m *model.Model) saw.Cost { return saw.DenseIsingCost(m.Variables()) }})
}
