package model

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteText writes m's Ising form in the native text format: a comment, the
// count line, the nonzero fields, then every coupling (zero ones included)
// in Edges order, values formatted exactly (shortest 'g'). A model with a
// nonzero Offset cannot be written exactly and is an error.
func WriteText(w io.Writer, m *Model) error {
	is := m.Sparse()
	if is.Offset != 0 {
		return fmt.Errorf("model %s has energy offset %s, which the .txt format cannot hold (write .qubo or .npz instead)", m.Spec, fmtFloat(is.Offset))
	}
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
		return nil, fmt.Errorf("model %s cannot be written exactly as .qubo (its QUBO form does not round-trip; write .txt instead)", m.Spec)
	}
	return q, nil
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

// Write writes m to path in the format its extension names (.txt, .qubo,
// .npz for an RBM or, as J and h, an Ising model, .npy for the couplings
// of an Ising model without fields), atomically: the file is written to a temporary
// file in the same directory and renamed into place, so readers never see a
// partial file.
func Write(m *Model, path string) error {
	var buf bytes.Buffer
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".txt":
		err = WriteText(&buf, m)
	case ".qubo":
		err = WriteQUBO(&buf, m)
	case ".npz":
		if m.RBM == nil {
			if m.Kind != KindIsing {
				return fmt.Errorf("%s: model %s is a %v model (expected .qubo for it; .npz holds an RBM or an Ising model)", path, m.Spec, m.Kind)
			}
			err = WriteDenseNPZ(&buf, m)
		} else {
			err = WriteNPZ(&buf, m.RBM)
		}
	case ".npy":
		err = WriteDenseNPY(&buf, m)
	default:
		return fmt.Errorf("%s: unknown extension (expected .txt, .qubo, .npz or .npy)", path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// WriteFileMkdir is WriteFileAtomic after creating path's folder if
// needed (trial folders, checkpoints, summaries).
func WriteFileMkdir(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(path, data)
}

// WriteStreamMkdir is WriteFileMkdir for data that write produces through
// a buffered writer, so that a large file never sits in memory whole.
func WriteStreamMkdir(path string, write func(w *bufio.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, commit, abort, err := CreateAtomic(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return commit()
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and
// renames it to path.
func WriteFileAtomic(path string, data []byte) error {
	f, commit, abort, err := CreateAtomic(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return commit()
}

// CreateAtomic creates a temporary file beside path for a writer that
// streams (profiles, traces): commit syncs and closes it, makes it
// readable (0644) and renames it to path; abort closes and removes it.
func CreateAtomic(path string) (f *os.File, commit func() error, abort func(), err error) {
	f, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, nil, nil, err
	}
	tmp := f.Name()
	abort = func() {
		f.Close()
		os.Remove(tmp)
	}
	commit = func() error {
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp, 0o644)
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	return f, commit, abort, nil
}
