package ref

import "sardonics/model"

// IsingEnergy is Offset - sum_edges W s_I s_J - sum_i h_i s_i, one term at a
// time. h may be nil (no fields).
func IsingEnergy(edges []model.Edge, h []float64, offset float64, s []int8) float64 {
	e := offset
	for _, ed := range edges {
		e -= ed.W * float64(s[ed.I]) * float64(s[ed.J])
	}
	for i, hi := range h {
		e -= hi * float64(s[i])
	}
	return e
}

// QUBOEnergy is sum_i Diag_i x_i + sum_(i<j) Q_ij x_i x_j over bits x.
func QUBOEnergy(q *model.QUBO, x []uint8) float64 {
	e := 0.0
	for i, d := range q.Diag {
		if x[i] == 1 {
			e += d
		}
	}
	for _, t := range q.Off {
		if x[t.I] == 1 && x[t.J] == 1 {
			e += t.W
		}
	}
	return e
}

// RBMEnergy is -v'Wh - b'v - c'h over bits v, h.
func RBMEnergy(r *model.RBM, v, h []uint8) float64 {
	e := 0.0
	for i := 0; i < r.V; i++ {
		for j := 0; j < r.H; j++ {
			e -= r.W[i*r.H+j] * float64(v[i]) * float64(h[j])
		}
	}
	for i := 0; i < r.V; i++ {
		e -= r.B[i] * float64(v[i])
	}
	for j := 0; j < r.H; j++ {
		e -= r.C[j] * float64(h[j])
	}
	return e
}

// Bits maps spins to bits, x = (1+s)/2.
func Bits(s []int8) []uint8 {
	x := make([]uint8, len(s))
	for i, v := range s {
		if v == 1 {
			x[i] = 1
		}
	}
	return x
}

// Energy is the energy of spin state s in m's own convention, from m's
// source terms: the QUBO terms of a KindQUBO model, the arrays of an RBM
// (visible units first), and otherwise the Ising edge list.
func Energy(m *model.Model, s []int8) float64 {
	switch {
	case m.Kind == model.KindQUBO && m.QUBO != nil:
		return QUBOEnergy(m.QUBO, Bits(s))
	case m.RBM != nil:
		x := Bits(s)
		return RBMEnergy(m.RBM, x[:m.RBM.V], x[m.RBM.V:])
	}
	is := m.Sparse()
	return IsingEnergy(is.Edges(), is.H, is.Offset, s)
}

// DeltaE is the energy change of flipping spin i of s, by recomputing the
// whole energy. s is left unchanged.
func DeltaE(m *model.Model, s []int8, i int) float64 {
	t := append([]int8(nil), s...)
	t[i] = -t[i]
	return Energy(m, t) - Energy(m, s)
}
