package summary

import (
	"archive/zip"
	"bytes"
	"io"
	"slices"
	"testing"

	"sardonics/npy"
)

// Repeated states are one entry with their count and the energy of their
// first save, in order of first appearance; samples.npz holds the three
// arrays numpy reads by name.
func TestSampleSet(t *testing.T) {
	rows := [][]uint8{{1, 0, 1}, {0, 0, 0}, {1, 0, 1}, {1, 0, 1}, {0, 1, 0}, {0, 0, 0}}
	// The energies of the states saved after steps 5, 8, 11, ... (burn-in
	// 2, every 3rd step) of a chain whose energy after step i is i - 1.
	energies := []float64{4, 7, 10, 13, 16, 19}
	set := NewSampleSet(rows, energies)
	if !slices.Equal(set.First, []int{0, 1, 4}) || !slices.Equal(set.Counts, []int64{3, 2, 1}) || !slices.Equal(set.Energies, []float64{4, 7, 16}) {
		t.Fatalf("%+v", set)
	}
	b, err := samplesNPZ(set, rows)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"states.npy", "n.npy", "energies.npy", "counts.npy"}) {
		t.Errorf("samples.npz holds %v", names)
	}
	f, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(f)
	a, msg := npy.Split(raw)
	// Rows 101, 000, 010 packed little-endian: 5, 0, 2.
	if msg != "" || !slices.Equal(a.Shape, []int{3, 1}) || !bytes.Equal(a.Data, []byte{5, 0, 2}) {
		t.Errorf("packed states %v %v %q", a.Shape, a.Data, msg)
	}
}
