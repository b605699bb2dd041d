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

	"sardonics/npy"
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
		limit := uint64(npy.MaxHeader + 16 + 8*MaxRBMWeights)
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

// parseNPY decodes a .npy file (format versions 1-3) of little-endian
// float32 or float64 values; msg is empty on success.
func parseNPY(raw []byte) (*npyArray, string) {
	f, msg := npy.Split(raw)
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

// WriteNPZ writes r as an uncompressed .npz archive of float64 arrays W, b, c.
func WriteNPZ(w io.Writer, r *RBM) error {
	return npy.WriteArchive(w, npy.Options{},
		npy.Array{Name: "W", Data: npy.F8(r.W, r.V, r.H)}, npy.Array{Name: "b", Data: npy.F8(r.B, r.V)}, npy.Array{Name: "c", Data: npy.F8(r.C, r.H)})
}
