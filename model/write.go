package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"sardonics/atomicfile"
)

// holdError says that a file format cannot hold a model exactly. Write
// makes it an *InputError (the command asked for a conversion that cannot
// be done) naming the formats that can.
type holdError struct{ msg string }

func (e *holdError) Error() string { return e.msg }

func cannotHold(format string, a ...any) error { return &holdError{fmt.Sprintf(format, a...)} }

// WriteText writes m's Ising form in the native text format: a comment, the
// count line, the nonzero fields, then every coupling (zero ones included)
// in Edges order, values formatted exactly (shortest 'g'). A model with a
// nonzero Offset cannot be written exactly and is an error.
func WriteText(w io.Writer, m *Model) error {
	if err := checkText(m); err != nil {
		return err
	}
	is := m.Sparse()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n%d\n", oneLine(m.Describe()), is.N)
	for i, h := range is.H {
		if h != 0 {
			fmt.Fprintf(bw, "%d %d %s\n", i, i, fmtFloat(h))
		}
	}
	for _, e := range is.Edges() {
		fmt.Fprintf(bw, "%d %d %s\n", e.I, e.J, fmtFloat(e.W))
	}
	return bw.Flush()
}

// checkText says why .txt cannot hold m (nil: it can): it has no offset.
func checkText(m *Model) error {
	if c := isingOffset(m); c != 0 {
		return cannotHold("model %s has energy offset %s, which the .txt format cannot hold", m.Spec, fmtFloat(c))
	}
	return nil
}

// isingOffset is the offset of m's Ising form, without building a form m
// does not hold (a dense model's CSR form, an RBM's).
func isingOffset(m *Model) float64 {
	switch {
	case m.Ising != nil:
		return m.Ising.Offset
	case m.Dense != nil:
		return m.Dense.Offset
	case m.RBM != nil:
		_, c := m.RBM.isingFields()
		return c
	}
	return 0
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// WriteQUBO writes m in the qbsolv format: Model.QUBO's terms when set, an
// RBM's terms (diagonal -b, -c; off-diagonal -W) for RBMs, otherwise the
// QUBO equivalent of the Ising form (Q_ij = -4 J_ij, Q_ii = -2 h_i + 2 sum_j
// J_ij), its constant term on a "c offset VALUE" line (a comment to qbsolv),
// which is an error unless reading it back gives the same Ising form
// exactly.
func WriteQUBO(w io.Writer, m *Model) error {
	q, err := quboOf(m)
	if err != nil {
		return err
	}
	nd := 0
	for _, d := range q.Diag {
		if d != 0 {
			nd++
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "c %s\n", oneLine(m.Describe()))
	if q.Offset != 0 {
		fmt.Fprintf(bw, "c offset %s\n", fmtFloat(q.Offset))
	}
	fmt.Fprintf(bw, "p qubo 0 %d %d %d\n", q.N, nd, len(q.Off))
	for i, d := range q.Diag {
		if d != 0 {
			fmt.Fprintf(bw, "%d %d %s\n", i, i, fmtFloat(d))
		}
	}
	for _, e := range q.Off {
		fmt.Fprintf(bw, "%d %d %s\n", min(e.I, e.J), max(e.I, e.J), fmtFloat(e.W))
	}
	return bw.Flush()
}

func quboOf(m *Model) (*QUBO, error) {
	if m.QUBO != nil {
		return m.QUBO, nil
	}
	if r := m.RBM; r != nil {
		q := &QUBO{N: r.V + r.H, Diag: make([]float64, r.V+r.H), Off: make([]Edge, 0, r.V*r.H)}
		for i := 0; i < r.V; i++ {
			q.Diag[i] = -r.B[i]
		}
		for j := 0; j < r.H; j++ {
			q.Diag[r.V+j] = -r.C[j]
		}
		for i := 0; i < r.V; i++ {
			for j := 0; j < r.H; j++ {
				q.Off = append(q.Off, Edge{int32(i), int32(r.V + j), -r.W[i*r.H+j]})
			}
		}
		return q, nil
	}
	is := m.Sparse()
	q := &QUBO{N: is.N, Diag: make([]float64, is.N)}
	for i := 0; i < is.N; i++ {
		d := -2 * is.H[i]
		for k := is.Start[i]; k < is.Start[i+1]; k++ {
			d += 2 * is.J[k]
		}
		q.Diag[i] = d
	}
	for _, e := range is.Edges() {
		q.Off = append(q.Off, Edge{e.I, e.J, -4 * e.W})
	}
	// The constant of the QUBO form, Offset - sum_(i<j) J_ij + sum_i h_i,
	// goes on the "c offset" line.
	c := is.Offset
	for _, e := range is.Edges() {
		c -= e.W
	}
	for _, h := range is.H {
		c += h
	}
	q.Offset = c
	back, err := FromQUBO(q.N, q.Diag, q.Off, q.Offset)
	if err != nil || !sameIsing(back, is) {
		return nil, cannotHold("model %s cannot be written exactly as .qubo (its QUBO form does not round-trip)", m.Spec)
	}
	return q, nil
}

// checkQUBO says why .qubo cannot hold m (nil: it can).
func checkQUBO(m *Model) error {
	_, err := quboOf(m)
	return err
}

// sameIsing reports whether a and b are identical (values compared with ==).
func sameIsing(a, b *Ising) bool {
	if a.N != b.N || a.Offset != b.Offset || len(a.Adj) != len(b.Adj) {
		return false
	}
	for i := range a.Start {
		if a.Start[i] != b.Start[i] {
			return false
		}
	}
	for k := range a.Adj {
		if a.Adj[k] != b.Adj[k] || a.J[k] != b.J[k] {
			return false
		}
	}
	for i := range a.H {
		if a.H[i] != b.H[i] {
			return false
		}
	}
	return true
}

// writeFormat is a file format Write writes: write writes m, check says
// why the format cannot hold m exactly (nil: it can).
type writeFormat struct {
	ext   string
	write func(io.Writer, *Model) error
	check func(*Model) error
}

// writeFormats are the formats by extension, in the order messages list
// them.
var writeFormats = []writeFormat{
	{".txt", WriteText, checkText},
	{".qubo", WriteQUBO, checkQUBO},
	{".npz", writeNPZ, checkNPZ},
	{".npy", WriteDenseNPY, checkNPY},
}

// Write writes m to path in the format its extension names, atomically:
// the file is written to a temporary file in the same directory and
// renamed into place, so readers never see a partial file. Every format
// that can hold m exactly can be written, and loading the file gives back
// the same energy function: .txt (the Ising form, without offset), .qubo,
// .npz (an RBM's W, b, c; a QUBO's Q; an Ising model's J and h, without
// offset) and .npy (J: no fields, no offset); the dense files hold at
// most MaxDenseVariables variables. A format that cannot hold m, or an
// unknown extension, is an *InputError naming path and the formats that
// can; a failure to write is another error.
func Write(m *Model, path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	i := slices.IndexFunc(writeFormats, func(f writeFormat) bool { return f.ext == ext })
	if i < 0 {
		what := fmt.Sprintf("unknown extension %q", filepath.Ext(path))
		if ext == "" {
			what = "no extension"
		}
		return inputErr(path, 0, "%s (expected .txt, .qubo, .npz or .npy)", what)
	}
	var buf bytes.Buffer
	if err := writeFormats[i].write(&buf, m); err != nil {
		var he *holdError
		if errors.As(err, &he) {
			return inputErr(path, 0, "%s (%s)", he.msg, otherFormats(m, ext))
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// otherFormats says which formats but ext can hold m: "write .qubo or
// .npz instead".
func otherFormats(m *Model, ext string) string {
	var can []string
	for _, f := range writeFormats {
		if f.ext != ext && f.check(m) == nil {
			can = append(can, f.ext)
		}
	}
	switch len(can) {
	case 0:
		return "no format sardonics writes (.txt, .qubo, .npz, .npy) holds it exactly"
	case 1:
		return "write " + can[0] + " instead"
	}
	return "write " + strings.Join(can[:len(can)-1], ", ") + " or " + can[len(can)-1] + " instead"
}
