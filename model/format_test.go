package model

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sardonics/npy"
)

func sameModel(a, b *Model) bool {
	if a.Kind != b.Kind || !sameIsing(a.Sparse(), b.Sparse()) || (a.QUBO == nil) != (b.QUBO == nil) || (a.RBM == nil) != (b.RBM == nil) {
		return false
	}
	eq := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if q, p := a.QUBO, b.QUBO; q != nil {
		if q.N != p.N || !eq(q.Diag, p.Diag) || len(q.Off) != len(p.Off) {
			return false
		}
		for k := range q.Off {
			if q.Off[k] != p.Off[k] {
				return false
			}
		}
	}
	if r, s := a.RBM, b.RBM; r != nil {
		return r.V == s.V && r.H == s.H && eq(r.W, s.W) && eq(r.B, s.B) && eq(r.C, s.C)
	}
	return true
}

func wantInputError(t *testing.T, err error, want string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Errorf("got %v (want *InputError %q)", err, want)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("got %q (want it to contain %q)", err, want)
	}
}

func TestInputErrorFormat(t *testing.T) {
	if got := (&InputError{"f.txt", 3, "bad (expected good)"}).Error(); got != "f.txt:3: bad (expected good)" {
		t.Errorf("got %q", got)
	}
	if got := (&InputError{"--model", 0, "bad"}).Error(); got != "--model: bad" {
		t.Errorf("got %q", got)
	}
}

func TestParseText(t *testing.T) {
	m, err := ParseText("a.txt", strings.NewReader("# c\n\n4\n0 1 1.5\n2 2 -0.5\n# more\n3 1 -2e-3\n"))
	if err != nil {
		t.Fatal(err)
	}
	is := m.Ising
	if m.Kind != KindIsing || is.N != 4 || is.Interactions() != 2 || is.H[2] != -0.5 || is.H[0] != 0 {
		t.Fatalf("parsed %+v", is)
	}
	if w, _ := is.coupling(1, 3); w != -2e-3 {
		t.Errorf("J_13 = %v", w)
	}
	// Without a count line, M is the largest index plus one.
	m, err = ParseText("b.txt", strings.NewReader("0 6 1\n"))
	if err != nil || m.Variables() != 7 {
		t.Fatalf("got %v, %v (want 7 variables)", m, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"", "f.txt: no variables"},
		{"# only\n", "f.txt:1: no variables"},
		{"3\n0 7 1\n", "f.txt:2: index 7 out of range (expected 0..2)"},
		{"3\n-1 2 1\n", "f.txt:2: index -1 out of range (expected 0..2)"},
		{"0 1 1\n2 x 1\n", "f.txt:2: bad index \"x\""},
		{"0 1 abc\n", "f.txt:1: bad number \"abc\""},
		{"0 1 NaN\n", "f.txt:1: value \"NaN\" is not finite"},
		{"0 1 -inf\n", "f.txt:1: value \"-inf\" is not finite"},
		{"0 1 1e999\n", "f.txt:1: value 1e999 overflows"},
		{"0 1 0x1p3\n", "f.txt:1: bad number \"0x1p3\""},
		{"# c\n0 1 1\n1 2 1\n\n2 1 3\n", "f.txt:5: pair 1-2 given twice (first on line 3)"},
		{"0 0 1\n0 0 2\n", "f.txt:2: field on 0 given twice (first on line 1)"},
		{"0 1\n", "f.txt:1: 2 fields (expected \"i j value\")"},
		// A comment after the values (issue 31): said so, not "5 fields".
		{"3\n\n0 1 -1.0 # strong\n", "f.txt:3: comment \"# strong\" after the values (expected comments on their own line, starting with '#')"},
		{"0 1 1 #\n", "f.txt:1: comment \"#\" after the values"},
		{"0 1 1 #strong\n", "f.txt:1: comment \"#strong\" after the values"},
		{"3 # spins\n", "f.txt:1: comment \"# spins\" after the values"},
		{"0 1 1 % strong\n", "f.txt:1: comment \"% strong\" after the values (expected comments on their own line, starting with '#')"},
		{"0 1 1 // strong\n", "f.txt:1: comment \"// strong\" after the values"},
		{"0 1 1 # " + strings.Repeat("é", 50) + "\n", "f.txt:1: comment \"# " + strings.Repeat("é", 35) + "...\" after the values"},
		{"0 1 1\n5\n", "f.txt:2: 1 fields"},
		{"0\n", "f.txt:1: variable count 0"},
		{"1000000000000\n", "f.txt:1: variable count 1000000000000 too large"},
		{"99999999999 0 1\n", "out of range (expected 0..4194303)"},
		// MaxEnergy: one value, or the sum of |values| so far, beyond 1e15.
		{"0 1 1\n1 2 1e300\n", "f.txt:2: coupling 1e300 too large (expected |value| <= 1e+15"},
		{"3\n1 1 -1.5e15\n", "f.txt:2: field -1.5e15 too large (expected |value| <= 1e+15"},
		{"0 1 5e14\n1 1 -4e14\n\n1 2 2e14\n", "f.txt:4: coupling 2e14 brings the sum of |values| to 1.1e+15 (expected at most 1e+15"},
	} {
		_, err := ParseText("f.txt", strings.NewReader(tc.in))
		wantInputError(t, err, tc.want)
	}
}

func TestParseQUBO(t *testing.T) {
	in := "c hello\np qubo 0 4 2 3\nc mid\n0 0 1.5\n3 3 -2\n0 1 4\n1 3 -1\n0 2 0.25\n"
	m, err := ParseQUBO("q.qubo", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	q := m.QUBO
	if m.Kind != KindQUBO || q.N != 4 || q.Diag[0] != 1.5 || q.Diag[3] != -2 || len(q.Off) != 3 || q.Off[2] != (Edge{0, 2, 0.25}) {
		t.Fatalf("parsed %+v", q)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	hdr := "p qubo 0 3 1 2\n"
	for _, tc := range []struct{ in, want string }{
		{"", "q.qubo: missing header"},
		{"c only\n", "q.qubo:1: missing header"},
		{"0 0 1\n", "q.qubo:1: bad header"},
		{"p qubo 0 3 1\n", "q.qubo:1: bad header"},
		{"p qubo 0 0 0 0\n", "maxDiagonals 0"},
		{"p qubo 0 3 4 0\n", "nDiagonals 4 too large (expected at most 3)"},
		{"p qubo 0 3 0 4\n", "nElements 4 too large (expected at most 3)"},
		{"p qubo 0 1000000000000 1 1\n", "maxDiagonals 1000000000000 too large"},
		{hdr + "0 0 1\n0 1 1\n", "q.qubo:3: file ends after 2 of 3 terms"},
		{hdr + "0 0 1\n0 1 1\n1 2 1\n0 2 1\n", "q.qubo:5: extra line after 3 terms"},
		{hdr + "0 1 1\n", "q.qubo:2: off-diagonal term 0-1 among the diagonal lines"},
		{hdr + "0 0 1\n1 1 1\n", "q.qubo:3: diagonal term 1-1 among the off-diagonal lines (expected i < j)"},
		{hdr + "0 0 1\n2 1 1\n", "q.qubo:3: pair 2-1 out of order (expected i < j)"},
		{hdr + "0 0 1\n0 3 1\n", "q.qubo:3: index 3 out of range (expected 0..2)"},
		{hdr + "0 0 1\n0 1 1\nc\n0 1 2\n", "q.qubo:5: pair 0-1 given twice (first on line 3)"},
		{"p qubo 0 3 2 0\n1 1 1\n1 1 1\n", "q.qubo:3: diagonal 1 given twice (first on line 2)"},
		{hdr + "0 0 inf\n", "q.qubo:2: value \"inf\" is not finite"},
		{hdr + "0 0 1 2\n", "q.qubo:2: 4 fields"},
		// A comment after the values (issue 31), in this format's syntax or another's.
		{hdr + "0 0 1 c diagonal\n", "q.qubo:2: comment \"c diagonal\" after the values (expected comments on their own line, starting with 'c')"},
		{hdr + "0 0 1 # diagonal\n", "q.qubo:2: comment \"# diagonal\" after the values (expected comments on their own line, starting with 'c')"},
		{"p qubo 0 3 1 2 c header\n", "q.qubo:1: comment \"c header\" after the values"},
	} {
		_, err := ParseQUBO("q.qubo", strings.NewReader(tc.in))
		wantInputError(t, err, tc.want)
	}
	// Terms that are finite but whose Ising form would overflow are refused
	// on their line (MaxEnergy), as are terms that only together exceed it.
	_, err = ParseQUBO("q.qubo", strings.NewReader("p qubo 0 3 3 0\n0 0 1.7e308\n1 1 1.7e308\n2 2 1.7e308\n"))
	wantInputError(t, err, "q.qubo:2: term 1.7e308 too large (expected |value| <= 1e+15")
	_, err = ParseQUBO("q.qubo", strings.NewReader("p qubo 0 3 2 1\n0 0 6e14\n1 1 -3e14\n0 1 2e14\n"))
	wantInputError(t, err, "q.qubo:4: term 2e14 brings the sum of |values| to 1.1e+15 (expected at most 1e+15")
	if _, err = ParseQUBO("q.qubo", strings.NewReader("p qubo 0 3 2 1\n0 0 6e14\n1 1 -3e14\n0 1 1e14\n")); err != nil {
		t.Errorf("terms summing to MaxEnergy: %v", err)
	}
}

// TestByteOrderMark (issue 31): a UTF-8 byte-order mark at the start of a
// .txt or .qubo file, as Windows editors write it, is skipped: the file
// loads as it does without one, even when a comment line follows it.
// Anywhere else it is still refused.
func TestByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	const bom = "\ufeff"
	for _, tc := range []struct{ name, text string }{
		{"count.txt", "3\n0 1 -1.0\n1 1 0.5\n"},
		{"comment.txt", "# a comment\n0 1 -1.0\n1 1 0.5\n"},
		{"pair.txt", "0 1 -1.0\n1 1 0.5\n"},
		{"plain.qubo", "p qubo 0 3 1 1\n0 0 1\n0 2 -2\n"},
		{"comment.qubo", "c offset 2\np qubo 0 3 1 1\n0 0 1\n0 2 -2\n"},
	} {
		plain, with := filepath.Join(dir, "plain-"+tc.name), filepath.Join(dir, "bom-"+tc.name)
		os.WriteFile(plain, []byte(tc.text), 0o644)
		os.WriteFile(with, []byte(bom+tc.text), 0o644)
		a, err := Load(plain)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Load(with)
		if err != nil {
			t.Errorf("%s with a byte-order mark: %v", tc.name, err)
			continue
		}
		if !sameModel(a, b) || a.Sparse().Offset != b.Sparse().Offset {
			t.Errorf("%s: the byte-order mark changed the model", tc.name)
		}
	}
	_, err := ParseText("f.txt", strings.NewReader("3\n"+bom+"0 1 1\n"))
	wantInputError(t, err, "f.txt:2: bad index")
}

// npzOf builds an archive from named raw .npy entries.
func npzOf(t *testing.T, method uint16, entries ...any) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for k := 0; k < len(entries); k += 2 {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: entries[k].(string), Method: method})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(entries[k+1].([]byte))
	}
	zw.Close()
	return buf.Bytes()
}

// npyBytes encodes values with the given header fields.
func npyBytes(descr string, fortran bool, shape string, vals []float64) []byte {
	fo := "False"
	if fortran {
		fo = "True"
	}
	hdr := "{'descr': '" + descr + "', 'fortran_order': " + fo + ", 'shape': " + shape + ", }\n"
	out := []byte("\x93NUMPY\x01\x00")
	out = binary.LittleEndian.AppendUint16(out, uint16(len(hdr)))
	out = append(out, hdr...)
	for _, v := range vals {
		switch descr {
		case "<f4":
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(v)))
		case ">f8":
			out = binary.BigEndian.AppendUint64(out, math.Float64bits(v))
		default:
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
		}
	}
	return out
}

func TestReadNPZ(t *testing.T) {
	w := []float64{1, 2, 3, 4, 5, 6}  // 2 x 3, row-major
	wf := []float64{1, 4, 2, 5, 3, 6} // the same in column-major order
	b, c := []float64{0.5, -0.5}, []float64{1, 2, 3}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"f8 stored", npzOf(t, zip.Store, "W.npy", npyBytes("<f8", false, "(2, 3)", w), "b.npy", npyBytes("<f8", false, "(2,)", b), "c.npy", npyBytes("<f8", false, "(3,)", c))},
		{"f4 deflated", npzOf(t, zip.Deflate, "c.npy", npyBytes("<f4", false, "(3,)", c), "W.npy", npyBytes("<f4", false, "(2, 3)", w), "b.npy", npyBytes("<f4", false, "(2,)", b), "extra.npy", []byte("x"))},
		{"fortran", npzOf(t, zip.Store, "W.npy", npyBytes("<f8", true, "(2, 3)", wf), "b.npy", npyBytes("<f8", true, "(2,)", b), "c.npy", npyBytes("<f8", false, "(3,)", c))},
	} {
		m, err := ReadNPZ("r.npz", tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := m.RBM
		if m.Kind != KindRBM || r.V != 2 || r.H != 3 || m.Variables() != 5 {
			t.Fatalf("%s: %+v", tc.name, r)
		}
		for k := range w {
			if r.W[k] != w[k] {
				t.Fatalf("%s: W = %v (want %v)", tc.name, r.W, w)
			}
		}
		if r.B[1] != -0.5 || r.C[2] != 3 {
			t.Errorf("%s: b %v c %v", tc.name, r.B, r.C)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	good := func(k string) []byte {
		return map[string][]byte{"W": npyBytes("<f8", false, "(2, 3)", w), "b": npyBytes("<f8", false, "(2,)", b), "c": npyBytes("<f8", false, "(3,)", c)}[k]
	}
	with := func(key string, raw []byte) []byte {
		var e []any
		for _, k := range []string{"W", "b", "c"} {
			if k == key {
				if raw != nil {
					e = append(e, k+".npy", raw)
				}
			} else {
				e = append(e, k+".npy", good(k))
			}
		}
		return npzOf(t, zip.Store, e...)
	}
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{[]byte("not a zip"), "r.npz: not an .npz archive"},
		{with("b", nil), "r.npz: missing array b"},
		{with("W", npyBytes("<i4", false, "(2, 3)", nil)), "r.npz: array W: dtype \"<i4\" (expected little-endian float '<f4' or '<f8')"},
		{with("W", npyBytes(">f8", false, "(2, 3)", w)), "array W: dtype \">f8\""},
		{with("c", npyBytes("<f8", false, "(2,)", b)), "array c has shape (2,) (expected (3,) to match W's columns)"},
		{with("b", npyBytes("<f8", false, "(1, 2)", b)), "array b has shape (1, 2) (expected (2,)"},
		{with("W", npyBytes("<f8", false, "(6,)", w)), "array W has shape (6,) (expected (V, H)"},
		{with("W", npyBytes("<f8", false, "(2, 3)", w[:5])), "array W: 40 bytes of data (expected 48 for shape (2, 3) <f8)"},
		{with("W", []byte("\x93NUMPY\x01\x00\xff\xff{")), "array W: header of 65535 bytes does not fit"},
		{with("W", []byte("PK")), "array W: not an .npy file"},
		{with("W", npyBytes("<f8", false, "(100000000, 100000000)", nil)), "array W: shape [100000000 100000000] too large"},
		{with("W", npyBytes("<f8", false, "(2 3)", w)), "array W: bad header"},
		{with("b", npyBytes("<f8", false, "(2,)", []float64{math.NaN(), 1})), "r.npz: array b of shape (2,): b[0] is NaN (expected finite numbers)"},
		{with("c", npyBytes("<f4", false, "(3,)", []float64{1, 3e38, 1})), "array c of shape (3,): c[1]: value 3.0000000054977558e+38 too large (expected |value| <= 1e+15"},
		{with("b", npyBytes("<f8", false, "(2,)", []float64{1, 1e15})), "array b of shape (2,): b[1]: value 1e+15 brings the sum of |values| to 1e+15 (expected at most 1e+15"},
		// Issue 31: a bad value of W is named by (row, column), not its flat
		// position, in C and in Fortran order.
		{with("W", npyBytes("<f8", false, "(2, 3)", []float64{1, 2, 3, 4, math.NaN(), 6})), "r.npz: array W of shape (2, 3): W[1, 1] is NaN (expected finite numbers)"},
		{with("W", npyBytes("<f8", false, "(2, 3)", []float64{1, 2, 3, math.Inf(-1), 5, 6})), "array W of shape (2, 3): W[1, 0] is -Inf (expected finite numbers)"},
		{with("W", npyBytes("<f8", true, "(2, 3)", []float64{1, 4, 2, 5, 3, math.Inf(1)})), "array W of shape (2, 3): W[1, 2] is +Inf (expected finite numbers)"},
		{with("W", npyBytes("<f4", true, "(2, 3)", []float64{1, 4, 3e38, 5, 3, 6})), "array W of shape (2, 3): W[0, 1]: value 3.0000000054977558e+38 too large"},
		// Issue 31: a missing array lists what the archive holds.
		{with("W", nil), "r.npz: missing array W: the archive holds b.npy, c.npy (expected W.npy (V x H), b.npy (V) and c.npy (H) for an RBM, J.npy (N x N) and optionally h.npy (N) for an Ising model, or Q.npy (N x N) for a QUBO)"},
		{npzOf(t, zip.Store, "weights.npy", good("W"), "c.npy", good("c"), "b.npy", good("b"), "meta", []byte("x")), "missing array W: the archive holds b.npy, c.npy, meta, weights.npy (expected"},
		{npzOf(t, zip.Store, "a b.npy", good("W"), "x\n.npy", good("W")), "missing array W: the archive holds \"a b.npy\", \"x\\n.npy\" (expected"},
		{npzOf(t, zip.Store), "r.npz: missing array W: the archive is empty (expected"},
		{npzOf(t, zip.Store, "W.npy", good("W"), "W.npy", good("W"), "b.npy", good("b"), "c.npy", good("c")), "array W given twice"},
	} {
		_, err := ReadNPZ("r.npz", tc.data)
		wantInputError(t, err, tc.want)
	}
}

// roundTrip writes m to dir/name and loads it back.
func roundTrip(t *testing.T, m *Model, dir, name string) (*Model, error) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := Write(m, path); err != nil {
		return nil, err
	}
	back, err := Load(path)
	if err != nil {
		t.Fatalf("%s: reading back %s: %v", m.Spec, name, err)
	}
	if err := back.Validate(); err != nil {
		t.Fatal(err)
	}
	return back, nil
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range []string{"ferro2d:L=5", "frustrated2d:L=6,seed=3", "spinglass3d:L=3", "chimera:M=2,N=3,T=4",
		"chimera:M=2,N=2,T=4,J=pm1,h=pm1", "rbm-random:V=7,H=5,seed=2"} {
		m := mustLoad(t, spec)
		if m.RBM == nil {
			back, err := roundTrip(t, m, dir, "m.txt")
			if err != nil || !sameModel(m, back) {
				t.Errorf("%s: .txt round trip: %v", spec, err)
			}
		} else {
			back, err := roundTrip(t, m, dir, "m.npz")
			if err != nil || !sameModel(m, back) {
				t.Errorf("%s: .npz round trip: %v", spec, err)
			}
			if _, err := roundTrip(t, m, dir, "bad.txt"); err == nil {
				t.Errorf("%s: .txt accepted a model with an offset", spec)
			}
		}
		// .qubo holds RBMs exactly, and Ising models with their QUBO
		// constant on the "c offset" line (issue 23) whenever the
		// conversion is exact: every generator's with integer couplings.
		back, err := roundTrip(t, m, dir, "m.qubo")
		integer := !strings.HasPrefix(spec, "chimera:M=2,N=3")
		switch {
		case m.RBM == nil && err != nil && (integer || !strings.Contains(err.Error(), "does not round-trip")):
			t.Errorf("%s: .qubo: %v", spec, err)
		case err != nil && m.RBM != nil:
			t.Errorf("%s: .qubo: %v", spec, err)
		case err != nil:
		case back.Kind != KindQUBO || !sameIsing(m.Sparse(), back.Sparse()):
			t.Errorf("%s: .qubo round trip changed the model", spec)
		default:
			again, err := roundTrip(t, back, dir, "again.qubo")
			if err != nil || !sameModel(back, again) {
				t.Errorf("%s: .qubo second round trip: %v", spec, err)
			}
		}
	}
	// An Ising model whose QUBO form has no constant goes through .qubo.
	z, err := ParseText("z.txt", strings.NewReader("0 1 1\n0 0 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if back, err := roundTrip(t, z, dir, "z.qubo"); err != nil || !sameIsing(z.Ising, back.Ising) {
		t.Errorf("constant-free Ising model through .qubo: %v", err)
	}
	// A QUBO file with no offset round-trips through .txt too.
	q, err := ParseQUBO("x.qubo", strings.NewReader("p qubo 0 3 0 1\n0 2 -4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if q.Ising.Offset != -1 {
		t.Fatalf("offset %v", q.Ising.Offset)
	}
	if back, err := roundTrip(t, q, dir, "x.qubo"); err != nil || !sameModel(q, back) {
		t.Errorf("parsed QUBO changed through .qubo: %v", err)
	}
	if err := Write(q, filepath.Join(dir, "x.txt")); err == nil {
		t.Errorf(".txt accepted a QUBO whose Ising form has an offset")
	}
	// .npz holds it as its matrix Q (TestWriteEveryFormat).
	if back, err := roundTrip(t, q, dir, "x.npz"); err != nil || back.Kind != KindQUBO || !sameIsing(q.Ising, back.Sparse()) {
		t.Errorf("parsed QUBO through .npz: %v", err)
	}
	if err := Write(q, filepath.Join(dir, "x.csv")); err == nil {
		t.Errorf("unknown extension accepted")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestNPYHeaderLayout(t *testing.T) {
	raw := npy.F8(make([]float64, 15), 3, 5)
	hlen := int(binary.LittleEndian.Uint16(raw[8:]))
	if (10+hlen)%64 != 0 || raw[10+hlen-1] != '\n' || len(raw) != 10+hlen+15*8 {
		t.Errorf("header length %d, total %d", hlen, len(raw))
	}
	a, msg := parseNPY(raw)
	if msg != "" || len(a.shape) != 2 || a.shape[0] != 3 || a.shape[1] != 5 {
		t.Errorf("parse back: %q %v", msg, a)
	}
}

func TestParseNPYSeeds(t *testing.T) {
	for _, raw := range []string{
		"\x93NUMPY\x01\x00\x46\x00{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }          \n" +
			"\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40",
		"\x93NUMPY\x02\x00\x39\x00\x00\x00{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1)}\n\x00\x00\x80\x3f\x00\x00\x00\x40",
	} {
		a, msg := parseNPY([]byte(raw))
		if msg != "" || len(a.vals) != 2 || a.vals[0] != 1 || a.vals[1] != 2 {
			t.Errorf("seed: %q %+v", msg, a)
		}
	}
}

// TestQUBOOffsetLine (issue 23, item 6): "c offset VALUE" is the QUBO's
// constant; a file without it reads as before; a bad one names its line.
func TestQUBOOffsetLine(t *testing.T) {
	body := "p qubo 0 2 1 1\n0 0 1\n0 1 -2\n"
	plain, err := ParseQUBO("a.qubo", strings.NewReader("c no offset\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	shifted, err := ParseQUBO("b.qubo", strings.NewReader("c offset 2.5\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range [][]int8{{-1, -1}, {1, -1}, {1, 1}} {
		if d := shifted.Ising.Energy(s) - plain.Ising.Energy(s); d != 2.5 {
			t.Errorf("state %v: offset adds %v (want 2.5)", s, d)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"c offset\n" + body, "c.qubo:1: offset line with 2 fields"},
		{"c offset x\n" + body, "c.qubo:1: offset: bad number"},
		{"c offset 1\nc offset 2\n" + body, "c.qubo:2: offset given twice (first on line 1)"},
	} {
		if _, err := ParseQUBO("c.qubo", strings.NewReader(c.text)); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v (want %q...)", c.text, err, c.want)
		}
	}
}
