package sparse

import (
	"fmt"

	"sardonics/model"
	"sardonics/saw"
)

// New returns the engine named by kind for m started at init (copied; nil
// means all +1): "tree", "bucket" (an error if m does not qualify, see
// Qualifies), or "auto" (bucket when m qualifies, else tree).
func New(m *model.Ising, init []int8, kind string) (saw.Engine, error) {
	switch kind {
	case "auto":
		if b, err := NewBucket(m, init); err == nil {
			return b, nil
		}
		return NewTree(m, init), nil
	case "tree":
		return NewTree(m, init), nil
	case "bucket":
		b, err := NewBucket(m, init)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown sparse engine %q (expected auto, tree or bucket)", kind)
}
