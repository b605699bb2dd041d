package model

import (
	"fmt"
	"math"
	"slices"
)

// One energy per state. Every engine updates its energy by increments
// (a flip adds 2 s_i f_i), in its own order of additions, and a float64
// sum of arbitrary reals depends on that order: left alone, the same state
// reached by different paths reports energies a few ulps apart, which
// grow with the length of a run, and the rank-based diagnostics (bulk and
// tail ESS, R-hat) read those ties broken by time as a slow trend.
//
// So every model is put on a binary grid when it is loaded (OnGrid): its
// terms (couplings, fields, offset; QUBO entries; RBM weights and biases)
// are rounded so that every term of its Ising form
//
//	E(s) = Offset - sum_(i<j) J_ij s_i s_j - sum_i h_i s_i
//
// is an integer multiple of 2^Exp, with Exp the smallest exponent at
// which that form's B = sum |J_ij| + sum |h_i| + |Offset| (a bound on
// every energy, local field and partial sum of one) is at most
// 2^GridBits 2^Exp. Then every quantity an engine forms from the terms by
// additions, negations and multiplications by +-1 and +-2 (fields, energy
// changes, energies, sums of them over a walk, E_a + E_b of two replicas)
// is an integer multiple of 2^(Exp-1) of magnitude below 2^53 2^(Exp-1): a
// float64, so every such addition is exact whatever its order, and so are
// an RBM engine's sums of W, b and c (multiples of 2^(Exp+1), at most 12 B
// in all). An energy is then E(state) exactly, bit for bit, however it was
// reached: by increments, by a refresh, after a swap, a cluster move or a
// restore. No kernel changes; a term moves by at most half its grid step
// (about B 2^-51 of the Ising form), which Grid reports. Integer Ising
// models with B below 2^50 (+-J glasses, integer .txt files), integer
// QUBOs and RBMs below 2^48, and float32 matrices of a few decades are on
// their grid already and do not change at all.

// GridBits is the headroom of the grid: B <= 2^GridBits 2^Exp.
const GridBits = 50

// Grid says how a model was put on its grid.
type Grid struct {
	// Exp: every term of the Ising form is an integer multiple of 2^Exp.
	Exp int
	// Bound is B, the sum of the Ising form's |terms| (offset included).
	Bound float64
	// Rounded is the number of terms rounding changed (0: none).
	Rounded int
	// MaxChange is the largest change of one term; SumChange the sum of
	// the changes, which bounds how far any state's energy moved.
	MaxChange, SumChange float64
}

// OnGrid rounds m's terms to its grid (see GridBits), in place, and
// records the result in m.Grid; a model already on its grid is left as it
// is. It must run before m's derived forms are built (Load calls it on
// every model it returns). Running it again changes nothing.
func (m *Model) OnGrid() {
	var g Grid
	for {
		b := m.isingBound()
		e, ok := gridExp(b)
		if !ok {
			g.Exp, g.Bound = 0, b // beyond float64's range of grids: left as it is
			break
		}
		var pass Grid
		m.roundTerms(e, &pass)
		g.Exp, g.Bound = e, b
		g.Rounded += pass.Rounded
		g.MaxChange = max(g.MaxChange, pass.MaxChange)
		g.SumChange += pass.SumChange
		if pass.Rounded == 0 {
			break
		}
		// Rounding can move B across a power of two; the loop ends where
		// the grid of the rounded terms leaves them unchanged (a coarser
		// grid rounds once more, a finer one changes nothing).
	}
	if g.Rounded > 0 && m.QUBO != nil {
		m.rebuildQUBO()
	}
	m.Grid = g
}

// gridExp is the smallest e with b <= 2^(GridBits+e), or false where b is
// zero, not finite or so small that 2^-e would overflow.
func gridExp(b float64) (int, bool) {
	if b == 0 || math.IsInf(b, 0) || math.IsNaN(b) {
		return 0, false
	}
	f, x := math.Frexp(b) // b = f 2^x, f in [0.5, 1): b <= 2^x
	e := x - GridBits
	if f == 0.5 {
		e--
	}
	if e < -1000 || e > 1000 {
		return 0, false
	}
	return e, true
}

// isingBound is B of m's Ising form: sum |J_ij| (each pair once) + sum
// |h_i| + |Offset|, computed from m's own terms without building the form
// (a QUBO's and an RBM's fields and offset as FromQUBO would derive them).
func (m *Model) isingBound() float64 {
	b := 0.0
	add := func(xs []float64, f float64) {
		for _, x := range xs {
			b += math.Abs(x) * f
		}
	}
	switch {
	case m.QUBO != nil:
		q := m.QUBO
		for _, e := range q.Off {
			b += math.Abs(e.W) / 4
		}
		h, c := quboFields(q.N, q.Diag, q.Off, q.Offset)
		add(h, 1)
		b += math.Abs(c)
	case m.RBM != nil:
		h, c := m.RBM.isingFields()
		add(m.RBM.W, 0.25)
		add(h, 1)
		b += math.Abs(c)
	case m.Dense != nil:
		d := m.Dense
		for i := 0; i < d.N; i++ {
			for j := i + 1; j < d.N; j++ {
				b += math.Abs(d.At(i, j))
			}
		}
		add(d.H, 1)
		b += math.Abs(d.Offset)
	case m.Ising != nil:
		is := m.Ising
		for i := 0; i < is.N; i++ {
			for k := is.Start[i]; k < is.Start[i+1]; k++ {
				if int(is.Adj[k]) > i {
					b += math.Abs(is.J[k])
				}
			}
		}
		add(is.H, 1)
		b += math.Abs(is.Offset)
	}
	return b
}

// roundTerms rounds m's own terms so that its Ising form's are multiples
// of 2^e: an Ising model's (sparse or dense) to 2^e; a QUBO's
// off-diagonal terms to 2^(e+2) and diagonal ones to 2^(e+1) (J = -Q/4,
// h = -(Q_ii/2 + sum_j Q_ij/4)), its offset to 2^e; an RBM's weights to
// 2^(e+2) and biases to 2^(e+1). So every form of a model (an Ising model
// written as .qubo, a QUBO as .npz, an RBM as .qubo) has one Ising form
// and one grid, and a file written from one loads back unchanged. The
// changes are counted in g.
func (m *Model) roundTerms(e int, g *Grid) {
	switch {
	case m.QUBO != nil:
		q := m.QUBO
		roundAll(q.Diag, e+1, g)
		for k := range q.Off {
			q.Off[k].W = roundOne(q.Off[k].W, e+2, g)
		}
		q.Offset = roundOne(q.Offset, e, g)
	case m.RBM != nil:
		roundAll(m.RBM.W, e+2, g)
		roundAll(m.RBM.B, e+1, g)
		roundAll(m.RBM.C, e+1, g)
	case m.Dense != nil:
		// Each pair is held twice (and rounds alike): count halves.
		d := m.Dense
		var pairs Grid
		if d.J32 != nil {
			// Rounding a float32 to a coarser power-of-two grid keeps it a
			// float32 (fewer significant bits, the same exponent range).
			for k, x := range d.J32 {
				d.J32[k] = float32(roundOne(float64(x), e, &pairs))
			}
		} else {
			roundAll(d.J64, e, &pairs)
		}
		if pairs.Rounded > 0 {
			g.Rounded += pairs.Rounded / 2
			g.MaxChange = max(g.MaxChange, pairs.MaxChange)
			g.SumChange += pairs.SumChange / 2
			d.countPairs()
		}
		roundAll(d.H, e, g)
		d.Offset = roundOne(d.Offset, e, g)
	case m.Ising != nil:
		is := m.Ising
		for i := 0; i < is.N; i++ {
			for k := is.Start[i]; k < is.Start[i+1]; k++ {
				// Both copies of a pair round alike; count the pair once.
				if int(is.Adj[k]) > i {
					is.J[k] = roundOne(is.J[k], e, g)
				} else {
					is.J[k] = roundOne(is.J[k], e, nil)
				}
			}
		}
		roundAll(is.H, e, g)
		is.Offset = roundOne(is.Offset, e, g)
	}
}

// roundAll rounds each of xs to a multiple of 2^e (see roundOne).
func roundAll(xs []float64, e int, g *Grid) {
	for k, x := range xs {
		xs[k] = roundOne(x, e, g)
	}
}

// roundOne is x rounded to the nearest multiple of 2^e (ties to even),
// the change counted in g (nil: not counted). |x| <= 2^(GridBits+e) and
// -1000 <= e <= 1000, so x 2^-e and the integer times 2^e are exact.
func roundOne(x float64, e int, g *Grid) float64 {
	s := x * pow2(-e)
	r := math.RoundToEven(s)
	if r == s {
		return x
	}
	y := r * pow2(e)
	if g != nil {
		d := math.Abs(y - x)
		g.Rounded++
		g.MaxChange = max(g.MaxChange, d)
		g.SumChange += d
	}
	return y
}

// pow2 is 2^e for -1022 <= e <= 1023, built from its bits.
func pow2(e int) float64 { return math.Float64frombits(uint64(e+1023) << 52) }

// rebuildQUBO derives a QUBO model's Ising form again from its rounded
// terms. Off-diagonal terms rounded to zero leave a dense form (which
// holds only nonzero pairs) and stay in a sparse one (which keeps zero
// couplings, as a .qubo file's are kept).
func (m *Model) rebuildQUBO() {
	q := m.QUBO
	var err error
	if m.Dense != nil {
		q.Off = slices.DeleteFunc(q.Off, func(e Edge) bool { return e.W == 0 })
		m.Dense, err = quboDense(q, make([]float64, q.N*q.N))
	} else {
		m.Ising, err = FromQUBO(q.N, q.Diag, q.Off, q.Offset)
	}
	if err != nil {
		// The terms passed the same checks before rounding, which only
		// brings them closer to zero or onto coarser multiples.
		panic("model: " + err.Error())
	}
}

// GridNote says how loading rounded m's terms, or "" when it did not.
func (m *Model) GridNote() string {
	g := m.Grid
	if g.Rounded == 0 {
		return ""
	}
	return fmt.Sprintf("energies exact on the grid 2^%d (one energy per state): %d terms rounded, each by at most %.2g, any energy by at most %.2g",
		g.Exp, g.Rounded, g.MaxChange, g.SumChange)
}
