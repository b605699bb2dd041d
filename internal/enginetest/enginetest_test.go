package enginetest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

func naive(m *model.Model, s []int8) (saw.Engine, error) { return saw.NewNaive(m.Sparse(), s), nil }

// offDE reports every walk's energy change a little off.
type offDE struct{ saw.Engine }

func (e offDE) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	p, lf, dE := e.Engine.Walk(r, k, b, path)
	return p, lf, dE + 0x1p-40
}

// drifting keeps its energy by increments that do not add up exactly: the
// same state reports slightly different energies by the path to it.
type drifting struct {
	saw.Engine
	drift float64
}

func (e *drifting) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	p, lf, dE := e.Engine.Walk(r, k, b, path)
	e.drift += 1e-15
	return p, lf, dE
}
func (e *drifting) Energy() float64 { return e.Engine.Energy() + e.drift }

// The naive reference engine passes the suite; one whose walks report an
// energy change off by 2^-40, and one whose energy drifts with the walks,
// are caught.
func TestSuite(t *testing.T) {
	m, err := model.Load("chimera:M=1,N=1,T=4,seed=2,h=pm1")
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(naive, m, 1, 30); err != nil {
		t.Fatalf("naive engine: %v", err)
	}
	for name, f := range map[string]Factory{
		"dE off": func(m *model.Model, s []int8) (saw.Engine, error) {
			e, _ := naive(m, s)
			return offDE{e}, nil
		},
		"drifting energy": func(m *model.Model, s []int8) (saw.Engine, error) {
			e, _ := naive(m, s)
			return &drifting{Engine: e}, nil
		},
	} {
		err := Verify(f, m, 1, 30)
		if err == nil || !strings.Contains(err.Error(), "energ") && !strings.Contains(err.Error(), "dE") {
			t.Errorf("%s: not caught (%v)", name, err)
		}
	}
}
