package model

import (
	"slices"

	"sardonics/internal/memo"
)

// Kind says in which convention a model's energies are reported.
type Kind int

const (
	KindIsing Kind = iota // spins in {-1,+1}
	KindQUBO              // bits in {0,1}, E = x'Qx
	KindRBM               // visible and hidden bits in {0,1}
)

func (k Kind) String() string {
	switch k {
	case KindIsing:
		return "ising"
	case KindQUBO:
		return "qubo"
	case KindRBM:
		return "rbm"
	}
	return "unknown"
}

// Model is a loaded or generated model. Ising (the exact sparse Ising form)
// is set for every model but those given as a full matrix, which set Dense
// instead (Sparse and DenseForm derive either form from the other), and
// RBMs: RBM is set for bipartite dense models, whose Ising variables are
// the visible units followed by the hidden ones, and Sparse builds their
// Ising form on first need (24 bytes per weight that the RBM engines never
// read). Read the Ising form with Sparse; the field only for models known
// to hold it.
type Model struct {
	Spec  string
	Kind  Kind
	Ising *Ising
	Dense *Dense // a model given as a full matrix (sk:, .npy, .npz with J or Q); Ising is then nil
	RBM   *RBM
	QUBO  *QUBO // the source terms of a KindQUBO model, kept so it can be written back exactly
	Grid  Grid  // how OnGrid rounded the terms (Load: every model)
}

// QUBO holds E(x) = sum_i Diag_i x_i + sum_(i<j) Q_ij x_i x_j as given.
type QUBO struct {
	N      int
	Diag   []float64
	Off    []Edge  // Q_ij with I < J
	Offset float64 // the constant term (the optional "c offset VALUE" line)
}

// Variables is the number of binary variables M.
func (m *Model) Variables() int {
	if m.Ising == nil && m.Dense != nil {
		return m.Dense.N
	}
	if m.Ising == nil && m.RBM != nil {
		return m.RBM.V + m.RBM.H
	}
	return m.Ising.N
}

// Fields are the fields h_i of m's Ising form; for an RBM computed as its
// Ising form would hold them (the same bits), without building the form.
func (m *Model) Fields() []float64 {
	switch {
	case m.Ising != nil:
		return m.Ising.H
	case m.Dense != nil:
		return m.Dense.H
	case m.RBM != nil:
		h, _ := m.RBM.isingFields()
		return h
	}
	return nil
}

// ZeroField reports whether every field h_i of m's Ising form is zero:
// then E(s) = E(-s), and the susceptibility is that of |m| (see
// summary/observables.go), in sample and exact alike.
// It is computed once per model (an RBM's fields take a pass over W: 70
// ms at 4096 x 4096, which every trial paid at its end).
func (m *Model) ZeroField() bool {
	return zeroFields.Get(m, func(m *Model) bool {
		return !slices.ContainsFunc(m.Fields(), func(x float64) bool { return x != 0 })
	})
}

var zeroFields memo.Weak[Model, bool]

// Pairs are the interacting pairs i < j of m's Ising form (the
// correlations --marginals measures, in sample and exact alike): the
// sparse form's (Ising.Pairs), an RBM's (visible i, hidden V+j) pairs, i
// major, without building its form, or a dense matrix's nonzero entries,
// row by row.
func (m *Model) Pairs() (pi, pj []int32) {
	if r := m.RBM; r != nil && m.Ising == nil {
		for i := range r.V {
			for j := range r.H {
				pi, pj = append(pi, int32(i)), append(pj, int32(r.V+j))
			}
		}
		return pi, pj
	}
	if m.Ising != nil || m.Dense == nil {
		return m.Ising.Pairs()
	}
	d := m.Dense
	for i := 0; i < d.N; i++ {
		for j := i + 1; j < d.N; j++ {
			if d.At(i, j) != 0 {
				pi, pj = append(pi, int32(i)), append(pj, int32(j))
			}
		}
	}
	return pi, pj
}

// Interactions is the number of pairwise couplings.
func (m *Model) Interactions() int {
	if m.RBM != nil {
		return m.RBM.V * m.RBM.H
	}
	if m.Ising == nil && m.Dense != nil {
		return m.Dense.Pairs
	}
	return m.Ising.Interactions()
}
