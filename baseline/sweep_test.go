package baseline

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/rng"
)

// torusWithFields is the L^dim torus (dim 2 or 3) with couplings and fields
// uniform on {-2,...,2}, so both fast paths see fields and mixed weights.
func torusWithFields(t *testing.T, dim, l int, seed uint64) *model.Model {
	r := rand.New(rng.Stream(seed, 9))
	n := l * l
	if dim == 3 {
		n *= l
	}
	stride := []int{1, l, l * l}
	var edges []model.Edge
	for i := range n {
		for d := range dim {
			c := i / stride[d] % l
			j := i + stride[d]
			if c == l-1 {
				j -= l * stride[d]
			}
			edges = append(edges, model.Edge{I: int32(i), J: int32(j), W: float64(r.IntN(5) - 2)})
		}
	}
	h := make([]float64, n)
	for i := range h {
		h[i] = float64(r.IntN(5) - 2)
	}
	is, err := model.NewIsing(n, edges, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Kind: model.KindIsing, Ising: is}
}

// TestFastPathsMatchGeneric checks that the unrolled degree-4 and degree-6
// sweeps give exactly the states, energies and stats of the generic CSR
// table sweep on the same random stream.
func TestFastPathsMatchGeneric(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *model.Model
		deg  int
	}{
		{"torus2d", torusWithFields(t, 2, 6, 1), 4},
		{"torus3d", torusWithFields(t, 3, 4, 2), 6},
		{"ferro2d", ferro2D(t, 5), 4},
		{"spinglass3d", spinGlass3D(t, 3, 3), 6},
	} {
		for _, sc := range samplers[:2] {
			n := tc.m.Variables()
			mk := func() *single {
				c, err := sc.new(tc.m, 0.4, rng.Stream(7, 7), randomSpins(n, 7))
				if err != nil {
					t.Fatal(err)
				}
				return c.(*single)
			}
			fast, gen := mk(), mk()
			if (tc.deg == 4) != (fast.rows4 != nil) || (tc.deg == 6) != (fast.rows6 != nil) {
				t.Fatalf("%s/%s: fast path not taken", tc.name, sc.name)
			}
			gen.rows4, gen.rows6 = nil, nil
			for k := range 200 {
				fast.Step()
				gen.Step()
				if !slices.Equal(fast.s, gen.s) || fast.eInt != gen.eInt || fast.Stats() != gen.Stats() {
					t.Fatalf("%s/%s: step %d: fast and generic sweeps differ: %v %v %v %v %+v %+v", tc.name, sc.name, k, fast.s, gen.s, fast.eInt, gen.eInt, fast.Stats(), gen.Stats())
				}
			}
			if got, want := fast.Energy(), tc.m.Ising.Energy(fast.s); got != want {
				t.Errorf("%s/%s: tracked energy %v, recomputed %v", tc.name, sc.name, got, want)
			}
		}
	}
}
