package diag

import (
	"math"
	"testing"
)

// TestBatchMeans: after any number of values, the means are those of
// consecutive batches of B values (B doubling as the count grows), between
// cap and 2 cap of them, and the moments are those of the values in full
// batches, computed directly.
func TestBatchMeans(t *testing.T) {
	const cap = 4
	var a BatchMeans
	var xs []float64
	for i := range 1000 {
		x := math.Sin(float64(i)) + float64(i%7)
		xs = append(xs, x)
		a.Add(x, cap)
		if !a.Valid(cap) {
			t.Fatalf("after %d values: not valid: %+v", i+1, a)
		}
		full := int(a.N)
		if full+a.PartN != len(xs) || len(a.Means)*a.B != full {
			t.Fatalf("after %d values: %d in %d batches of %d, %d partial", len(xs), full, len(a.Means), a.B, a.PartN)
		}
		for j, m := range a.Means {
			want := 0.0
			for _, v := range xs[j*a.B : (j+1)*a.B] {
				want += v
			}
			if want /= float64(a.B); math.Abs(m-want) > 1e-12 {
				t.Fatalf("after %d values: batch %d mean %v, want %v", len(xs), j, m, want)
			}
		}
	}
	if len(a.Means) < cap {
		t.Fatalf("%d means kept (want at least %d)", len(a.Means), cap)
	}
	mean, v := a.Moments()
	wm, wv := 0.0, 0.0
	for _, x := range xs[:a.N] {
		wm += x
	}
	wm /= float64(a.N)
	for _, x := range xs[:a.N] {
		wv += (x - wm) * (x - wm)
	}
	wv /= float64(a.N)
	if math.Abs(mean-wm) > 1e-12 || math.Abs(v-wv) > 1e-9 {
		t.Errorf("moments %v %v, want %v %v", mean, v, wm, wv)
	}
	bad := a
	bad.PartN = bad.B // a partial batch that should have been closed
	if bad.Valid(cap) {
		t.Error("a state with a full partial batch passed Valid")
	}
}
