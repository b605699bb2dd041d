package model

import (
	"fmt"
	"math"
	"sort"
)

// Edge is one coupling between variables I and J with weight W (i != j).
type Edge struct {
	I, J int32
	W    float64
}

// Ising is a sparse Ising model in CSR form. Each coupling is stored twice,
// once in each endpoint's row, with rows sorted by neighbour index.
type Ising struct {
	N      int       // number of spins M
	Start  []int32   // row pointers, len N+1: row i is Adj[Start[i]:Start[i+1]]
	Adj    []int32   // neighbour indices
	J      []float64 // J[k] couples i and Adj[k]
	H      []float64 // fields, len N
	Offset float64   // constant added to every energy
}

// NewIsing builds a model from an edge list (each pair once, in either order)
// and fields (nil means zero). It rejects self-couplings, indices out of
// range, duplicate pairs and non-finite values. Zero couplings are kept.
func NewIsing(n int, edges []Edge, h []float64, offset float64) (*Ising, error) {
	if n <= 0 {
		return nil, fmt.Errorf("model has %d variables (expected at least 1)", n)
	}
	if h == nil {
		h = make([]float64, n)
	}
	if len(h) != n {
		return nil, fmt.Errorf("%d fields for %d variables", len(h), n)
	}
	for i, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("field %d is %v (expected a finite number)", i, v)
		}
	}
	if math.IsNaN(offset) || math.IsInf(offset, 0) {
		return nil, fmt.Errorf("offset is %v (expected a finite number)", offset)
	}
	deg := make([]int32, n+1)
	for _, e := range edges {
		if e.I < 0 || e.J < 0 || int(e.I) >= n || int(e.J) >= n {
			return nil, fmt.Errorf("coupling %d-%d out of range (expected indices in 0..%d)", e.I, e.J, n-1)
		}
		if e.I == e.J {
			return nil, fmt.Errorf("self-coupling %d-%d (expected i != j)", e.I, e.J)
		}
		if math.IsNaN(e.W) || math.IsInf(e.W, 0) {
			return nil, fmt.Errorf("coupling %d-%d is %v (expected a finite number)", e.I, e.J, e.W)
		}
		deg[e.I+1]++
		deg[e.J+1]++
	}
	for i := 0; i < n; i++ {
		deg[i+1] += deg[i]
	}
	m := &Ising{N: n, Start: deg, Adj: make([]int32, 2*len(edges)), J: make([]float64, 2*len(edges)),
		H: append([]float64(nil), h...), Offset: offset}
	fill := append([]int32(nil), deg[:n]...)
	for _, e := range edges {
		m.Adj[fill[e.I]], m.J[fill[e.I]] = e.J, e.W
		fill[e.I]++
		m.Adj[fill[e.J]], m.J[fill[e.J]] = e.I, e.W
		fill[e.J]++
	}
	for i := 0; i < n; i++ {
		r := row{m.Adj[m.Start[i]:m.Start[i+1]], m.J[m.Start[i]:m.Start[i+1]]}
		sortRow(r.a, r.j)
		for k := 1; k < len(r.a); k++ {
			if r.a[k] == r.a[k-1] {
				return nil, fmt.Errorf("pair %d-%d given twice (expected each pair once)", i, r.a[k])
			}
		}
	}
	return m, nil
}

type row struct {
	a []int32
	j []float64
}

// sortRow sorts a row's entries by neighbour index: short rows (lattices)
// by insertion, in place and without the allocation of sort.Sort's
// interface value (one per row: 48 MB at 10^6 spins), long ones by
// sort.Sort. Indices within a row are distinct in a valid model, so the
// order is the same either way; rows with a repeated index are rejected
// after sorting.
func sortRow(a []int32, j []float64) {
	if len(a) > 16 {
		sort.Sort(row{a, j})
		return
	}
	for k := 1; k < len(a); k++ {
		x, w := a[k], j[k]
		p := k
		for ; p > 0 && a[p-1] > x; p-- {
			a[p], j[p] = a[p-1], j[p-1]
		}
		a[p], j[p] = x, w
	}
}

func (r row) Len() int           { return len(r.a) }
func (r row) Less(x, y int) bool { return r.a[x] < r.a[y] }
func (r row) Swap(x, y int)      { r.a[x], r.a[y] = r.a[y], r.a[x]; r.j[x], r.j[y] = r.j[y], r.j[x] }

// Edges returns each coupling once, with I < J, in row order.
func (m *Ising) Edges() []Edge {
	out := make([]Edge, 0, len(m.Adj)/2)
	for i := 0; i < m.N; i++ {
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			if j := m.Adj[k]; int32(i) < j {
				out = append(out, Edge{int32(i), j, m.J[k]})
			}
		}
	}
	return out
}

// Pairs are the interacting pairs i < j, row by row: Edges' order, as
// two index slices.
func (m *Ising) Pairs() (pi, pj []int32) {
	for i := 0; i < m.N; i++ {
		for _, j := range m.Adj[m.Start[i]:m.Start[i+1]] {
			if int32(i) < j {
				pi, pj = append(pi, int32(i)), append(pj, j)
			}
		}
	}
	return pi, pj
}

// Interactions is the number of couplings (each pair counted once).
func (m *Ising) Interactions() int { return len(m.Adj) / 2 }

// NoFields reports whether every field is 0, so that E(-s) = E(s).
func (m *Ising) NoFields() bool {
	for _, h := range m.H {
		if h != 0 {
			return false
		}
	}
	return true
}

// Field is h_i + sum_j J_ij s_j, so flipping spin i changes the energy by
// 2 s_i Field(s, i).
func (m *Ising) Field(s []int8, i int) float64 {
	f := m.H[i]
	for k := m.Start[i]; k < m.Start[i+1]; k++ {
		f += m.J[k] * float64(s[m.Adj[k]])
	}
	return f
}

// Energy is E(s) in the model's own convention (Offset included).
func (m *Ising) Energy(s []int8) float64 {
	e := 0.0
	for i := 0; i < m.N; i++ {
		si := float64(s[i])
		pair := 0.0
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			if int(m.Adj[k]) > i {
				pair += m.J[k] * float64(s[m.Adj[k]])
			}
		}
		e -= si * (pair + m.H[i])
	}
	return e + m.Offset
}

// MaxDegree is the largest number of neighbours of any spin.
func (m *Ising) MaxDegree() int {
	d := 0
	for i := 0; i < m.N; i++ {
		d = max(d, int(m.Start[i+1]-m.Start[i]))
	}
	return d
}

// FromQUBO converts E(x) = sum_i diag_i x_i + sum_(i<j) Q_ij x_i x_j + offset
// on x in {0,1} exactly into Ising form with x = (1+s)/2:
// J_ij = -Q_ij/4, h_i = -(diag_i/2 + sum_j Q_ij/4),
// Offset = offset + sum_i diag_i/2 + sum_(i<j) Q_ij/4.
func FromQUBO(n int, diag []float64, off []Edge, offset float64) (*Ising, error) {
	if diag == nil {
		diag = make([]float64, n)
	}
	if len(diag) != n {
		return nil, fmt.Errorf("%d diagonal terms for %d variables", len(diag), n)
	}
	edges := make([]Edge, len(off))
	for k, e := range off {
		if e.I < 0 || e.J < 0 || int(e.I) >= n || int(e.J) >= n {
			return nil, fmt.Errorf("coupling %d-%d out of range (expected indices in 0..%d)", e.I, e.J, n-1)
		}
		edges[k] = Edge{e.I, e.J, -e.W / 4}
	}
	h, c := quboFields(n, diag, off, offset)
	return NewIsing(n, edges, h, c)
}

// quboFields are the fields and offset of the Ising form of the QUBO of
// terms diag, off (indices in range) and offset, h_i = -(diag_i/2 +
// sum_j Q_ij/4) and Offset = offset + sum_i diag_i/2 + sum_(i<j) Q_ij/4,
// added in this order: every form of a QUBO (FromQUBO, the dense form,
// the grid's bound) derives them here, so all give the same bits.
func quboFields(n int, diag []float64, off []Edge, offset float64) ([]float64, float64) {
	h := make([]float64, n)
	c := offset
	for i, d := range diag {
		h[i] -= d / 2
		c += d / 2
	}
	for _, e := range off {
		h[e.I] -= e.W / 4
		h[e.J] -= e.W / 4
		c += e.W / 4
	}
	return h, c
}

// SpinsToBits maps s in {-1,+1} to x = (1+s)/2 in {0,1}.
func SpinsToBits(s []int8, x []uint8) {
	for i, v := range s {
		x[i] = uint8((v + 1) / 2)
	}
}
