package walkrec

import "testing"

func TestWalks(t *testing.T) {
	var r Walks
	if r.Matches(nil, []int{0}) {
		t.Fatal("the zero record matches a path")
	}
	if !r.Begin(0, -3) {
		t.Fatal("Begin(0) did not start a record")
	}
	r.Add(1, 2)
	r.Add(3, 4)
	r.End(2)
	r.Begin(2, 0)
	r.Add(5, 6)
	r.End(3)
	path, bounds := []int32{7, 8, 9}, []int{0, 2, 3}
	if !r.Matches(path, bounds) {
		t.Fatal("the record does not match its own walks")
	}
	if e0, ok := r.E0(3); !ok || e0 != -3 {
		t.Fatalf("E0 = %v, %v; want -3, true", e0, ok)
	}
	if got := r.Sums(); len(got) != 3 || got[2] != [2]uint64{5, 6} {
		t.Fatalf("Sums = %v", got)
	}
	if r.Matches(path, []int{0, 1, 3}) || r.Matches(path[:2], bounds[:2]) {
		t.Fatal("the record matches other walks")
	}
	// A walk that does not continue the recorded path, or an End whose
	// count disagrees with the sums, invalidates the record.
	r.Begin(1, 0)
	if r.Matches(path, bounds) {
		t.Fatal("a walk from a foreign path kept the record")
	}
	r.Begin(0, 0)
	r.Add(1, 1)
	r.End(2)
	if _, ok := r.E0(2); ok {
		t.Fatal("End with a wrong count kept the record")
	}
	r.Begin(0, 0)
	r.Invalidate()
	if _, ok := r.E0(0); ok {
		t.Fatal("Invalidate kept the record")
	}
}
