package model

import (
	"archive/zip"
	"bytes"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sameDense reports whether two dense models are identical (kind, matrix
// storage and every value compared with ==).
func sameDense(a, b *Model) bool {
	x, y := a.Dense, b.Dense
	if a.Kind != b.Kind || x == nil || y == nil || x.N != y.N || x.Offset != y.Offset || x.Pairs != y.Pairs ||
		(x.J32 == nil) != (y.J32 == nil) {
		return false
	}
	for i := 0; i < x.N; i++ {
		if x.H[i] != y.H[i] {
			return false
		}
		for j := 0; j < x.N; j++ {
			if x.At(i, j) != y.At(i, j) {
				return false
			}
		}
	}
	return true
}

func shape2(n int) string { return "(" + strconv.Itoa(n) + ", " + strconv.Itoa(n) + ")" }

// TestDenseFileRoundTrip: a dense model written as .npz (J, h) or .npy (J)
// loads back identical, float32 storage included, and its sparse form is
// that of the same model written as .txt.
func TestDenseFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range []string{"sk:N=20,seed=4", "sk:N=9,J=pm1", "frustrated2d:L=4,seed=2"} {
		m := mustLoad(t, spec)
		names := []string{"m.npz"}
		if m.Kind == KindIsing && spec[:2] == "sk" {
			names = append(names, "m.npy")
		}
		for _, name := range names {
			back, err := roundTrip(t, m, dir, name)
			if err != nil {
				t.Fatalf("%s: %s: %v", spec, name, err)
			}
			if !sameDense(&Model{Kind: m.Kind, Dense: m.DenseForm()}, back) {
				t.Errorf("%s: %s round trip changed the model", spec, name)
			}
		}
		txt, err := roundTrip(t, m, dir, "m.txt")
		if err != nil {
			t.Fatal(err)
		}
		if npz := mustLoad(t, filepath.Join(dir, "m.npz")); !sameIsing(txt.Sparse(), npz.Sparse()) {
			t.Errorf("%s: .txt and .npz give different models", spec)
		}
	}
	// Refusals: fields in .npy, offsets in dense files of J.
	q, err := ParseQUBO("x.qubo", bytes.NewReader([]byte("p qubo 0 3 0 1\n0 2 -4\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    *Model
		name string
	}{{mustLoad(t, "frustrated2d:L=3"), "f.npy"}, {q, "q.npy"}, {mustLoad(t, "rbm-random:V=3,H=2"), "r.npy"}} {
		if err := Write(c.m, filepath.Join(dir, c.name)); err == nil {
			t.Errorf("%s: %s accepted", c.m.Spec, c.name)
		}
	}
}

// allEnergies is the energy of every state of m (N <= 12) by its Ising
// form, which holds every kind's energies (offset included).
func allEnergies(t *testing.T, m *Model) []float64 {
	t.Helper()
	is := m.Sparse()
	s := make([]int8, is.N)
	var e []float64
	for x := 0; x < 1<<is.N; x++ {
		for i := range s {
			s[i] = int8(2*(x>>i&1) - 1)
		}
		e = append(e, is.Energy(s))
	}
	return e
}

// TestWriteEveryFormat (gen converts between every pair of formats that
// can hold a model): every model written to every format that can hold it
// loads back with the same energy of every state, bit for bit; a QUBO's
// .npz is its matrix Q and loads back as the same QUBO (kind and terms);
// every format that cannot hold it is refused with an *InputError naming
// the file and the formats that can.
func TestWriteEveryFormat(t *testing.T) {
	dir := t.TempDir()
	parse := func(name, text string) *Model {
		var m *Model
		var err error
		if strings.HasSuffix(name, ".qubo") {
			m, err = ParseQUBO(name, strings.NewReader(text))
		} else {
			m, err = ParseText(name, strings.NewReader(text))
		}
		if err != nil {
			t.Fatal(err)
		}
		m.OnGrid()
		return m
	}
	qDense, err := ReadDenseNPZ("q.npz", npzOf(t, zip.Store, "Q.npy", npyBytes("<f8", false, "(3, 3)", []float64{1, 3, 0, 0, -2, -1, 0.5, 0, 0.25})))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		m   *Model
		can string // the formats that hold it
	}{
		{mustLoad(t, "frustrated2d:L=3,seed=2"), ".txt .qubo .npz"},                                      // fields
		{mustLoad(t, "sk:N=7,seed=3"), ".txt .qubo .npz .npy"},                                           // dense, no fields
		{parse("m.qubo", "p qubo 0 3 3 2\n0 0 1\n1 1 -2\n2 2 0.5\n0 1 3\n1 2 -1\n"), ".qubo .npz"},       // Ising offset 0.25
		{parse("c.qubo", "c offset 1\np qubo 0 2 2 1\n0 0 -2\n1 1 -2\n0 1 4\n"), ".txt .qubo .npz .npy"}, // constant term; Ising form J alone
		{parse("k.qubo", "c offset 1\np qubo 0 2 1 1\n0 0 2\n0 1 4\n"), ".qubo"},                         // offsets both ways
		{qDense, ".qubo .npz"},
		{mustLoad(t, "rbm-random:V=4,H=3,seed=2"), ".qubo .npz"},
	}
	for _, c := range cases {
		want := allEnergies(t, c.m)
		for _, ext := range []string{".txt", ".qubo", ".npz", ".npy"} {
			path := filepath.Join(dir, "out"+ext)
			os.Remove(path)
			err := Write(c.m, path)
			if !strings.Contains(c.can, ext) {
				var ie *InputError
				msg := ""
				if errors.As(err, &ie) {
					msg = ie.Msg
				}
				if ie == nil || ie.File != path || !strings.Contains(msg, "write "+orFormats(c.can)+" instead") {
					t.Errorf("%s to %s: %v (want an input error naming %s)", c.m.Spec, ext, err, c.can)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s to %s: %v", c.m.Spec, ext, err)
				continue
			}
			back, err := Load(path)
			if err != nil {
				t.Errorf("%s to %s: %v", c.m.Spec, ext, err)
				continue
			}
			if got := allEnergies(t, back); !slices.Equal(got, want) {
				t.Errorf("%s through %s: energies %v, want %v", c.m.Spec, ext, got, want)
			}
			if ext == ".npz" && c.m.QUBO != nil && c.m.QUBO.Offset == 0 {
				if back.Kind != KindQUBO || !sameIsing(back.Sparse(), c.m.Sparse()) || !sameTerms(back.QUBO, c.m.QUBO) {
					t.Errorf("%s through .npz: kind %v, not the same QUBO", c.m.Spec, back.Kind)
				}
			}
		}
	}
	// Limits: a dense file holds at most MaxDenseVariables variables.
	big := mustLoad(t, "ferro2d:L=91") // 8281 spins
	for _, ext := range []string{".npz", ".npy"} {
		err := Write(big, filepath.Join(dir, "big"+ext))
		if ie := (*InputError)(nil); !errors.As(err, &ie) || !strings.Contains(ie.Msg, "more than the 8192") || !strings.Contains(ie.Msg, "write .txt or .qubo instead") {
			t.Errorf("%d spins to %s: %v", big.Variables(), ext, err)
		}
	}
	// An unknown extension is an input error too.
	if err := Write(cases[0].m, filepath.Join(dir, "x.csv")); !errors.As(err, new(*InputError)) {
		t.Errorf("x.csv: %v (want an *InputError)", err)
	}
}

// orFormats is "a, b or c" of a space-separated list.
func orFormats(list string) string {
	f := strings.Fields(list)
	if len(f) == 1 {
		return f[0]
	}
	return strings.Join(f[:len(f)-1], ", ") + " or " + f[len(f)-1]
}

// sameTerms reports whether two QUBOs have the same terms: the same
// diagonal and the same nonzero pair terms, in any order.
func sameTerms(a, b *QUBO) bool {
	if a.N != b.N || a.Offset != b.Offset || !slices.Equal(a.Diag, b.Diag) {
		return false
	}
	pairs := func(q *QUBO) map[[2]int32]float64 {
		m := map[[2]int32]float64{}
		for _, e := range q.Off {
			if e.W != 0 {
				m[[2]int32{min(e.I, e.J), max(e.I, e.J)}] = e.W
			}
		}
		return m
	}
	return maps.Equal(pairs(a), pairs(b))
}

// TestReadDense: J in either triangle or both, C or Fortran order, float32
// or float64, with and without h; Q as x^T Q x, equal to the .qubo form of
// the same terms; every malformed file refused with the array named.
func TestReadDense(t *testing.T) {
	// E(s) = -(0.5 s0 s1 - 2 s1 s2) - (1 s0 - 0.25 s2)
	sym := []float64{0, 0.5, 0, 0.5, 0, -2, 0, -2, 0}
	upper := []float64{0, 0.5, 0, 0, 0, -2, 0, 0, 0}
	lower := []float64{0, 0, 0, 0.5, 0, 0, 0, -2, 0}
	h := []float64{1, 0, -0.25}
	want, err := NewDense(3, sym, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	wm := &Model{Kind: KindIsing, Dense: want}
	for _, c := range []struct {
		j       []float64
		fortran bool
		descr   string
	}{{sym, false, "<f8"}, {upper, false, "<f8"}, {lower, false, "<f4"}, {upper, true, "<f8"}} {
		j := c.j
		if c.fortran { // the same matrix, written column by column
			j = make([]float64, 9)
			for a := range 3 {
				for b := range 3 {
					j[b*3+a] = c.j[a*3+b]
				}
			}
		}
		data := npzOf(t, zip.Deflate, "J.npy", npyBytes(c.descr, c.fortran, "(3, 3)", j), "h.npy", npyBytes("<f8", false, "(3,)", h), "x.npy", []byte("ignored"))
		m, err := ReadDenseNPZ("d.npz", data)
		if err != nil {
			t.Fatalf("%v: %v", c.j, err)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		wm.Dense = want
		if c.descr == "<f4" { // float32 storage, the same values
			wm.Dense, _ = NewDense(3, sym, h, 0)
		}
		if !sameDense(m, wm) || m.Interactions() != 2 {
			t.Errorf("%v (fortran %v, %s): a different model", c.j, c.fortran, c.descr)
		}
	}
	m, err := ReadDenseNPY("j.npy", npyBytes("<f8", false, "(3, 3)", upper))
	if err != nil || m.Dense.At(1, 2) != -2 || m.Dense.H[0] != 0 {
		t.Fatalf("ReadDenseNPY: %v", err)
	}
	// Q: E(x) = x^T Q x = -x0 + 2 x2 + 2 x0 x1 - 3 x1 x2 (docs/formats.md's example.qubo).
	qm := []float64{-1, 1, 0, 1, 0, -4, 0, 1, 2}
	m, err = ReadDenseNPZ("q.npz", npzOf(t, zip.Store, "Q.npy", npyBytes("<f8", false, "(3, 3)", qm)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	qb, err := ParseQUBO("q.qubo", bytes.NewReader([]byte("p qubo 0 3 2 2\n0 0 -1\n2 2 2\n0 1 2\n1 2 -3\n")))
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != KindQUBO || !sameIsing(m.Sparse(), qb.Ising) {
		t.Errorf("Q.npz and .qubo of the same terms differ")
	}
	for x := range 8 {
		s := []int8{int8(2*(x&1) - 1), int8(2*(x>>1&1) - 1), int8(2*(x>>2&1) - 1)}
		e := 0.0
		for a := range 3 {
			for b := range 3 {
				e += qm[a*3+b] * float64((s[a]+1)/2*(s[b]+1)/2)
			}
		}
		if got := m.Dense.Energy(s); got != e {
			t.Errorf("state %v: energy %v (x^T Q x = %v)", s, got, e)
		}
	}
	j := func(vals []float64) []byte { return npyBytes("<f8", false, "(3, 3)", vals) }
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte("not a zip"), "d.npz: not an .npz archive"},
		{npzOf(t, zip.Store, "h.npy", npyBytes("<f8", false, "(3,)", h)), "missing array J or Q: the archive holds h.npy (expected J.npy (N x N) and h.npy (N), or Q.npy (N x N))"},
		{npzOf(t, zip.Store, "J.npy", j(sym), "Q.npy", j(sym)), "arrays J and Q both given"},
		{npzOf(t, zip.Store, "Q.npy", j(sym), "h.npy", npyBytes("<f8", false, "(3,)", h)), "arrays Q and h both given"},
		{npzOf(t, zip.Store, "J.npy", j([]float64{0, 1, 0, 2, 0, 0, 0, 0, 0})), "array J: J_0,1 = 1 but J_1,0 = 2 (expected a symmetric matrix"},
		{npzOf(t, zip.Store, "J.npy", j([]float64{0, 0, 0, 0, 3, 0, 0, 0, 0})), "array J: J_1,1 = 3 on the diagonal"},
		{npzOf(t, zip.Store, "J.npy", j([]float64{0, math.NaN(), 0, 0, 0, 0, 0, 0, 0})), "array J: J_0,1 is NaN (expected finite numbers)"},
		{npzOf(t, zip.Store, "J.npy", j([]float64{0, 0, 0, math.Inf(1), 0, 0, 0, 0, 0})), "array J: J_1,0 is +Inf"},
		{npzOf(t, zip.Store, "J.npy", j([]float64{0, 2e15, 0, 0, 0, 0, 0, 0, 0})), "array J: coupling 0-1: coupling 2e+15 too large"},
		{npzOf(t, zip.Store, "J.npy", npyBytes("<f8", false, "(3, 2)", sym[:6])), "array J: shape (3, 2) (expected a square matrix"},
		{npzOf(t, zip.Store, "J.npy", npyBytes("<f8", false, "(9000, 9000)", nil)), "expected N <= 8192"},
		{npzOf(t, zip.Store, "J.npy", npyBytes("<f8", false, "(3, 3)", sym[:8])), "array J: 64 bytes of data (expected 72"},
		{npzOf(t, zip.Store, "J.npy", npyBytes(">f8", false, "(3, 3)", sym)), "array J: dtype \">f8\""},
		{npzOf(t, zip.Store, "J.npy", j(sym), "h.npy", npyBytes("<f8", false, "(2,)", h[:2])), "array h has shape (2,) (expected (3,) to match J)"},
		{npzOf(t, zip.Store, "J.npy", j(sym), "h.npy", npyBytes("<f8", false, "(3,)", []float64{0, math.NaN(), 0})), "array h: field 1 is NaN"},
		{npzOf(t, zip.Store, "J.npy", j(sym), "J.npy", j(sym)), "array J given twice"},
		{npzOf(t, zip.Store, "Q.npy", j([]float64{0, 1e-310, 0, 0, 0, 0, 0, 0, 0})), "array Q: element (0, 1) is 1e-310"},
		{npzOf(t, zip.Store, "Q.npy", j([]float64{0, 1, 0, -1 + 1e-300, 0, 0, 0, 0, 0})), ""},
		{npzOf(t, zip.Store, "Q.npy", j([]float64{math.Inf(-1), 0, 0, 0, 0, 0, 0, 0, 0})), "array Q: element (0, 0) is -Inf"},
		{npzOf(t, zip.Store, "Q.npy", j([]float64{6e14, 0, 0, 0, 6e14, 0, 0, 0, 0})), "array Q: element (1, 1): value 6e+14 brings the sum"},
	} {
		_, err := ReadDenseNPZ("d.npz", c.data)
		if c.want == "" {
			if err != nil {
				t.Errorf("refused: %v", err)
			}
			continue
		}
		wantInputError(t, err, c.want)
	}
	if !HasDenseArrays(npzOf(t, zip.Store, "Q.npy", j(sym))) || HasDenseArrays(npzOf(t, zip.Store, "W.npy", j(sym))) || HasDenseArrays([]byte("x")) {
		t.Error("HasDenseArrays misreads an archive")
	}
	_, err = ReadDenseNPY("j.npy", npyBytes("<f8", false, "(3,)", h))
	wantInputError(t, err, "j.npy: shape (3,) (expected a square matrix")
}
