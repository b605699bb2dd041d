package model

import (
	"fmt"
	"math"
)

// Describe is a one-line summary, e.g.
// "ferro2d:L=60: 3600 variables, 7200 interactions".
func (m *Model) Describe() string {
	name := m.Spec
	if name == "" {
		name = m.Kind.String() + " model"
	}
	if m.RBM != nil {
		return fmt.Sprintf("%s: %d variables (%d visible, %d hidden), %d interactions",
			name, m.Variables(), m.RBM.V, m.RBM.H, m.Interactions())
	}
	return fmt.Sprintf("%s: %d variables, %d interactions", name, m.Variables(), m.Interactions())
}

// Validate checks the invariants every constructor of this package
// guarantees: a consistent CSR Ising form (sorted rows, symmetric couplings,
// no self-couplings or duplicates, finite values) and, for QUBO and RBM
// models, source terms that match it in size. It is meant for tests and for
// models built by hand. A dense model (Dense set) is checked in its dense
// form: a symmetric finite matrix with zero diagonal.
func (m *Model) Validate() error {
	if m.Dense != nil {
		if m.Ising != nil || m.RBM != nil {
			return fmt.Errorf("dense model with a sparse or RBM form")
		}
		if err := m.Dense.validate(); err != nil {
			return err
		}
		switch m.Kind {
		case KindIsing:
		case KindQUBO:
			if q := m.QUBO; q == nil || q.N != m.Dense.N || len(q.Diag) != q.N || len(q.Off) != m.Dense.Pairs {
				return fmt.Errorf("QUBO terms do not match the dense form")
			}
		default:
			return fmt.Errorf("dense model of kind %v", m.Kind)
		}
		return nil
	}
	is := m.Sparse()
	if is == nil {
		return fmt.Errorf("model has no Ising form")
	}
	if is.N < 1 || len(is.Start) != is.N+1 || len(is.H) != is.N || is.Start[0] != 0 ||
		int(is.Start[is.N]) != len(is.Adj) || len(is.J) != len(is.Adj) {
		return fmt.Errorf("Ising form has inconsistent sizes")
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(is.Offset) {
		return fmt.Errorf("offset %v is not finite", is.Offset)
	}
	for i := 0; i < is.N; i++ {
		if !finite(is.H[i]) {
			return fmt.Errorf("field %d is %v", i, is.H[i])
		}
		if is.Start[i] > is.Start[i+1] {
			return fmt.Errorf("row %d has negative length", i)
		}
		for k := is.Start[i]; k < is.Start[i+1]; k++ {
			j := is.Adj[k]
			if j < 0 || int(j) >= is.N || int(j) == i {
				return fmt.Errorf("row %d has neighbour %d", i, j)
			}
			if k > is.Start[i] && is.Adj[k-1] >= j {
				return fmt.Errorf("row %d is not sorted or has a duplicate", i)
			}
			if !finite(is.J[k]) {
				return fmt.Errorf("coupling %d-%d is %v", i, j, is.J[k])
			}
			if w, ok := is.coupling(int(j), int32(i)); !ok || w != is.J[k] {
				return fmt.Errorf("coupling %d-%d is not symmetric", i, j)
			}
		}
	}
	switch m.Kind {
	case KindIsing:
	case KindQUBO:
		if m.QUBO == nil || m.QUBO.N != is.N || len(m.QUBO.Diag) != is.N || len(m.QUBO.Off) != is.Interactions() {
			return fmt.Errorf("QUBO terms do not match the Ising form")
		}
	case KindRBM:
		r := m.RBM
		if r == nil || r.V+r.H != is.N || len(r.W) != r.V*r.H || len(r.B) != r.V || len(r.C) != r.H {
			return fmt.Errorf("RBM arrays do not match the Ising form")
		}
	default:
		return fmt.Errorf("unknown kind %d", int(m.Kind))
	}
	return nil
}

// coupling finds J_ij in row i by binary search.
func (m *Ising) coupling(i int, j int32) (float64, bool) {
	lo, hi := int(m.Start[i]), int(m.Start[i+1])
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case m.Adj[mid] == j:
			return m.J[mid], true
		case m.Adj[mid] < j:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}
