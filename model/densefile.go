package model

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"sardonics/npy"
)

// Dense matrix files (docs/formats.md, section 10): a .npy file holding J,
// or an .npz archive holding J (and optionally h) or Q. They are decoded
// straight into the dense form: no text, no edge list, no sort.

// ReadDenseNPY decodes a .npy file holding a dense Ising coupling matrix J
// (N x N, float32 or float64, C or Fortran order), no fields: E(s) =
// -sum_(i<j) J_ij s_i s_j, each pair given in either triangle or in both
// (equal). Every problem is an *InputError naming name.
func ReadDenseNPY(name string, data []byte) (*Model, error) {
	j, n, msg := decodeMatrix(data)
	if msg != "" {
		return nil, inputErr(name, 0, "%s", msg)
	}
	return denseModel(name, n, j, nil)
}

// npzLayouts are the .npz files Load reads, for the message of an archive
// that is none of them.
const npzLayouts = "a zip of .npy arrays: W, b, c for an RBM; J and optionally h for an Ising model; or Q for a QUBO"

// HasDenseArrays reports whether an .npz archive names the arrays of a
// dense model (J.npy or Q.npy) rather than an RBM's; Load reads those with
// ReadDenseNPZ. A damaged archive reports false (ReadNPZ then says why).
func HasDenseArrays(data []byte) bool {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return false
	}
	for _, f := range zr.File {
		if f.Name == "J.npy" || f.Name == "Q.npy" {
			return true
		}
	}
	return false
}

// ReadDenseNPZ decodes an .npz archive (stored or deflated) holding a
// dense Ising model, J (N x N) and optionally h (N), or a dense QUBO, Q (N
// x N) with E(x) = x^T Q x: float32 or float64, little-endian, C or
// Fortran order. Other entries are ignored; J with Q, or Q with h, is an
// error. Every problem is an *InputError naming name and, where there is
// one, the array.
func ReadDenseNPZ(name string, data []byte) (*Model, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // entry names are only compared, never used as paths
		return nil, inputErr(name, 0, "not an .npz archive: %v (expected %s)", err, npzLayouts)
	}
	raw := map[string][]byte{}
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if key != "J" && key != "h" && key != "Q" || !strings.HasSuffix(f.Name, ".npy") {
			continue
		}
		if raw[key] != nil {
			return nil, inputErr(name, 0, "array %s given twice (expected one entry %s.npy)", key, key)
		}
		limit := uint64(npy.MaxHeader + 16 + 8*MaxRBMWeights)
		if f.UncompressedSize64 > limit {
			return nil, inputErr(name, 0, "array %s: %d bytes (expected at most %d)", key, f.UncompressedSize64, limit)
		}
		b, err := npy.Entry(f, data, limit)
		if err != nil {
			return nil, inputErr(name, 0, "array %s: %v", key, err)
		}
		raw[key] = b
	}
	switch {
	case raw["J"] != nil && raw["Q"] != nil:
		return nil, inputErr(name, 0, "arrays J and Q both given (expected J and h for an Ising model, or Q for a QUBO)")
	case raw["Q"] != nil && raw["h"] != nil:
		return nil, inputErr(name, 0, "arrays Q and h both given (expected Q alone: its diagonal holds the linear terms)")
	case raw["J"] == nil && raw["Q"] == nil:
		return nil, inputErr(name, 0, "missing array J or Q: %s (expected J.npy (N x N) and h.npy (N), or Q.npy (N x N))", holds(zr.File))
	}
	if raw["Q"] != nil {
		q, n, msg := decodeMatrix(raw["Q"])
		if msg != "" {
			return nil, inputErr(name, 0, "array Q: %s", msg)
		}
		return quboModel(name, n, q)
	}
	j, n, msg := decodeMatrix(raw["J"])
	if msg != "" {
		return nil, inputErr(name, 0, "array J: %s", msg)
	}
	var h []float64
	if raw["h"] != nil {
		a, msg := parseNPY(raw["h"])
		if msg != "" {
			return nil, inputErr(name, 0, "array h: %s", msg)
		}
		if len(a.shape) != 1 || a.shape[0] != n {
			return nil, inputErr(name, 0, "array h has shape %s (expected (%d,) to match J)", a.shapeString(), n)
		}
		h = a.vals
	}
	m, err := denseModel(name, n, j, h)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) && raw["h"] != nil && strings.HasPrefix(ie.Msg, "field") {
			ie.Msg = "array h: " + ie.Msg
		} else if errors.As(err, &ie) {
			ie.Msg = "array J: " + ie.Msg
		}
		return nil, err
	}
	return m, nil
}

// decodeMatrix decodes a square .npy matrix of little-endian float32 or
// float64 values into a row-major []float64 (Fortran order transposed on
// the way); msg is empty on success.
func decodeMatrix(raw []byte) ([]float64, int, string) {
	f, msg := npy.Split(raw)
	if msg != "" {
		return nil, 0, msg
	}
	size := 0
	switch f.Descr {
	case "<f8":
		size = 8
	case "<f4":
		size = 4
	default:
		return nil, 0, fmt.Sprintf("dtype %q (expected little-endian float '<f4' or '<f8')", f.Descr)
	}
	a := &npyArray{shape: f.Shape}
	if len(f.Shape) != 2 || f.Shape[0] != f.Shape[1] || f.Shape[0] < 1 {
		return nil, 0, fmt.Sprintf("shape %s (expected a square matrix (N, N) with N >= 1)", a.shapeString())
	}
	n := f.Shape[0]
	if n > MaxDenseVariables {
		return nil, 0, fmt.Sprintf("shape %s (expected N <= %d)", a.shapeString(), MaxDenseVariables)
	}
	if len(f.Data) != n*n*size {
		return nil, 0, fmt.Sprintf("%d bytes of data (expected %d for shape %s %s)", len(f.Data), n*n*size, a.shapeString(), f.Descr)
	}
	vals := make([]float64, n*n)
	for k := range vals {
		var x float64
		if size == 8 {
			x = math.Float64frombits(binary.LittleEndian.Uint64(f.Data[8*k:]))
		} else {
			x = float64(math.Float32frombits(binary.LittleEndian.Uint32(f.Data[4*k:])))
		}
		if f.Fortran { // position k is (k mod n, k / n)
			vals[(k%n)*n+k/n] = x
		} else {
			vals[k] = x
		}
	}
	return vals, n, ""
}

// denseModel builds the Ising model of a coupling matrix j (overwritten:
// made symmetric, each pair taken from whichever triangle holds it) and
// fields h (nil: zero).
func denseModel(name string, n int, j, h []float64) (*Model, error) {
	for i := 0; i < n; i++ {
		if x := j[i*n+i]; x != 0 {
			return nil, inputErr(name, 0, "J_%d,%d = %s on the diagonal (expected 0: s_i^2 = 1 makes it a constant)", i, i, fmtFloat(x))
		}
		for k := i + 1; k < n; k++ {
			a, b := j[i*n+k], j[k*n+i]
			if !finite(a) || !finite(b) {
				x, r, c := a, i, k
				if finite(a) {
					x, r, c = b, k, i
				}
				return nil, inputErr(name, 0, "J_%d,%d is %v (expected finite numbers)", r, c, x)
			}
			switch {
			case a == b || b == 0:
			case a == 0:
				a = b
			default:
				return nil, inputErr(name, 0, "J_%d,%d = %s but J_%d,%d = %s (expected a symmetric matrix, or each pair in one triangle)", i, k, fmtFloat(a), k, i, fmtFloat(b))
			}
			j[i*n+k], j[k*n+i] = a, a
		}
	}
	d, err := newDense(n, j, h, 0, true)
	if err != nil {
		return nil, inputErr(name, 0, "%v", err)
	}
	return &Model{Spec: name, Kind: KindIsing, Dense: d}, nil
}

// quboModel builds the model of E(x) = x^T Q x: Q_ii x_i and (Q_ij + Q_ji)
// x_i x_j for i < j, converted to Ising form exactly as FromQUBO converts
// a .qubo file (same terms, same order), so both formats give the same
// model.
func quboModel(name string, n int, q []float64) (*Model, error) {
	qu := &QUBO{N: n, Diag: make([]float64, n)}
	var size magnitude
	tiny := math.Ldexp(1, -1020) // /2 and /4 of anything at least this large are exact
	check := func(i, k int, x float64) error {
		if !finite(x) {
			return inputErr(name, 0, "array Q: element (%d, %d) is %v (expected finite numbers)", i, k, x)
		}
		if x != 0 && math.Abs(x) < tiny {
			return inputErr(name, 0, "array Q: element (%d, %d) is %s (expected 0 or |value| >= 2^-1020, so that the Ising form is exact)", i, k, fmtFloat(x))
		}
		if msg := size.add("value", "", x); msg != "" {
			return inputErr(name, 0, "array Q: element (%d, %d): %s", i, k, msg)
		}
		return nil
	}
	for i := 0; i < n; i++ {
		if err := check(i, i, q[i*n+i]); err != nil {
			return nil, err
		}
		qu.Diag[i] = q[i*n+i]
	}
	for i := 0; i < n; i++ {
		for k := i + 1; k < n; k++ {
			a, b := q[i*n+k], q[k*n+i]
			if err := check(i, k, a); err != nil {
				return nil, err
			}
			if err := check(k, i, b); err != nil {
				return nil, err
			}
			w := a + b
			if w == 0 {
				continue
			}
			if math.Abs(w) < tiny {
				return nil, inputErr(name, 0, "array Q: elements (%d, %d) and (%d, %d) add to %s (expected 0 or |sum| >= 2^-1020, so that the Ising form is exact)", i, k, k, i, fmtFloat(w))
			}
			qu.Off = append(qu.Off, Edge{int32(i), int32(k), w})
		}
	}
	d, err := quboDense(qu, q[:n*n])
	if err != nil {
		return nil, inputErr(name, 0, "array Q: %v", err)
	}
	return &Model{Spec: name, Kind: KindQUBO, Dense: d, QUBO: qu}, nil
}

// quboDense is the dense Ising form of qu, by FromQUBO's arithmetic on the
// matrix instead of an edge list; j (N x N, overwritten) becomes its
// matrix.
func quboDense(qu *QUBO, j []float64) (*Dense, error) {
	n := qu.N
	clear(j)
	for _, e := range qu.Off {
		j[int(e.I)*n+int(e.J)], j[int(e.J)*n+int(e.I)] = -e.W/4, -e.W/4
	}
	h, c := quboFields(n, qu.Diag, qu.Off, qu.Offset)
	return newDense(n, j, h, c, true)
}

// writeNPZ writes m as .npz in the layout that holds it exactly: an RBM's
// W, b, c; a QUBO's Q (when it has no constant term: else J and h, if its
// Ising form has no offset); an Ising model's J and h.
func writeNPZ(w io.Writer, m *Model) error {
	if err := checkNPZ(m); err != nil {
		return err
	}
	switch {
	case m.RBM != nil:
		return WriteNPZ(w, m.RBM)
	case m.QUBO != nil && m.QUBO.Offset == 0:
		return writeQNPZ(w, m)
	}
	return WriteDenseNPZ(w, m)
}

// checkNPZ says why .npz cannot hold m (nil: it can), in writeNPZ's
// layouts.
func checkNPZ(m *Model) error {
	switch {
	case m.RBM != nil:
		return nil
	case m.QUBO != nil && m.QUBO.Offset == 0:
		return denseSize(m)
	}
	if err := denseSize(m); err != nil {
		return err
	}
	if c := isingOffset(m); c != 0 && m.QUBO != nil {
		return cannotHold("model %s has constant term %s, which an .npz of Q cannot hold (nor one of J and h: its Ising form has offset %s)",
			m.Spec, fmtFloat(m.QUBO.Offset), fmtFloat(c))
	}
	_, err := writableDense(m)
	return err
}

// checkNPY says why .npy cannot hold m (nil: it can): J alone, so no
// offset and no fields.
func checkNPY(m *Model) error {
	if err := denseSize(m); err != nil {
		return err
	}
	if c := isingOffset(m); c != 0 {
		return cannotHold("model %s has energy offset %s, which a .npy file (J alone) cannot hold", m.Spec, fmtFloat(c))
	}
	if slices.ContainsFunc(m.Fields(), func(x float64) bool { return x != 0 }) {
		return cannotHold("model %s has fields, which a .npy file (J alone) cannot hold", m.Spec)
	}
	return nil
}

// writeQNPZ writes a QUBO model's terms as an uncompressed .npz archive of
// Q (N x N, float32 when every term is one, else float64): Q_ii the
// diagonal, Q_ij (i < j) the pair's term, the lower triangle zero, which
// ReadDenseNPZ reads back as the same terms (Q_ij + Q_ji = Q_ij). The
// QUBO's constant term must be 0.
func writeQNPZ(w io.Writer, m *Model) error {
	if err := denseSize(m); err != nil {
		return err
	}
	qu := m.QUBO
	n := qu.N
	q := make([]float64, n*n)
	for i, d := range qu.Diag {
		q[i*n+i] = d
	}
	for _, e := range qu.Off {
		q[int(min(e.I, e.J))*n+int(max(e.I, e.J))] = e.W
	}
	data := npy.F8(q, n, n)
	if exactFloat32(q) {
		data = npy.F4(q, n, n)
	}
	return npy.WriteArchive(w, npy.Options{}, npy.Array{Name: "Q", Data: data})
}

// WriteDenseNPZ writes m's Ising form as an uncompressed .npz archive of
// J (N x N, float32 when the model's matrix is, else float64) and h
// (float64). A model whose Ising form has a nonzero offset (most QUBOs
// and RBMs) cannot be written this way and is an error.
func WriteDenseNPZ(w io.Writer, m *Model) error {
	d, err := writableDense(m)
	if err != nil {
		return err
	}
	return npy.WriteArchive(w, npy.Options{}, npy.Array{Name: "J", Data: matrixNPY(d)}, npy.Array{Name: "h", Data: npy.F8(d.H, d.N)})
}

// WriteDenseNPY writes m's coupling matrix J as a .npy file; m must have
// no fields and no offset.
func WriteDenseNPY(w io.Writer, m *Model) error {
	if err := checkNPY(m); err != nil {
		return err
	}
	d, err := writableDense(m)
	if err != nil {
		return err
	}
	_, err = w.Write(matrixNPY(d))
	return err
}

// denseSize says why m is too large for a dense matrix file (nil: it is
// not).
func denseSize(m *Model) error {
	if n := m.Variables(); n > MaxDenseVariables {
		return cannotHold("model %s has %d variables, more than the %d of a dense matrix file", m.Spec, n, MaxDenseVariables)
	}
	return nil
}

// writableDense is m's dense Ising form for a matrix file of J (and h),
// which holds any model, whatever its kind, whose Ising form has no
// offset and at most MaxDenseVariables variables (reading the file back
// gives an Ising model of the same energies).
func writableDense(m *Model) (*Dense, error) {
	if err := denseSize(m); err != nil {
		return nil, err
	}
	if c := isingOffset(m); c != 0 {
		return nil, cannotHold("model %s has energy offset %s, which a dense matrix file of J and h cannot hold", m.Spec, fmtFloat(c))
	}
	if d := m.DenseForm(); d != nil {
		return d, nil
	}
	return denseOf(m.Sparse()), nil // an RBM's Ising form
}

// matrixNPY is d's J as a C-order .npy matrix, float32 when d holds it so.
func matrixNPY(d *Dense) []byte {
	if d.J32 != nil {
		return npy.F4(d.J32, d.N, d.N)
	}
	return npy.F8(d.J64, d.N, d.N)
}
