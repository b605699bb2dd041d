package ref

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/model"
)

func approx(a, b, scale float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, scale) }

func randSpins(r *rand.Rand, n int) []int8 {
	s := make([]int8, n)
	for i := range s {
		s[i] = int8(2*r.IntN(2) - 1)
	}
	return s
}

// randEdges draws each pair i<j with probability p, in random orientation.
func randEdges(r *rand.Rand, n int, p float64) []model.Edge {
	var e []model.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if r.Float64() < p {
				a, b := int32(i), int32(j)
				if r.IntN(2) == 0 {
					a, b = b, a
				}
				e = append(e, model.Edge{I: a, J: b, W: r.NormFloat64() * 3})
			}
		}
	}
	r.Shuffle(len(e), func(a, b int) { e[a], e[b] = e[b], e[a] })
	return e
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

// The reference itself, checked by hand on two spins.
func TestReferenceByHand(t *testing.T) {
	edges := []model.Edge{{I: 0, J: 1, W: 2}}
	h := []float64{0.5, -1}
	for _, tc := range []struct {
		s    []int8
		want float64
	}{{[]int8{1, 1}, -2 - 0.5 + 1 + 7}, {[]int8{1, -1}, 2 - 0.5 - 1 + 7}, {[]int8{-1, -1}, -2 + 0.5 - 1 + 7}} {
		if got := IsingEnergy(edges, h, 7, tc.s); got != tc.want {
			t.Errorf("E(%v) = %v (want %v)", tc.s, got, tc.want)
		}
	}
	q := &model.QUBO{N: 2, Diag: []float64{1, -3}, Off: []model.Edge{{I: 0, J: 1, W: 5}}}
	if got := QUBOEnergy(q, []uint8{1, 1}); got != 3 {
		t.Errorf("QUBO E(1,1) = %v (want 3)", got)
	}
	rb := &model.RBM{V: 1, H: 2, W: []float64{1, 2}, B: []float64{3}, C: []float64{4, 5}}
	if got := RBMEnergy(rb, []uint8{1}, []uint8{0, 1}); got != -2-3-5 {
		t.Errorf("RBM E = %v (want -10)", got)
	}
}

func TestIsingAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(25)
		edges := randEdges(r, n, r.Float64())
		h := randVec(r, n)
		off := r.NormFloat64()
		is, err := model.NewIsing(n, edges, h, off)
		if err != nil {
			t.Fatal(err)
		}
		m := &model.Model{Kind: model.KindIsing, Ising: is}
		for k := 0; k < 10; k++ {
			s := randSpins(r, n)
			want := IsingEnergy(edges, h, off, s)
			if got := is.Energy(s); !approx(got, want, math.Abs(want)) {
				t.Fatalf("trial %d: Energy %v (want %v)", trial, got, want)
			}
			if got := Energy(m, s); !approx(got, want, math.Abs(want)) {
				t.Fatalf("trial %d: ref.Energy from Edges() %v (want %v)", trial, got, want)
			}
			i := r.IntN(n)
			if d, f := DeltaE(m, s, i), 2*float64(s[i])*is.Field(s, i); !approx(d, f, math.Abs(want)) {
				t.Fatalf("trial %d: dE %v, 2 s_i Field %v", trial, d, f)
			}
		}
	}
}

func TestFromQUBOAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(20)
		q := &model.QUBO{N: n, Diag: randVec(r, n)}
		for _, e := range randEdges(r, n, r.Float64()) {
			q.Off = append(q.Off, model.Edge{I: min(e.I, e.J), J: max(e.I, e.J), W: e.W})
		}
		is, err := model.FromQUBO(n, q.Diag, q.Off, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := &model.Model{Kind: model.KindQUBO, Ising: is, QUBO: q}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 10; k++ {
			s := randSpins(r, n)
			want := QUBOEnergy(q, Bits(s))
			if got := is.Energy(s); !approx(got, want, 10) {
				t.Fatalf("trial %d: Ising form %v, QUBO %v", trial, got, want)
			}
			i := r.IntN(n)
			if d, f := DeltaE(m, s, i), 2*float64(s[i])*is.Field(s, i); !approx(d, f, 10) {
				t.Fatalf("trial %d: QUBO dE %v, 2 s_i Field %v", trial, d, f)
			}
		}
	}
}

func TestRBMAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 50; trial++ {
		v, h := 1+r.IntN(12), 1+r.IntN(12)
		rb, err := model.NewRBM(v, h, randVec(r, v*h), randVec(r, v), randVec(r, h))
		if err != nil {
			t.Fatal(err)
		}
		is, err := rb.Ising()
		if err != nil {
			t.Fatal(err)
		}
		m := &model.Model{Kind: model.KindRBM, Ising: is, RBM: rb}
		for k := 0; k < 10; k++ {
			s := randSpins(r, v+h)
			x := Bits(s)
			want := RBMEnergy(rb, x[:v], x[v:])
			if got := rb.Energy(x[:v], x[v:]); !approx(got, want, 10) {
				t.Fatalf("RBM.Energy %v (want %v)", got, want)
			}
			if got := is.Energy(s); !approx(got, want, 10) {
				t.Fatalf("RBM Ising form %v (want %v)", got, want)
			}
			i := r.IntN(v + h)
			if d, f := DeltaE(m, s, i), 2*float64(s[i])*is.Field(s, i); !approx(d, f, 10) {
				t.Fatalf("RBM dE %v, 2 s_i Field %v", d, f)
			}
		}
	}
}

// Generated and parsed models: the CSR energy matches the source terms.
func TestLoadedModelsAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, spec := range []string{"ferro2d:L=4", "frustrated2d:L=5,seed=2", "spinglass3d:L=3", "chimera:M=2,N=2,T=4,h=pm1",
		"rbm-random:V=6,H=4,scale=1"} {
		m, err := model.Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 20; k++ {
			s := randSpins(r, m.Variables())
			want := Energy(m, s)
			if got := m.Sparse().Energy(s); !approx(got, want, 10) {
				t.Fatalf("%s: Energy %v (want %v)", spec, got, want)
			}
			i := r.IntN(len(s))
			if d, f := DeltaE(m, s, i), 2*float64(s[i])*m.Sparse().Field(s, i); !approx(d, f, 10) {
				t.Fatalf("%s: dE %v, 2 s_i Field %v", spec, d, f)
			}
		}
	}
	// ferro2d's ground state: all spins up, E = -2L^2.
	m, _ := model.Load("ferro2d:L=4")
	up := make([]int8, 16)
	for i := range up {
		up[i] = 1
	}
	if e := Energy(m, up); e != -32 {
		t.Errorf("ferro2d:L=4 all up: %v (want -32)", e)
	}
}
