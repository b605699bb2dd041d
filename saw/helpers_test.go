package saw

import (
	"math/rand/v2"
	"testing"

	"sardonics/model"
)

// randomIsing is a complete graph on n spins with J ~ N(0, scale^2) and
// h ~ N(0, scale^2): real values, so no two walks are accidentally tied.
func randomIsing(t testing.TB, n int, scale float64, seed uint64) *model.Ising {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var edges []model.Edge
	for i := range n {
		for j := i + 1; j < n; j++ {
			edges = append(edges, model.Edge{I: int32(i), J: int32(j), W: scale * r.NormFloat64()})
		}
	}
	h := make([]float64, n)
	for i := range h {
		h[i] = scale * r.NormFloat64()
	}
	m, err := model.NewIsing(n, edges, h, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func naiveFor(m *model.Ising) func(s []int8) Engine {
	return func(s []int8) Engine { return NewNaive(m, s) }
}

func ones(n int) []int8 {
	s := make([]int8, n)
	for i := range s {
		s[i] = 1
	}
	return s
}
