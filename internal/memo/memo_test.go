package memo

import "testing"

func TestBuiltOncePerKey(t *testing.T) {
	builds := 0
	s := &Shared[int, int]{Max: 4, Build: func(k int) int { builds++; return k * k }}
	var a, b Local[int, int]
	for range 3 {
		for k := range 4 {
			if a.Get(s, k) != k*k || b.Get(s, k) != k*k {
				t.Fatalf("Get(%d) wrong", k)
			}
		}
	}
	if builds != 4 {
		t.Errorf("%d builds for 4 keys shared by two users, want 4", builds)
	}
	s.Get(9) // past Max: starts over
	if builds != 5 || len(s.m) != 1 {
		t.Errorf("after overflow: %d builds, %d kept", builds, len(s.m))
	}
}
