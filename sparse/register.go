package sparse

import (
	"fmt"

	"sardonics/model"
	"sardonics/saw"
)

// The sparse engines' registrations (saw.RegisterEngine): the bucket
// engine where the model qualifies (integer couplings and fields in a
// small range; --engine auto takes it there), the tree everywhere else.
func init() {
	saw.RegisterEngine(saw.EngineKind{Name: "bucket", Rank: 50,
		Fits: func(m *model.Model) error {
			if _, err := analysisOf(m.Sparse()); err != nil {
				return fmt.Errorf("--engine: bucket engine: %w", err)
			}
			return nil
		},
		Auto: func(m *model.Model, _ int) bool { return Qualifies(m.Sparse()) },
		New: func(m *model.Model, init []int8, _ int, _ []int) (saw.Engine, error) {
			return NewBucket(m.Sparse(), init)
		},
		Cost: func(*model.Model) saw.Cost { return saw.CostBucket }})
	saw.RegisterEngine(saw.EngineKind{Name: "tree", Rank: 60,
		Fits: func(*model.Model) error { return nil },
		Auto: func(*model.Model, int) bool { return true },
		New: func(m *model.Model, init []int8, _ int, _ []int) (saw.Engine, error) {
			return NewTree(m.Sparse(), init), nil
		},
		Cost: func(*model.Model) saw.Cost { return saw.CostTree }})
}
