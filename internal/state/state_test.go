package state

import (
	"slices"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var w Writer
	w.Int64(-7)
	w.Float64(0.1)
	w.Int8s([]int8{-1, 1, 1})
	w.Int32s([]int32{5, -6})
	w.Float64s([]float64{1.5, -2})
	w.Float32s([]float32{3.25})
	w.Bytes([]byte("ab"))
	r := Reader{B: w.B}
	if r.Int64() != -7 || r.Float64() != 0.1 {
		t.Fatal("scalars differ")
	}
	s, j, f, g := make([]int8, 3), make([]int32, 2), make([]float64, 2), make([]float32, 1)
	r.Int8s(s)
	r.Int32s(j)
	r.Float64s(f)
	r.Float32s(g)
	b := r.Bytes()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s, []int8{-1, 1, 1}) || !slices.Equal(j, []int32{5, -6}) || !slices.Equal(f, []float64{1.5, -2}) ||
		g[0] != 3.25 || string(b) != "ab" {
		t.Fatalf("got %v %v %v %v %q", s, j, f, g, b)
	}
}

func TestErrors(t *testing.T) {
	var w Writer
	w.Int8s([]int8{1, 1})
	r := Reader{B: w.B}
	r.Int8s(make([]int8, 3)) // wrong length
	if r.Err() == nil {
		t.Fatal("wrong length accepted")
	}
	r = Reader{B: w.B[:5]}
	r.Int64()
	if r.Err() == nil {
		t.Fatal("truncated state accepted")
	}
	r = Reader{B: append(w.B, 0)}
	r.Int8s(make([]int8, 2))
	if r.Err() == nil {
		t.Fatal("left-over bytes accepted")
	}
}

// TestShortSlices feeds every truncation of a state to the slice readers:
// an error each time, never a panic.
func TestShortSlices(t *testing.T) {
	var w Writer
	w.Int32s([]int32{1, 2, 3})
	w.Float64s([]float64{1, 2})
	w.Float32s([]float32{1})
	w.Int8s([]int8{1, -1})
	for n := range len(w.B) {
		r := Reader{B: w.B[:n]}
		r.Int32s(make([]int32, 3))
		r.Float64s(make([]float64, 2))
		r.Float32s(make([]float32, 1))
		r.Int8s(make([]int8, 2))
		if r.Err() == nil {
			t.Fatalf("state cut to %d of %d bytes accepted", n, len(w.B))
		}
	}
}

func TestSpins(t *testing.T) {
	var w Writer
	w.Int8s([]int8{1, 0, -1})
	r := Reader{B: w.B}
	r.Spins(make([]int8, 3))
	if r.Err() == nil {
		t.Fatal("a spin of 0 was accepted")
	}
	w = Writer{}
	w.Int8s([]int8{1, -1})
	r = Reader{B: w.B}
	s := make([]int8, 2)
	r.Spins(s)
	if r.Err() != nil || s[0] != 1 || s[1] != -1 {
		t.Fatalf("spins %v, %v", s, r.Err())
	}
}
