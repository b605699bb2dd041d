package sampler

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
)

func TestRegistry(t *testing.T) {
	mk := func(*model.Model, float64, any, *rand.PCG, []int8) (Chain, func(), error) { return nil, func() {}, nil }
	Register(Kind{Name: "zeta-test", Rank: 5, New: mk})
	Register(Kind{Name: "alpha-test", Rank: 5, New: mk})
	Register(Kind{Name: "first-test", Rank: -1, New: mk})
	names := Names()
	i, j, k := slices.Index(names, "first-test"), slices.Index(names, "alpha-test"), slices.Index(names, "zeta-test")
	if i != 0 || !(j >= 0 && j+1 == k) {
		t.Fatalf("order %v (expected by rank, then name)", names)
	}
	if got, ok := Lookup("alpha-test"); !ok || got.Rank != 5 || got.ChainCPUs(nil, nil) != 1 {
		t.Fatalf("Lookup = %+v, %v", got, ok)
	}
	if _, ok := Lookup("no-such"); ok {
		t.Fatal("Lookup found an unregistered name")
	}
	for _, bad := range []Kind{{Name: "alpha-test", New: mk}, {Name: "", New: mk}, {Name: "no-new"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", bad)
				}
			}()
			Register(bad)
		}()
	}
}
