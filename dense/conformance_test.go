package dense

import (
	"fmt"
	"testing"

	"sardonics/internal/enginetest"
	"sardonics/model"
	"sardonics/saw"
)

func rbmEngine(m *model.Model, s []int8) (saw.Engine, error) { return New(m.RBM, s), nil }

// The RBM engine passes the engine conformance suite on real-valued RBMs.
func TestConformance(t *testing.T) {
	for seed := range uint64(3) {
		for _, spec := range []string{"rbm-random:V=10,H=7,seed=%d,scale=0.8", "rbm-random:V=70,H=3,seed=%d,scale=0.3"} {
			m, err := model.Load(fmt.Sprintf(spec, seed+1))
			if err != nil {
				t.Fatal(err)
			}
			enginetest.Check(t, rbmEngine, m, seed, 40)
		}
	}
}

// FuzzConformance: go test ./dense -fuzz FuzzConformance.
func FuzzConformance(f *testing.F) {
	for s := range uint64(3) {
		f.Add(s, uint8(4+s), uint8(3+s))
	}
	f.Fuzz(func(t *testing.T, seed uint64, v, h uint8) {
		m, err := model.Load(fmt.Sprintf("rbm-random:V=%d,H=%d,seed=%d,scale=0.6", 1+int(v)%40, 1+int(h)%40, seed))
		if err != nil {
			t.Fatal(err)
		}
		enginetest.Check(t, rbmEngine, m, seed, 12)
	})
}
