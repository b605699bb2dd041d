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
	"strconv"
	"strings"
)

// npyArray is one decoded .npy array, values in C (row-major) order.
type npyArray struct {
	shape []int
	vals  []float64
}

func (a *npyArray) shapeString() string {
	s := make([]string, len(a.shape))
	for i, d := range a.shape {
		s[i] = strconv.Itoa(d)
	}
	if len(s) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// index is the position of the i-th value (C order) in a's shape, as
// NumPy writes it: "[2, 0]" for a matrix, "[5]" for a vector.
func (a *npyArray) index(i int) string {
	idx := make([]string, len(a.shape))
	for d := len(a.shape) - 1; d >= 0; d-- {
		if a.shape[d] > 0 {
			idx[d] = strconv.Itoa(i % a.shape[d])
			i /= a.shape[d]
		}
	}
	return "[" + strings.Join(idx, ", ") + "]"
}

// holds says which entries an archive has, sorted, for an error about one
// it lacks: "the archive holds a.npy, x.npy" (at most 20 named).
func holds(files []*zip.File) string {
	if len(files) == 0 {
		return "the archive is empty"
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
		if f.Name == "" || strings.ContainsFunc(f.Name, func(r rune) bool { return r <= ' ' || r == ',' || r == '"' || !strconv.IsPrint(r) }) {
			names[i] = strconv.Quote(f.Name)
		}
	}
	slices.Sort(names)
	if len(names) > 20 {
		return fmt.Sprintf("the archive holds %s and %d more", strings.Join(names[:20], ", "), len(names)-20)
	}
	return "the archive holds " + strings.Join(names, ", ")
}

// ReadNPZ decodes an RBM from an .npz archive (a zip, stored or deflated, of
// .npy files) holding W (V x H), b (V) and c (H): float32 or float64,
// little-endian, C or Fortran order. Other entries are ignored. Every problem
// is an *InputError naming name and, where there is one, the array.
func ReadNPZ(name string, data []byte) (*Model, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // entry names are only compared, never used as paths
		return nil, inputErr(name, 0, "not an .npz archive: %v (expected %s)", err, npzLayouts)
	}
	arrays := map[string]*npyArray{}
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if key != "W" && key != "b" && key != "c" || !strings.HasSuffix(f.Name, ".npy") {
			continue
		}
		if arrays[key] != nil {
			return nil, inputErr(name, 0, "array %s given twice (expected one entry %s.npy)", key, key)
		}
		limit := uint64(maxNPYHeader + 16 + 8*MaxRBMWeights)
		if f.UncompressedSize64 > limit {
			return nil, inputErr(name, 0, "array %s: %d bytes (expected at most %d)", key, f.UncompressedSize64, limit)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, inputErr(name, 0, "array %s: %v (expected a readable zip entry)", key, err)
		}
		raw, err := io.ReadAll(io.LimitReader(rc, int64(limit)+1))
		rc.Close()
		if err != nil {
			return nil, inputErr(name, 0, "array %s: %v (expected a readable zip entry)", key, err)
		}
		if uint64(len(raw)) > limit {
			return nil, inputErr(name, 0, "array %s: more than %d bytes (expected a smaller array)", key, limit)
		}
		a, msg := parseNPY(raw)
		if msg != "" {
			return nil, inputErr(name, 0, "array %s: %s", key, msg)
		}
		arrays[key] = a
	}
	for _, k := range []string{"W", "b", "c"} {
		// Without W the archive may be meant as any layout: all are named.
		if arrays[k] == nil && k == "W" {
			return nil, inputErr(name, 0, "missing array W: %s (expected W.npy (V x H), b.npy (V) and c.npy (H) for an RBM, J.npy (N x N) and optionally h.npy (N) for an Ising model, or Q.npy (N x N) for a QUBO)", holds(zr.File))
		}
		if arrays[k] == nil {
			return nil, inputErr(name, 0, "missing array %s: %s (expected W.npy (V x H), b.npy (V) and c.npy (H))", k, holds(zr.File))
		}
	}
	w, b, c := arrays["W"], arrays["b"], arrays["c"]
	if len(w.shape) != 2 || w.shape[0] < 1 || w.shape[1] < 1 {
		return nil, inputErr(name, 0, "array W has shape %s (expected (V, H) with V, H >= 1)", w.shapeString())
	}
	v, h := w.shape[0], w.shape[1]
	if v+h > MaxVariables {
		return nil, inputErr(name, 0, "array W has shape %s (expected V+H <= %d)", w.shapeString(), MaxVariables)
	}
	if len(b.shape) != 1 || b.shape[0] != v {
		return nil, inputErr(name, 0, "array b has shape %s (expected (%d,) to match W's rows)", b.shapeString(), v)
	}
	if len(c.shape) != 1 || c.shape[0] != h {
		return nil, inputErr(name, 0, "array c has shape %s (expected (%d,) to match W's columns)", c.shapeString(), h)
	}
	for _, a := range []struct {
		k string
		a *npyArray
	}{{"W", w}, {"b", b}, {"c", c}} {
		for i, x := range a.a.vals {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, inputErr(name, 0, "array %s of shape %s: %s%s is %v (expected finite numbers)", a.k, a.a.shapeString(), a.k, a.a.index(i), x)
			}
		}
	}
	var size magnitude
	for _, a := range []struct {
		k string
		a *npyArray
	}{{"W", w}, {"b", b}, {"c", c}} {
		for i, x := range a.a.vals {
			if msg := size.add("value", "", x); msg != "" {
				return nil, inputErr(name, 0, "array %s of shape %s: %s%s: %s", a.k, a.a.shapeString(), a.k, a.a.index(i), msg)
			}
		}
	}
	r, err := NewRBM(v, h, w.vals, b.vals, c.vals)
	if err != nil {
		return nil, inputErr(name, 0, "%v", err)
	}
	m := rbmModel(r)
	m.Spec = name
	return m, nil
}

// NPY is a .npy file split into its header's fields and its data.
type NPY struct {
	Descr   string // dtype, e.g. '<f8' or '|u1'
	Fortran bool   // column-major data
	Shape   []int
	Data    []byte
}

// SplitNPY reads a .npy file's header (format versions 1-3); msg is empty
// on success. The data are not checked against the shape.
func SplitNPY(raw []byte) (*NPY, string) {
	const magic = "\x93NUMPY"
	if len(raw) < 6 || string(raw[:6]) != magic {
		return nil, "not an .npy file (expected the \\x93NUMPY magic)"
	}
	if len(raw) < 10 {
		return nil, "truncated .npy header"
	}
	var hlen, start int
	switch raw[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(raw[8:10])), 10
	case 2, 3:
		if len(raw) < 12 {
			return nil, "truncated header (expected a 4-byte header length)"
		}
		hlen, start = int(binary.LittleEndian.Uint32(raw[8:12])), 12
	default:
		return nil, fmt.Sprintf(".npy version %d.%d (expected 1.0, 2.0 or 3.0)", raw[6], raw[7])
	}
	if hlen > maxNPYHeader || start+hlen > len(raw) {
		return nil, fmt.Sprintf("header of %d bytes does not fit the file (expected at most %d)", hlen, min(maxNPYHeader, len(raw)-start))
	}
	descr, fortran, shape, msg := parseNPYHeader(string(raw[start : start+hlen]))
	if msg != "" {
		return nil, msg
	}
	return &NPY{Descr: descr, Fortran: fortran, Shape: shape, Data: raw[start+hlen:]}, ""
}

// parseNPY decodes a .npy file (format versions 1-3) of little-endian
// float32 or float64 values; msg is empty on success.
func parseNPY(raw []byte) (*npyArray, string) {
	f, msg := SplitNPY(raw)
	if msg != "" {
		return nil, msg
	}
	descr, fortran, shape := f.Descr, f.Fortran, f.Shape
	size := 0
	switch descr {
	case "<f8":
		size = 8
	case "<f4":
		size = 4
	default:
		return nil, fmt.Sprintf("dtype %q (expected little-endian float '<f4' or '<f8')", descr)
	}
	count := 1
	for _, d := range shape {
		if d != 0 && count > MaxRBMWeights/d {
			return nil, fmt.Sprintf("shape %v too large (expected at most %d elements)", shape, MaxRBMWeights)
		}
		count *= d
	}
	a := &npyArray{shape: shape}
	body := f.Data
	if len(body) != count*size {
		return nil, fmt.Sprintf("%d bytes of data (expected %d for shape %s %s)", len(body), count*size, a.shapeString(), descr)
	}
	vals := make([]float64, count)
	for k := range vals {
		if size == 8 {
			vals[k] = math.Float64frombits(binary.LittleEndian.Uint64(body[8*k:]))
		} else {
			vals[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(body[4*k:])))
		}
	}
	if fortran && len(shape) >= 2 {
		vals = fortranToC(vals, shape)
	}
	a.vals = vals
	return a, ""
}

// fortranToC reorders column-major values to row-major.
func fortranToC(vals []float64, shape []int) []float64 {
	out := make([]float64, len(vals))
	idx := make([]int, len(shape))
	for f := range vals {
		// f is the Fortran position of idx; compute its C position.
		c := 0
		for d := range shape {
			c = c*shape[d] + idx[d]
		}
		out[c] = vals[f]
		for d := 0; d < len(shape); d++ { // first index varies fastest
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// parseNPYHeader reads the header dictionary, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
func parseNPYHeader(s string) (descr string, fortran bool, shape []int, msg string) {
	p := &pyLit{s: s}
	bad := func(what string) (string, bool, []int, string) {
		return "", false, nil, "bad header: " + what + " (expected {'descr': ..., 'fortran_order': ..., 'shape': (...)})"
	}
	if !p.eat('{') {
		return bad("no '{'")
	}
	got := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return bad("expected 'key':")
		}
		if got[key] {
			return bad("key " + strconv.Quote(key) + " given twice")
		}
		got[key] = true
		switch key {
		case "descr":
			if descr, ok = p.str(); !ok {
				return bad("descr is not a string")
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				fortran = true
			case p.word("False"):
				fortran = false
			default:
				return bad("fortran_order is not True or False")
			}
		case "shape":
			if shape, ok = p.tuple(); !ok {
				return bad("shape is not a tuple of integers")
			}
		default:
			return bad("unknown key " + strconv.Quote(key))
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return bad("expected ',' or '}'")
			}
			break
		}
	}
	if !got["descr"] || !got["fortran_order"] || !got["shape"] {
		return bad("missing key")
	}
	if strings.TrimSpace(p.s[p.i:]) != "" {
		return bad("text after '}'")
	}
	return descr, fortran, shape, ""
}

// pyLit scans the small subset of Python literals an .npy header uses.
type pyLit struct {
	s string
	i int
}

func (p *pyLit) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyLit) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyLit) word(w string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *pyLit) str() (string, bool) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", false
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

func (p *pyLit) tuple() ([]int, bool) {
	if !p.eat('(') {
		return nil, false
	}
	shape := []int{}
	for {
		if p.eat(')') {
			return shape, true
		}
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i || j-p.i > 12 || len(shape) >= 32 {
			return nil, false
		}
		d, _ := strconv.Atoi(p.s[p.i:j])
		p.i = j
		shape = append(shape, d)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, false
			}
			return shape, true
		}
	}
}

// NPYHeader is the start of a NumPy .npy file (format version 1.0) holding a
// C-order array of dtype descr (e.g. "<f8", "<f4", "|u1") and the given
// shape: magic, version, header length, and the header dict padded with
// spaces so that the data starts on a 64-byte boundary, as numpy writes it.
// Every .npy writer of sardonics starts with it.
func NPYHeader(descr string, shape ...int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	pad := 64 - (10+len(hdr)+1)%64
	if pad == 64 {
		pad = 0
	}
	hdr += strings.Repeat(" ", pad) + "\n"
	buf := make([]byte, 10, 10+len(hdr))
	copy(buf, "\x93NUMPY\x01\x00")
	binary.LittleEndian.PutUint16(buf[8:], uint16(len(hdr)))
	return append(buf, hdr...)
}

// writeNPY encodes a float64 C-order array as .npy version 1.0.
func writeNPY(w io.Writer, shape []int, vals []float64) error {
	buf := NPYHeader("<f8", shape...)
	for _, v := range vals {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	_, err := w.Write(buf)
	return err
}

// WriteNPZ writes r as an uncompressed .npz archive of float64 arrays W, b, c.
func WriteNPZ(w io.Writer, r *RBM) error {
	zw := zip.NewWriter(w)
	for _, a := range []struct {
		name  string
		shape []int
		vals  []float64
	}{{"W.npy", []int{r.V, r.H}, r.W}, {"b.npy", []int{r.V}, r.B}, {"c.npy", []int{r.H}, r.C}} {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: a.name, Method: zip.Store})
		if err != nil {
			return err
		}
		if err := writeNPY(f, a.shape, a.vals); err != nil {
			return err
		}
	}
	return zw.Close()
}
