package sparse

import (
	"math/rand/v2"
	"testing"

	"sardonics/model"
)

func TestQualifies(t *testing.T) {
	star := func(js ...float64) *model.Ising {
		var edges []model.Edge
		for i, j := range js {
			edges = append(edges, model.Edge{I: 0, J: int32(i + 1), W: j})
		}
		m, err := model.NewIsing(len(js)+1, edges, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		name string
		m    *model.Ising
		want bool
	}{
		{"ferro2d", ferro2d(t), true},
		{"frustrated2d", frustrated2d(t), true},
		{"spinglass3d", spinGlass3d(t), true},
		{"chimera real J", chimera(t, 2, 2, 4), false},
		{"half-integer J", star(0.5, 1), false},
		// 2^7 distinct sums at the centre: too many classes.
		{"star of powers of two", star(1, 2, 4, 8, 16, 32, 64), false},
		// Six equal couplings: 7 field values, gcd 1000 keeps them apart by 1.
		{"star of 1000s", star(1000, 1000, 1000, 1000, 1000, 1000), true},
		{"integer couplings", randomGraph(t, 30, 4, true, 0, 1), true},
	} {
		if got := Qualifies(c.m); got != c.want {
			t.Errorf("Qualifies(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNew(t *testing.T) {
	integer, realJ := randomGraph(t, 20, 4, true, 0, 1), randomGraph(t, 20, 4, false, 1, 1)
	for _, c := range []struct {
		m       *model.Ising
		kind    string
		want    string // "tree", "bucket" or "" for an error
		wantErr bool
	}{
		{integer, "auto", "bucket", false},
		{realJ, "auto", "tree", false},
		{integer, "tree", "tree", false},
		{integer, "bucket", "bucket", false},
		{realJ, "bucket", "", true},
		{integer, "dense", "", true},
	} {
		e, err := New(c.m, nil, c.kind)
		if (err != nil) != c.wantErr {
			t.Fatalf("New(%s): error %v, want error %v", c.kind, err, c.wantErr)
		}
		got := ""
		switch e.(type) {
		case *Tree:
			got = "tree"
		case *Bucket:
			got = "bucket"
		}
		if got != c.want {
			t.Errorf("New(%s) gave %q, want %q", c.kind, got, c.want)
		}
	}
}

// TestBucketEnergyExact checks the integer energy bookkeeping with a gcd
// above 1 and a fractional offset: the energy is exactly the model's.
func TestBucketEnergyExact(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var edges []model.Edge
	for i := range int32(15) {
		edges = append(edges, model.Edge{I: i, J: (i + 1) % 16, W: float64(4 * (r.IntN(5) - 2))})
	}
	h := make([]float64, 16)
	for i := range h {
		h[i] = float64(6 * (r.IntN(3) - 1))
	}
	m, err := model.NewIsing(16, edges, h, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBucket(m, randomSpins(r, 16))
	if err != nil {
		t.Fatal(err)
	}
	if b.g != 2 {
		t.Fatalf("gcd %d, want 2", b.g)
	}
	pcg := rand.NewPCG(1, 1)
	var path []int32
	for range 200 {
		path, _, _ = b.Walk(pcg, 1+r.IntN(16), r.IntN(2), path[:0])
		if got, want := b.Energy(), m.Energy(b.Spins()); got != want {
			t.Fatalf("energy %v, model %v", got, want)
		}
	}
}
