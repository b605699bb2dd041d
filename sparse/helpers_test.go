package sparse

import (
	"math/rand/v2"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// randomGraph is a random graph on n spins with about deg couplings per
// spin. With integer set, J and h are uniform on {-2..2}; otherwise J and h
// are N(0, scale^2).
func randomGraph(t testing.TB, n, deg int, integer bool, scale float64, seed uint64) *model.Ising {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	val := func() float64 {
		if integer {
			return float64(r.IntN(5) - 2)
		}
		return scale * r.NormFloat64()
	}
	seen := map[[2]int32]bool{}
	var edges []model.Edge
	for range n * deg / 2 {
		i, j := int32(r.IntN(n)), int32(r.IntN(n))
		if i == j || seen[[2]int32{min(i, j), max(i, j)}] {
			continue
		}
		seen[[2]int32{min(i, j), max(i, j)}] = true
		edges = append(edges, model.Edge{I: i, J: j, W: val()})
	}
	h := make([]float64, n)
	for i := range h {
		h[i] = val()
	}
	m, err := model.NewIsing(n, edges, h, 0.375)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// torus is an L x L periodic lattice; j and h give each coupling and field.
func torus(tb testing.TB, L int, j, h func() float64) *model.Ising {
	tb.Helper()
	var edges []model.Edge
	idx := func(x, y int) int32 { return int32((x%L)*L + y%L) }
	for x := range L {
		for y := range L {
			edges = append(edges, model.Edge{I: idx(x, y), J: idx(x+1, y), W: j()},
				model.Edge{I: idx(x, y), J: idx(x, y+1), W: j()})
		}
	}
	hs := make([]float64, L*L)
	for i := range hs {
		hs[i] = h()
	}
	m, err := model.NewIsing(L*L, edges, hs, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func randomSpins(r *rand.Rand, n int) []int8 {
	s := make([]int8, n)
	for i := range s {
		s[i] = int8(2*r.IntN(2) - 1)
	}
	return s
}

// randomPath is k distinct bits in random order.
func randomPath(r *rand.Rand, n, k int) []int32 {
	p := r.Perm(n)[:k]
	out := make([]int32, k)
	for i, v := range p {
		out[i] = int32(v)
	}
	return out
}

// factory makes one engine kind for a model.
type factory struct {
	name    string
	integer bool // needs integer couplings
	make    func(tb testing.TB, m *model.Ising, s []int8) saw.Engine
}

var factories = []factory{
	{"tree", false, func(tb testing.TB, m *model.Ising, s []int8) saw.Engine { return NewTree(m, s) }},
	{"tree-direct", false, func(tb testing.TB, m *model.Ising, s []int8) saw.Engine { return newTree(m, s, 0) }},
	{"bucket", true, func(tb testing.TB, m *model.Ising, s []int8) saw.Engine {
		b, err := NewBucket(m, s)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}},
}
