package denseising

import (
	"fmt"
	"testing"

	"sardonics/internal/enginetest"
	"sardonics/model"
	"sardonics/saw"
)

func denseEngine(m *model.Model, s []int8) (saw.Engine, error) { return New(m.DenseForm(), s), nil }

// The dense Ising engine passes the engine conformance suite on SK
// glasses (float32 couplings) and a chimera with real couplings in its
// dense form.
func TestConformance(t *testing.T) {
	for seed := range uint64(3) {
		for _, spec := range []string{"sk:N=20,seed=%d", "sk:N=70,seed=%d,J=pm1", "chimera:M=1,N=1,T=4,seed=%d,h=pm1"} {
			m, err := model.Load(fmt.Sprintf(spec, seed+1))
			if err != nil {
				t.Fatal(err)
			}
			enginetest.Check(t, denseEngine, m, seed, 40)
		}
	}
}

// FuzzConformance: go test ./denseising -fuzz FuzzConformance.
func FuzzConformance(f *testing.F) {
	for s := range uint64(3) {
		f.Add(s, uint8(8+s))
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		m, err := model.Load(fmt.Sprintf("sk:N=%d,seed=%d", 2+int(n)%80, seed))
		if err != nil {
			t.Fatal(err)
		}
		enginetest.Check(t, denseEngine, m, seed, 12)
	})
}
