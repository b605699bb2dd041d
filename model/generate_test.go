package model

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// canonical renders every number of a model exactly, in a fixed order.
func canonical(w io.Writer, m *Model) {
	bw := bufio.NewWriter(w)
	is := m.Sparse()
	fmt.Fprintf(bw, "kind %s\nn %d\noffset %s\n", m.Kind, is.N, fmtFloat(is.Offset))
	for i, h := range is.H {
		fmt.Fprintf(bw, "h %d %s\n", i, fmtFloat(h))
	}
	for _, e := range is.Edges() {
		fmt.Fprintf(bw, "J %d %d %s\n", e.I, e.J, fmtFloat(e.W))
	}
	if r := m.RBM; r != nil {
		fmt.Fprintf(bw, "rbm %d %d\n", r.V, r.H)
		for _, a := range [][]float64{r.W, r.B, r.C} {
			for _, x := range a {
				fmt.Fprintf(bw, "%s\n", fmtFloat(x))
			}
		}
	}
	bw.Flush()
}

func modelHash(m *Model) string {
	h := sha256.New()
	canonical(h, m)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// goldenSpecs are pinned by testdata/golden/GENERATOR.txt ("SPEC HASH" lines).
var goldenSpecs = map[string][]string{
	"ferro2d":      {"ferro2d:L=3", "ferro2d:L=8", "ferro2d:L=60"},
	"frustrated2d": {"frustrated2d:L=3", "frustrated2d:L=8,seed=7", "frustrated2d:L=60"},
	"spinglass2d":  {"spinglass2d:L=3", "spinglass2d:L=8,seed=7", "spinglass2d:L=32"},
	"spinglass3d":  {"spinglass3d:L=3", "spinglass3d:L=4,seed=2", "spinglass3d:L=9"},
	"chimera": {"chimera:M=1,N=1,T=2", "chimera:M=4,N=4,T=4", "chimera:M=2,N=3,T=4,seed=5,J=pm1,h=pm1",
		"chimera:M=4,N=4,T=4,seed=3,h=pm1"},
	"rbm-random": {"rbm-random:V=3,H=2", "rbm-random:V=20,H=11,seed=4,scale=1", "rbm-random:V=784,H=500"},
}

func TestGolden(t *testing.T) {
	for gen, specs := range goldenSpecs {
		path := filepath.Join("testdata", "golden", gen+".txt")
		var lines []string
		for _, s := range specs {
			m, err := Load(s)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			lines = append(lines, s+" "+modelHash(m))
		}
		got := strings.Join(lines, "\n") + "\n"
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./model -run TestGolden -update)", err)
		}
		if got != string(want) {
			t.Errorf("%s: generated instances changed:\ngot\n%swant\n%s", gen, got, want)
		}
	}
}

func mustLoad(t *testing.T, spec string) *Model {
	t.Helper()
	m, err := Load(spec)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("%s: invalid model: %v", spec, err)
	}
	return m
}

func degrees(is *Ising) []int {
	d := make([]int, is.N)
	for i := range d {
		d[i] = int(is.Start[i+1] - is.Start[i])
	}
	return d
}

func TestLatticeStructure(t *testing.T) {
	for _, tc := range []struct {
		spec      string
		n, inter  int
		deg       int
		values    []float64 // allowed J values
		fieldVals []float64 // allowed h values
	}{
		{"ferro2d:L=3", 9, 18, 4, []float64{1}, []float64{0}},
		{"ferro2d:L=60", 3600, 7200, 4, []float64{1}, []float64{0}},
		{"frustrated2d:L=5,seed=3", 25, 50, 4, []float64{-1, 1}, []float64{-1, 1}},
		{"spinglass2d:L=5,seed=3", 25, 50, 4, []float64{-1, 1}, []float64{0}},
		{"spinglass3d:L=3", 27, 81, 6, []float64{-1, 1}, []float64{0}},
		{"spinglass3d:L=9", 729, 2187, 6, []float64{-1, 1}, []float64{0}},
	} {
		m := mustLoad(t, tc.spec)
		if m.Kind != KindIsing || m.Variables() != tc.n || m.Interactions() != tc.inter {
			t.Errorf("%s: kind %v, %d variables, %d interactions (want ising, %d, %d)", tc.spec, m.Kind, m.Variables(), m.Interactions(), tc.n, tc.inter)
		}
		for i, d := range degrees(m.Ising) {
			if d != tc.deg {
				t.Fatalf("%s: spin %d has degree %d (want %d)", tc.spec, i, d, tc.deg)
			}
		}
		count := map[float64]int{}
		for _, j := range m.Ising.J {
			count[j]++
		}
		for _, h := range m.Ising.H {
			count[h+100]++ // fields shifted apart from couplings
		}
		for _, v := range tc.values {
			if count[v] == 0 {
				t.Errorf("%s: no coupling %v", tc.spec, v)
			}
			delete(count, v)
		}
		for _, v := range tc.fieldVals {
			if count[v+100] == 0 {
				t.Errorf("%s: no field %v", tc.spec, v)
			}
			delete(count, v+100)
		}
		if len(count) != 0 {
			t.Errorf("%s: unexpected values %v", tc.spec, count)
		}
	}
	// Site (x,y) = y*L+x is coupled to its right and down neighbours, wrapping.
	is := mustLoad(t, "ferro2d:L=4").Ising
	for _, p := range [][2]int32{{0, 1}, {0, 4}, {3, 0}, {12, 0}, {15, 12}, {15, 3}} {
		if _, ok := is.coupling(int(p[0]), p[1]); !ok {
			t.Errorf("ferro2d:L=4 lacks bond %d-%d", p[0], p[1])
		}
	}
	// Site (x,y,z) = (z*L+y)*L+x.
	sg := mustLoad(t, "spinglass3d:L=3").Ising
	for _, p := range [][2]int32{{0, 1}, {0, 3}, {0, 9}, {0, 2}, {0, 6}, {0, 18}, {26, 8}} {
		if _, ok := sg.coupling(int(p[0]), p[1]); !ok {
			t.Errorf("spinglass3d:L=3 lacks bond %d-%d", p[0], p[1])
		}
	}
}

// TestSpinGlass2D: spinglass2d:L,seed draws frustrated2d's couplings
// (the same bonds, the same draws in the same order) and no fields.
func TestSpinGlass2D(t *testing.T) {
	for _, c := range [][2]string{{"spinglass2d:L=6,seed=3", "frustrated2d:L=6,seed=3"}, {"spinglass2d:L=32", "frustrated2d:L=32,seed=1"}} {
		g, f := mustLoad(t, c[0]).Ising, mustLoad(t, c[1]).Ising
		if g.N != f.N || !slices.Equal(g.Start, f.Start) || !slices.Equal(g.Adj, f.Adj) || !slices.Equal(g.J, f.J) {
			t.Errorf("%s: couplings differ from %s's", c[0], c[1])
		}
		for i, h := range g.H {
			if h != 0 {
				t.Fatalf("%s: field %d is %v (expected 0)", c[0], i, h)
			}
		}
	}
	if _, err := Load("spinglass2d:L=2"); err == nil || !strings.Contains(err.Error(), "L=2") {
		t.Errorf("spinglass2d:L=2: error %v (expected L too small)", err)
	}
}

func TestChimeraStructure(t *testing.T) {
	m := mustLoad(t, "chimera:M=4,N=4,T=4")
	is := m.Ising
	// M*N*T^2 intra-cell + (M-1)*N*T vertical + M*(N-1)*T horizontal.
	if is.N != 128 || is.Interactions() != 256+48+48 {
		t.Fatalf("C(4,4,4): %d spins, %d couplings (want 128, 352)", is.N, is.Interactions())
	}
	id := func(i, j, u, k int) int { return ChimeraIndex(4, 4, i, j, u, k) }
	has := func(a, b int) bool { _, ok := is.coupling(a, int32(b)); return ok }
	for k := 0; k < 4; k++ {
		for k2 := 0; k2 < 4; k2++ {
			if !has(id(1, 2, 0, k), id(1, 2, 1, k2)) {
				t.Errorf("missing intra-cell edge k=%d k'=%d", k, k2)
			}
		}
		if has(id(1, 2, 0, k), id(1, 2, 0, (k+1)%4)) {
			t.Errorf("edge inside a half at k=%d", k)
		}
		if !has(id(1, 2, 0, k), id(2, 2, 0, k)) || !has(id(1, 2, 1, k), id(1, 3, 1, k)) {
			t.Errorf("missing inter-cell coupler at k=%d", k)
		}
		if has(id(1, 2, 1, k), id(2, 2, 1, k)) || has(id(1, 2, 0, k), id(1, 3, 0, k)) {
			t.Errorf("coupler on the wrong half at k=%d", k)
		}
		if has(id(3, 0, 0, k), id(0, 0, 0, k)) {
			t.Errorf("chimera wraps around at k=%d", k)
		}
	}
	if id(0, 1, 0, 0) != 8 || id(1, 0, 1, 3) != 4*8+4+3 {
		t.Errorf("ChimeraIndex does not follow D-Wave's linear order")
	}
	fractional := 0
	for _, j := range is.J {
		if j < -1 || j >= 1 {
			t.Fatalf("uniform chimera coupling %v outside [-1,1)", j)
		}
		if j != math.Trunc(j) {
			fractional++
		}
	}
	if fractional < len(is.J)-2 {
		t.Errorf("uniform chimera: only %d of %d couplings are fractional", fractional, len(is.J))
	}
	pm := mustLoad(t, "chimera:M=2,N=2,T=3,J=pm1,h=pm1").Ising
	for _, j := range append(append([]float64(nil), pm.J...), pm.H...) {
		if j != 1 && j != -1 {
			t.Fatalf("pm1 chimera value %v", j)
		}
	}
}

func TestDeterminism(t *testing.T) {
	for _, s := range []string{"frustrated2d:L=6", "spinglass3d:L=3", "chimera:M=2,N=2,T=4", "rbm-random:V=9,H=7"} {
		a, b := mustLoad(t, s), mustLoad(t, s+",seed=1")
		c := mustLoad(t, s+",seed=2")
		if modelHash(a) != modelHash(b) {
			t.Errorf("%s: default seed is not 1", s)
		}
		if modelHash(a) == modelHash(c) {
			t.Errorf("%s: seed 2 gives the same instance as seed 1", s)
		}
	}
}

func TestRandomRBMMoments(t *testing.T) {
	m := mustLoad(t, "rbm-random:V=300,H=200,seed=9,scale=0.5")
	r := m.RBM
	if m.Kind != KindRBM || r.V != 300 || r.H != 200 || m.Variables() != 500 || m.Interactions() != 60000 {
		t.Fatalf("rbm-random: kind %v, %d x %d", m.Kind, r.V, r.H)
	}
	var s1, s2, s4 float64
	for _, w := range r.W {
		z := w / 0.5
		s1 += z
		s2 += z * z
		s4 += z * z * z * z
	}
	n := float64(len(r.W))
	mean, vr, kurt := s1/n, s2/n, s4/n
	// Standard errors: 1/sqrt(n) = 0.004 for the mean, sqrt(2/n) = 0.006
	// for the variance, sqrt(96/n) = 0.04 for the fourth moment (3).
	if math.Abs(mean) > 0.02 || math.Abs(vr-1) > 0.03 || math.Abs(kurt-3) > 0.2 {
		t.Errorf("weights/scale: mean %.4f, variance %.4f, fourth moment %.3f (want 0, 1, 3)", mean, vr, kurt)
	}
	for _, x := range append(append([]float64(nil), r.B...), r.C...) {
		if x != 0 {
			t.Fatalf("nonzero bias %v", x)
		}
	}
	sorted := append([]float64(nil), r.W...)
	sort.Float64s(sorted)
	// The normal CDF at 0 and at ±1 scale: 50% and 15.87%.
	if q := sorted[len(sorted)/2]; math.Abs(q) > 0.02 {
		t.Errorf("median %v", q)
	}
	if q := sorted[int(0.1587*n)]; math.Abs(q+0.5) > 0.03 {
		t.Errorf("15.87%% quantile %v (want -0.5)", q)
	}
}

func TestFusionFreeLog(t *testing.T) {
	for _, x := range []float64{1, 0.5, 1e-300, 0.9999999999, 0.70710678, 0.123456, 3, 1e10} {
		got, want := fusionFreeLog(x), math.Log(x)
		if math.Abs(got-want) > 4e-16*math.Max(1, math.Abs(want)) {
			t.Errorf("log(%v) = %v (want %v)", x, got, want)
		}
	}
}

// TestTorusIsingMatchesEdgeList checks the lattice generators' direct CSR
// rows (torusIsing) against NewIsing on the same bonds as an edge list in
// the generators' order, entry for entry, in 2D and 3D, with a distinct
// weight per bond so that a bond in the wrong slot or row shows.
func TestTorusIsingMatchesEdgeList(t *testing.T) {
	for _, dim := range []int{2, 3} {
		for l := 3; l <= 7; l++ {
			n := 1
			for range dim {
				n *= l
			}
			k := 0.0
			got := torusIsing(l, dim, func() float64 { k++; return k }, nil)
			var edges []Edge
			if dim == 2 {
				edges = torusBonds(l)
			} else {
				idx := func(x, y, z int) int32 { return int32(((z%l)*l+y%l)*l + x%l) }
				for z := 0; z < l; z++ {
					for y := 0; y < l; y++ {
						for x := 0; x < l; x++ {
							i := idx(x, y, z)
							edges = append(edges, Edge{i, idx(x+1, y, z), 0}, Edge{i, idx(x, y+1, z), 0},
								Edge{i, idx(x, y, z+1), 0})
						}
					}
				}
			}
			for e := range edges {
				edges[e].W = float64(e + 1)
			}
			want, err := NewIsing(n, edges, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got.N, got.Start, got.Adj, got.J, got.H, got.Offset) !=
				fmt.Sprint(want.N, want.Start, want.Adj, want.J, want.H, want.Offset) {
				t.Errorf("dim %d, L = %d: direct CSR differs from NewIsing's", dim, l)
			}
		}
	}
}
