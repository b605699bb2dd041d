package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// isingViaQUBO is the RBM's Ising form as FromQUBO builds it from the
// QUBO's edge list: the definition RBM.Ising must equal bit for bit.
func isingViaQUBO(r *RBM) (*Ising, error) {
	n := r.V + r.H
	diag := make([]float64, n)
	for i := 0; i < r.V; i++ {
		diag[i] = -r.B[i]
	}
	for j := 0; j < r.H; j++ {
		diag[r.V+j] = -r.C[j]
	}
	off := make([]Edge, 0, r.V*r.H)
	for i := 0; i < r.V; i++ {
		for j := 0; j < r.H; j++ {
			off = append(off, Edge{int32(i), int32(r.V + j), -r.W[i*r.H+j]})
		}
	}
	return FromQUBO(n, diag, off, 0)
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestRBMIsingMatchesQUBO: the directly built Ising form of an RBM, and the
// fields Model.Fields computes without it, equal FromQUBO's to the bit
// (signed zeros included), and a model's form is built only when asked,
// and is the same for every goroutine that asks at once.
func TestRBMIsingMatchesQUBO(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := []float64{0, math.Copysign(0, -1), 1e-310, -3, 0.1, 1e15 / 64}
	for trial := range 30 {
		v, h := 1+r.IntN(9), 1+r.IntN(9)
		draw := func(n int) []float64 {
			x := make([]float64, n)
			for i := range x {
				if trial%3 == 0 {
					x[i] = vals[r.IntN(len(vals))]
				} else {
					x[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20))
				}
			}
			return x
		}
		rb, err := NewRBM(v, h, draw(v*h), draw(v), draw(h))
		if err != nil {
			t.Fatal(err)
		}
		want, err := isingViaQUBO(rb)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rb.Ising()
		if err != nil {
			t.Fatal(err)
		}
		if got.N != want.N || !slices.Equal(got.Start, want.Start) || !slices.Equal(got.Adj, want.Adj) ||
			!sameBits(got.J, want.J) || !sameBits(got.H, want.H) || !sameBits([]float64{got.Offset}, []float64{want.Offset}) {
			t.Fatalf("trial %d: %d x %d RBM's Ising form differs from FromQUBO's", trial, v, h)
		}
		if f := rbmModel(rb).Fields(); !sameBits(f, want.H) {
			t.Fatalf("trial %d: Fields differ from the Ising form's", trial)
		}
	}
	m, err := Load("rbm-random:V=7,H=5")
	if err != nil {
		t.Fatal(err)
	}
	if m.Ising != nil || m.Variables() != 12 || m.Interactions() != 35 {
		t.Fatalf("rbm-random: Ising form built at load, or %d variables, %d interactions", m.Variables(), m.Interactions())
	}
	if rbmForms.Has(m.RBM) {
		t.Fatal("rbm-random: Ising form built before it was asked for")
	}
	forms := make([]*Ising, 8)
	var wg sync.WaitGroup
	for g := range forms {
		wg.Go(func() { forms[g] = m.Sparse() })
	}
	wg.Wait()
	want, _ := isingViaQUBO(m.RBM)
	for _, is := range forms {
		if is != forms[0] || !sameIsing(is, want) {
			t.Fatal("rbm-random: Sparse built more than one form, or a wrong one")
		}
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
}
