package npy

import (
	"archive/zip"
	"bytes"
	"math"
	"slices"
	"testing"
)

// Header pads to a 64-byte boundary as numpy does, and Split reads back
// what F8, F4 and U8Rows write; a truncated file, another magic or
// version, and a malformed dictionary are refused with a reason.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		data  []byte
		descr string
		shape []int
		size  int
	}{
		{F8([]float64{1, -2.5, math.Pi, 0, 7, 8}, 2, 3), "<f8", []int{2, 3}, 48},
		{F4([]float64{1, -2.5, 3}, 3), "<f4", []int{3}, 12},
		{U8Rows([][]uint8{{0, 1}, {1, 1}, {0, 0}}), "|u1", []int{3, 2}, 6},
		{Header("<i8"), "<i8", []int{}, 0},
	} {
		h := len(tc.data) - tc.size
		if h%64 != 0 {
			t.Errorf("%s %v: data starts at %d, not a multiple of 64", tc.descr, tc.shape, h)
		}
		f, msg := Split(tc.data)
		if msg != "" || f.Descr != tc.descr || f.Fortran || !slices.Equal(f.Shape, tc.shape) || len(f.Data) != tc.size {
			t.Errorf("%s %v: Split = %+v, %q", tc.descr, tc.shape, f, msg)
		}
	}
	good := F8([]float64{1}, 1)
	for name, bad := range map[string][]byte{
		"truncated": good[:8],
		"magic":     append([]byte("\x93NUMPX"), good[6:]...),
		"version":   append(append([]byte{}, good[:6]...), append([]byte{9, 0}, good[8:]...)...),
		"dict":      bytes.Replace(good, []byte("'shape'"), []byte("'shapf'"), 1),
	} {
		if _, msg := Split(bad); msg == "" {
			t.Errorf("%s: accepted", name)
		}
	}
}

// An archive lists its arrays in order, and Entry reads a stored one in
// place (no copy) and a deflated one through its reader, with the same
// bytes.
func TestArchive(t *testing.T) {
	a, b := F8([]float64{1, 2}, 2), U8Rows([][]uint8{{1}})
	for _, o := range []Options{{}, {Compress: true}} {
		var buf bytes.Buffer
		if err := WriteArchive(&buf, o, Array{"a", a}, Array{"b", b}); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Name != "a.npy" || got[1].Name != "b.npy" || !bytes.Equal(got[0].Data, a) || !bytes.Equal(got[1].Data, b) {
			t.Errorf("compress %v: read back %v", o.Compress, got)
		}
	}
}

func readAll(data []byte) ([]Array, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var out []Array
	for _, f := range zr.File {
		b, err := Entry(f, data, 1<<20)
		if err != nil {
			return nil, err
		}
		out = append(out, Array{f.Name, b})
	}
	return out, nil
}
