package model

import (
	"fmt"
	"math"
	"slices"

	"sardonics/internal/memo"
)

// MaxDenseVariables bounds a dense model: its N x N matrix has at most
// MaxRBMWeights entries (N <= 8192).
const MaxDenseVariables = 8192

// Dense is an Ising model held as its full coupling matrix,
//
//	E(s) = Offset - sum_(i<j) J_ij s_i s_j - sum_i h_i s_i,
//
// with J stored N x N, row-major, symmetric, zero on the diagonal: row i
// holds every coupling of spin i in index order, so that a flip of spin k
// changes every local field by one contiguous row. The matrix is kept in
// float32 (J32, 4 bytes per entry) when every coupling is exactly a
// float32, else in float64 (J64); exactly one of them is set. Read-only
// once built: every engine and trial shares it.
type Dense struct {
	N      int
	J32    []float32
	J64    []float64
	H      []float64
	Offset float64
	Pairs  int // couplings that are not zero (each pair counted once)
}

// NewDense builds a dense model from a full N x N matrix j (row-major,
// symmetric, zero diagonal; copied), fields h (nil: zero; copied) and an
// offset. It rejects an asymmetric matrix, a nonzero diagonal, non-finite
// values and models beyond MaxEnergy.
func NewDense(n int, j []float64, h []float64, offset float64) (*Dense, error) {
	return newDense(n, j, h, offset, false)
}

// newDense is NewDense; with own, j is the caller's to give away and may
// become the model's matrix (no copy of N^2 values).
func newDense(n int, j []float64, h []float64, offset float64, own bool) (*Dense, error) {
	if n < 1 || n > MaxDenseVariables {
		return nil, fmt.Errorf("dense model of %d variables (expected 1..%d)", n, MaxDenseVariables)
	}
	if len(j) != n*n {
		return nil, fmt.Errorf("%d couplings for %d variables (expected %d x %d)", len(j), n, n, n)
	}
	if h == nil {
		h = make([]float64, n)
	}
	if len(h) != n {
		return nil, fmt.Errorf("%d fields for %d variables", len(h), n)
	}
	var size magnitude
	for i := 0; i < n; i++ {
		if j[i*n+i] != 0 {
			return nil, fmt.Errorf("J_%d%d = %s on the diagonal (expected 0)", i, i, fmtFloat(j[i*n+i]))
		}
		for k := i + 1; k < n; k++ {
			a, b := j[i*n+k], j[k*n+i]
			if !finite(a) || !finite(b) {
				return nil, fmt.Errorf("coupling %d-%d is %v (expected a finite number)", i, k, a+b)
			}
			if a != b {
				return nil, fmt.Errorf("J_%d,%d = %s but J_%d,%d = %s (expected a symmetric matrix)", i, k, fmtFloat(a), k, i, fmtFloat(b))
			}
			if msg := size.add("coupling", "", a); msg != "" {
				return nil, fmt.Errorf("coupling %d-%d: %s", i, k, msg)
			}
		}
	}
	for i, v := range h {
		if !finite(v) {
			return nil, fmt.Errorf("field %d is %v (expected a finite number)", i, v)
		}
		if msg := size.add("field", "", v); msg != "" {
			return nil, fmt.Errorf("field %d: %s", i, msg)
		}
	}
	if !finite(offset) {
		return nil, fmt.Errorf("offset is %v (expected a finite number)", offset)
	}
	d := &Dense{N: n, H: append([]float64(nil), h...), Offset: offset}
	d.setMatrix(j, own)
	return d, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// exactFloat32 reports whether every value of xs is a float32.
func exactFloat32(xs []float64) bool {
	return !slices.ContainsFunc(xs, func(x float64) bool { return float64(float32(x)) != x })
}

// setMatrix stores j (checked) as float32 when that is exact, else as
// float64 (j itself when own), and counts the nonzero pairs.
func (d *Dense) setMatrix(j []float64, own bool) {
	if exactFloat32(j) {
		d.J32 = make([]float32, len(j))
		for k, x := range j {
			d.J32[k] = float32(x)
		}
	} else if own {
		d.J64 = j
	} else {
		d.J64 = append([]float64(nil), j...)
	}
	d.countPairs()
}

// countPairs sets Pairs, the number of nonzero couplings.
func (d *Dense) countPairs() {
	d.Pairs = 0
	for i := 0; i < d.N; i++ {
		for k := i + 1; k < d.N; k++ {
			if d.At(i, k) != 0 {
				d.Pairs++
			}
		}
	}
}

// At is J_ij.
func (d *Dense) At(i, j int) float64 {
	if d.J32 != nil {
		return float64(d.J32[i*d.N+j])
	}
	return d.J64[i*d.N+j]
}

// Field is h_i + sum_j J_ij s_j, so flipping spin i changes the energy by
// 2 s_i Field(s, i).
func (d *Dense) Field(s []int8, i int) float64 {
	f := d.H[i]
	for j := 0; j < d.N; j++ {
		f += d.At(i, j) * float64(s[j])
	}
	return f
}

// Energy is E(s), summed as Ising.Energy sums it (row by row, each pair in
// the row of its smaller index), so both forms give the same bits.
func (d *Dense) Energy(s []int8) float64 {
	e := 0.0
	for i := 0; i < d.N; i++ {
		pair := 0.0
		for j := i + 1; j < d.N; j++ {
			if w := d.At(i, j); w != 0 {
				pair += w * float64(s[j])
			}
		}
		e -= float64(s[i]) * (pair + d.H[i])
	}
	return e + d.Offset
}

// Density is the fraction of the N(N-1)/2 pairs that are coupled (1 for
// N = 1).
func Density(n, pairs int) float64 {
	if n < 2 {
		return 1
	}
	return float64(pairs) / (float64(n) * float64(n-1) / 2)
}

// The dense engines win above a density and a degree (measured: see
// docs/speed.md, "Dense models"): a flip costs them O(N) in one
// vectorised pass where the sparse engines pay O(degree) in scattered
// updates that cost 5-8 times more per neighbour.
const (
	// DenseMinDensity is the smallest fraction of coupled pairs at which
	// the dense engines are chosen.
	DenseMinDensity = 0.15
	// DenseMinDegree is the smallest mean number of neighbours at which
	// they are chosen (a complete graph from 16 spins on).
	DenseMinDegree = 15
)

// UseDense reports whether the samplers run m on the dense engines (the
// automatic choice): m is not an RBM (those have their own), has at most
// MaxDenseVariables variables, at least DenseMinDensity of its pairs
// coupled and a mean degree of at least DenseMinDegree.
func (m *Model) UseDense() bool {
	if m.RBM != nil {
		return false
	}
	n, pairs := m.Variables(), m.Interactions()
	return n <= MaxDenseVariables && Density(n, pairs) >= DenseMinDensity && 2*float64(pairs) >= DenseMinDegree*float64(n)
}

// DenseForm is m's dense Ising form: m.Dense, or built once from the
// sparse form (cached per model, shared by every engine and trial). It is
// nil for an RBM and for a model beyond MaxDenseVariables.
func (m *Model) DenseForm() *Dense {
	if m.Dense != nil {
		return m.Dense
	}
	if m.RBM != nil || m.Ising == nil || m.Ising.N > MaxDenseVariables {
		return nil
	}
	return denseForms.Get(m.Ising, denseOf)
}

// Sparse is m's sparse (CSR) Ising form: m.Ising, or built once (cached
// per model) from the dense form or the RBM. A dense model's CSR form
// holds only its nonzero couplings.
func (m *Model) Sparse() *Ising {
	switch {
	case m.Ising != nil:
		return m.Ising
	case m.Dense != nil:
		return sparseForms.Get(m.Dense, sparseOf)
	case m.RBM != nil:
		return rbmForms.Get(m.RBM, rbmIsing)
	}
	return nil
}

// A model's other forms, each built once while its source lives (models
// are never modified once built).
var (
	denseForms  memo.Weak[Ising, *Dense]
	sparseForms memo.Weak[Dense, *Ising]
	rbmForms    memo.Weak[RBM, *Ising]
)

// rbmIsing is r's Ising form. r passed NewRBM's checks and MaxEnergy's
// (see rbmModel), so building it cannot fail.
func rbmIsing(r *RBM) *Ising {
	is, err := r.Ising()
	if err != nil {
		panic("model: " + err.Error())
	}
	return is
}

// denseOf is the dense form of a sparse model (N <= MaxDenseVariables).
func denseOf(is *Ising) *Dense {
	n := is.N
	j := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for k := is.Start[i]; k < is.Start[i+1]; k++ {
			j[i*n+int(is.Adj[k])] = is.J[k]
		}
	}
	d := &Dense{N: n, H: append([]float64(nil), is.H...), Offset: is.Offset}
	d.setMatrix(j, true)
	return d
}

// sparseOf is the CSR form of a dense model: its nonzero couplings, rows in
// index order (no sort needed).
func sparseOf(d *Dense) *Ising {
	n := d.N
	is := &Ising{N: n, Start: make([]int32, n+1), H: append([]float64(nil), d.H...), Offset: d.Offset}
	is.Adj = make([]int32, 0, 2*d.Pairs)
	is.J = make([]float64, 0, 2*d.Pairs)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if w := d.At(i, j); w != 0 {
				is.Adj = append(is.Adj, int32(j))
				is.J = append(is.J, w)
			}
		}
		is.Start[i+1] = int32(len(is.Adj))
	}
	return is
}

// validate checks a dense model's invariants (see Model.Validate).
func (d *Dense) validate() error {
	n := d.N
	if n < 1 || n > MaxDenseVariables || len(d.H) != n || (d.J32 == nil) == (d.J64 == nil) ||
		(d.J32 != nil && len(d.J32) != n*n) || (d.J64 != nil && len(d.J64) != n*n) {
		return fmt.Errorf("dense form has inconsistent sizes")
	}
	if !finite(d.Offset) {
		return fmt.Errorf("offset %v is not finite", d.Offset)
	}
	pairs := 0
	for i := 0; i < n; i++ {
		if !finite(d.H[i]) {
			return fmt.Errorf("field %d is %v", i, d.H[i])
		}
		if d.At(i, i) != 0 {
			return fmt.Errorf("diagonal %d is not zero", i)
		}
		for j := i + 1; j < n; j++ {
			w := d.At(i, j)
			if !finite(w) || w != d.At(j, i) {
				return fmt.Errorf("coupling %d-%d is %v (not finite or not symmetric)", i, j, w)
			}
			if w != 0 {
				pairs++
			}
		}
	}
	if pairs != d.Pairs {
		return fmt.Errorf("dense form counts %d pairs (has %d)", d.Pairs, pairs)
	}
	return nil
}

// Fields are the fields h_i (nil for a nil model).
func (d *Dense) Fields() []float64 {
	if d == nil {
		return nil
	}
	return d.H
}
