package sparse

import (
	"fmt"
	"testing"

	"sardonics/internal/enginetest"
	"sardonics/model"
	"sardonics/saw"
)

func engineOf(kind string) enginetest.Factory {
	return func(m *model.Model, s []int8) (saw.Engine, error) { return New(m.Sparse(), s, kind) }
}

// conformanceModels are the models each engine runs: the tree any real
// couplings and fields, the bucket integer ones.
var conformanceModels = map[string][]string{
	"tree":   {"chimera:M=1,N=1,T=4,seed=%d,h=pm1", "frustrated2d:L=4,seed=%d", "sk:N=12,seed=%d"},
	"bucket": {"frustrated2d:L=4,seed=%d", "spinglass3d:L=3,seed=%d", "chimera:M=1,N=2,T=4,seed=%d,J=pm1,h=pm1"},
}

// Both sparse engines pass the engine conformance suite.
func TestConformance(t *testing.T) {
	for kind, specs := range conformanceModels {
		for _, spec := range specs {
			for seed := range uint64(3) {
				m := mustLoad(t, fmt.Sprintf(spec, seed+1))
				enginetest.Check(t, engineOf(kind), m, seed, 40)
			}
		}
	}
}

// FuzzConformance runs the suite on generated instances of the fuzzer's
// seeds: go test ./sparse -fuzz FuzzConformance.
func FuzzConformance(f *testing.F) {
	for s := range uint64(4) {
		f.Add(s, uint8(s))
	}
	f.Fuzz(func(t *testing.T, seed uint64, pick uint8) {
		kinds := []string{"tree", "bucket"}
		kind := kinds[int(pick)%2]
		specs := conformanceModels[kind]
		m := mustLoad(t, fmt.Sprintf(specs[int(pick/2)%len(specs)], seed))
		enginetest.Check(t, engineOf(kind), m, seed, 12)
	})
}

func mustLoad(tb testing.TB, spec string) *model.Model {
	tb.Helper()
	m, err := model.Load(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}
