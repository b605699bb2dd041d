package bo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sardonicsSpace is the paper's Table I (SPEC section 4).
func sardonicsSpace() Space {
	return Space{
		Dims: []Dim{
			{Name: "kl", Lo: 1, Hi: 70, Integer: true},
			{Name: "ku", Lo: 2, Hi: 120, Integer: true},
			{Name: "gL", Lo: 0.89, Hi: 1.05},
			{Name: "gH", Lo: 0.9, Hi: 1.15},
			{Name: "pLL", Lo: 0, Hi: 1},
			{Name: "pHL", Lo: 0, Hi: 1},
			{Name: "pLH", Lo: 0, Hi: 1},
			{Name: "N", Lo: 1, Hi: 5, Integer: true},
		},
		Orders: []Order{{Lower: 0, Upper: 1}, {Lower: 2, Upper: 3}},
	}
}

func TestSpaceMapping(t *testing.T) {
	s := sardonicsSpace()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	rr := rand.New(rand.NewPCG(5, 6))
	counts := make([]int, 5)
	for range 5000 {
		u := make([]float64, s.Len())
		for i := range u {
			u[i] = rr.Float64()
		}
		p := s.ToParams(u)
		for i, d := range s.Dims {
			if p[i] < d.Lo || p[i] > d.Hi || (d.Integer && p[i] != math.Trunc(p[i])) {
				t.Fatalf("%s = %v outside [%v, %v] or not integral", d.Name, p[i], d.Lo, d.Hi)
			}
		}
		if p[1] < p[0] || p[3] < p[2] {
			t.Fatalf("order violated: %v", p)
		}
		counts[int(p[7])-1]++
		// Round trip: the snapped point maps to the same parameters, and
		// continuous coordinates come back unchanged.
		q := s.ToParams(s.Snap(u))
		for i := range p {
			if math.Abs(p[i]-q[i]) > 1e-12 {
				t.Fatalf("round trip %v -> %v", p, q)
			}
		}
		back := s.ToUnit(p)
		for _, i := range []int{2, 3, 4} {
			if math.Abs(back[i]-u[i]) > 1e-12 {
				t.Fatalf("continuous coordinate %d: %v -> %v", i, u[i], back[i])
			}
		}
	}
	// Integer bins are equal: each of N's 5 values gets ~1000 of 5000.
	for v, c := range counts {
		if c < 850 || c > 1150 {
			t.Errorf("N=%d drawn %d times of 5000, want about 1000", v+1, c)
		}
	}
	// Ends of the cube reach the ends of the bounds.
	lo, hi := s.ToParams(make([]float64, 8)), s.ToParams([]float64{1, 1, 1, 1, 1, 1, 1, 1})
	if lo[0] != 1 || lo[1] != 2 || hi[0] != 70 || hi[1] != 120 || hi[7] != 5 || lo[2] != 0.89 || hi[3] != 1.15 {
		t.Errorf("corners map to %v and %v", lo, hi)
	}
}

func TestSpaceValidate(t *testing.T) {
	bad := []Space{
		{},
		{Dims: []Dim{{Name: "a", Lo: 2, Hi: 1}}},
		{Dims: []Dim{{Name: "k", Lo: 1, Hi: 2.5, Integer: true}}},
		{Dims: []Dim{{Name: "a", Lo: 0, Hi: 2}, {Name: "b", Lo: 0, Hi: 1}}, Orders: []Order{{0, 1}}},
		{Dims: []Dim{{Name: "a", Lo: 0, Hi: 1}, {Name: "b", Lo: 0, Hi: 1}}, Orders: []Order{{0, 2}}},
		{Dims: []Dim{{Name: "a", Lo: 0, Hi: 1}, {Name: "b", Lo: 0, Hi: 1}, {Name: "c", Lo: 0, Hi: 1}},
			Orders: []Order{{0, 1}, {1, 2}}},
	}
	for i, s := range bad {
		if s.Validate() == nil {
			t.Errorf("space %d validated: %+v", i, s)
		}
	}
}

func TestLatinHypercube(t *testing.T) {
	const n, dim = 17, 5
	pts := LatinHypercube(n, dim, rand.NewPCG(7, 8))
	if len(pts) != n {
		t.Fatalf("%d points, want %d", len(pts), n)
	}
	for d := range dim {
		seen := make([]bool, n)
		for _, p := range pts {
			if p[d] < 0 || p[d] >= 1 {
				t.Fatalf("coordinate %v outside [0,1)", p[d])
			}
			b := int(p[d] * n)
			if seen[b] {
				t.Fatalf("dimension %d: stratum %d holds two points", d, b)
			}
			seen[b] = true
		}
	}
	again := LatinHypercube(n, dim, rand.NewPCG(7, 8))
	for i := range pts {
		for d := range dim {
			if pts[i][d] != again[i][d] {
				t.Fatal("same seed, different design")
			}
		}
	}
}
