package sparse

import (
	"math/rand/v2"
	"testing"

	"sardonics/model"
)

// spinGlass3dL is the L x L x L torus with J uniform on {-1, +1}, h = 0.
func spinGlass3dL(tb testing.TB, L int) *model.Ising {
	r := rand.New(rand.NewPCG(3, 4))
	idx := func(x, y, z int) int32 { return int32(((x%L)*L+y%L)*L + z%L) }
	edges := make([]model.Edge, 0, 3*L*L*L)
	for x := range L {
		for y := range L {
			for z := range L {
				for _, j := range []int32{idx(x+1, y, z), idx(x, y+1, z), idx(x, y, z+1)} {
					edges = append(edges, model.Edge{I: idx(x, y, z), J: j, W: float64(2*r.IntN(2) - 1)})
				}
			}
		}
	}
	m, err := model.NewIsing(L*L*L, edges, nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// The large cases of issue 22: 10^6 spins in 2D, 262,144 in 3D, where
// the engine's tables leave the caches.
func BenchmarkDefaultLarge2D(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	benchDefault(b, torus(b, 1000, pm, pm), 1)
}

func BenchmarkDefaultLarge3D(b *testing.B) { benchDefault(b, spinGlass3dL(b, 64), 1) }

func BenchmarkDefaultMid2D(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	benchDefault(b, torus(b, 256, pm, pm), 1)
}

func BenchmarkDefaultSmall2D(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	benchDefault(b, torus(b, 128, pm, pm), 1)
}

// BenchmarkBuildLarge2D is the part of a 10^6-spin trial that is not
// sampling: the model's analysis (analyze and derive, called directly:
// analysisOf would return its cached result) and an engine at a random
// state.
func BenchmarkBuildLarge2D(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	m := torus(b, 1000, pm, pm)
	init := make([]int8, m.N)
	for i := range init {
		init[i] = int8(2*r.IntN(2) - 1)
	}
	b.Run("analysis", func(b *testing.B) {
		for b.Loop() {
			c, err := analyze(m)
			if err != nil {
				b.Fatal(err)
			}
			c.derive(m)
		}
	})
	b.Run("engine", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewBucket(m, init); err != nil {
				b.Fatal(err)
			}
		}
	})
}
