package denseising

import (
	"fmt"

	"sardonics/model"
	"sardonics/saw"
)

// The dense Ising engine's registration (saw.RegisterEngine): --engine
// dense on a model that is not an RBM (at most model.MaxDenseVariables
// variables), and auto's choice where model.UseDense says the dense
// engines win and the partitioned one does not take it.
func init() {
	saw.RegisterEngine(saw.EngineKind{Name: "dense", Rank: 40,
		Fits: func(m *model.Model) error { return DenseFits("dense", m) },
		Auto: func(m *model.Model, _ int) bool { return m.RBM == nil && m.UseDense() },
		New: func(m *model.Model, init []int8, _ int, _ []int) (saw.Engine, error) {
			return New(m.DenseForm(), init), nil
		},
		Cost: func(m *model.Model) saw.Cost { return saw.DenseIsingCost(m.Variables()) }})
}

// DenseFits says why --engine name cannot run a dense Ising engine on m
// (nil: it can): an RBM has engines of its own, and a dense form holds at
// most model.MaxDenseVariables variables.
func DenseFits(name string, m *model.Model) error {
	switch {
	case m.RBM != nil:
		return fmt.Errorf("%w: %s is an RBM", saw.ErrOtherModels, m.Spec)
	case m.Variables() > model.MaxDenseVariables:
		return fmt.Errorf("--engine %s: %s has %d variables (expected at most %d for a dense model)", name, m.Spec, m.Variables(), model.MaxDenseVariables)
	}
	return nil
}
