package parallelsaw

import (
	"testing"

	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/saw"
)

// stressModel is a model each engine runs in the stress tests: an RBM
// (Engine) or a dense model (DenseEngine).
type stressModel struct {
	name string
	rbm  *model.RBM
	d    *model.Dense
}

func stressModels(t *testing.T) []stressModel {
	return []stressModel{
		{name: "rbm", rbm: rbmtest.RandomRBM(t, 12, 8, 0.5, 6)},
		{name: "dense", d: rbmtest.RandomDense(t, 20, 0.5, false, 6).Dense},
	}
}

// probedEngine is an engine the stress tests run.
type probedEngine interface {
	saw.Engine
	Close()
}

// build makes the model's P-section engine and returns it with its hub.
func (m stressModel) build(t *testing.T, P int) (probedEngine, *hub) {
	if m.rbm != nil {
		e, err := New(m.rbm, nil, P, nil)
		if err != nil {
			t.Fatal(err)
		}
		return e, &e.sh.hub
	}
	e, err := NewDense(m.d, nil, P, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e, &e.sh.hub
}
