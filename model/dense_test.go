package model

import (
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// denseHash renders every number of a dense model exactly, in row order,
// and hashes it (the dense counterpart of modelHash).
func denseHash(m *Model) string {
	d := m.Dense
	h := sha256.New()
	fmt.Fprintf(h, "kind %s\nn %d\noffset %s\nfloat32 %v\n", m.Kind, d.N, fmtFloat(d.Offset), d.J32 != nil)
	for i, x := range d.H {
		fmt.Fprintf(h, "h %d %s\n", i, fmtFloat(x))
	}
	for i := 0; i < d.N; i++ {
		for j := i + 1; j < d.N; j++ {
			fmt.Fprintf(h, "J %d %d %s\n", i, j, fmtFloat(d.At(i, j)))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestGoldenSK pins the sk generator (testdata/golden/sk.txt, rewritten
// with -update).
func TestGoldenSK(t *testing.T) {
	specs := []string{"sk:N=3", "sk:N=20,seed=4", "sk:N=9,seed=2,J=pm1", "sk:N=1000"}
	var lines []string
	for _, s := range specs {
		m := mustLoad(t, s)
		lines = append(lines, s+" "+denseHash(m))
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "golden", "sk.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./model -run TestGoldenSK -update)", err)
	}
	if got != string(want) {
		t.Errorf("sk instances changed:\ngot\n%swant\n%s", got, want)
	}
}

// TestSKStructure: every pair coupled, h = 0, float32 storage, couplings of
// variance 1/N (gauss) or +-1/sqrt(N) (pm1), and the spec's keys checked.
func TestSKStructure(t *testing.T) {
	const n = 400
	m := mustLoad(t, fmt.Sprintf("sk:N=%d,seed=3", n))
	d := m.Dense
	if m.Kind != KindIsing || m.Ising != nil || d == nil || d.J32 == nil || m.Variables() != n || m.Interactions() != n*(n-1)/2 {
		t.Fatalf("sk: kind %v, %d variables, %d interactions", m.Kind, m.Variables(), m.Interactions())
	}
	s, s2 := 0.0, 0.0
	for i := 0; i < n; i++ {
		if d.H[i] != 0 {
			t.Fatal("sk has a field")
		}
		for j := i + 1; j < n; j++ {
			s += d.At(i, j)
			s2 += d.At(i, j) * d.At(i, j)
		}
	}
	np := float64(n * (n - 1) / 2)
	if mean, v := s/np, s2/np; math.Abs(mean) > 5/math.Sqrt(np)/math.Sqrt(n) || math.Abs(v*n-1) > 0.02 {
		t.Errorf("sk couplings: mean %g, variance %g N (expected 0, 1)", mean, v*n)
	}
	p := mustLoad(t, "sk:N=50,J=pm1")
	u := float64(float32(1 / math.Sqrt(50)))
	for i := 0; i < 50; i++ {
		for j := 0; j < 50; j++ {
			if w := p.Dense.At(i, j); (i == j) != (w == 0) || (i != j && math.Abs(w) != u) {
				t.Fatalf("sk pm1: J_%d,%d = %g", i, j, w)
			}
		}
	}
	if a, b := mustLoad(t, "sk:N=30,seed=5"), mustLoad(t, "sk:N=30,seed=6"); denseHash(a) == denseHash(b) {
		t.Error("seeds 5 and 6 give the same sk instance")
	}
	for _, bad := range []string{"sk:N=0", "sk:N=8193", "sk:N=10,J=uniform", "sk:seed=1", "sk:N=10,h=pm1"} {
		if _, err := Load(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestDenseSparseForms: the dense and sparse forms of a model are the same
// model (couplings, fields, energies to the bit), whichever was given.
func TestDenseSparseForms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, spec := range []string{"sk:N=20,seed=4", "sk:N=9,J=pm1", "spinglass3d:L=3", "frustrated2d:L=5"} {
		m := mustLoad(t, spec)
		d, is := m.DenseForm(), m.Sparse()
		if d == nil || is == nil || d.N != is.N || d.Pairs != is.Interactions() && m.Dense != nil {
			t.Fatalf("%s: forms missing or of different sizes", spec)
		}
		if m.DenseForm() != d || m.Sparse() != is {
			t.Fatalf("%s: forms are rebuilt", spec)
		}
		for i := 0; i < is.N; i++ {
			for k := is.Start[i]; k < is.Start[i+1]; k++ {
				if d.At(i, int(is.Adj[k])) != is.J[k] {
					t.Fatalf("%s: J_%d,%d differs", spec, i, is.Adj[k])
				}
			}
		}
		s := make([]int8, d.N)
		for range 20 {
			for i := range s {
				s[i] = int8(2*r.IntN(2) - 1)
			}
			if a, b := d.Energy(s), is.Energy(s); a != b {
				t.Fatalf("%s: dense energy %v, sparse %v", spec, a, b)
			}
			i := r.IntN(d.N)
			if a, b := d.Field(s, i), is.Field(s, i); math.Abs(a-b) > 1e-12 {
				t.Fatalf("%s: dense field %v, sparse %v", spec, a, b)
			}
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
}

// TestUseDense: the automatic choice follows the measured threshold.
func TestUseDense(t *testing.T) {
	for _, c := range []struct {
		spec string
		want bool
	}{
		{"sk:N=100", true},
		{"sk:N=16", true},
		{"sk:N=15", false},
		{"ferro2d:L=5", false},
		{"spinglass3d:L=3", false},
		{"spinglass3d:L=9", false},
		{"ferro2d:L=3", false},
		{"rbm-random:V=100,H=100", false},
	} {
		if got := mustLoad(t, c.spec).UseDense(); got != c.want {
			t.Errorf("%s: UseDense %v (expected %v)", c.spec, got, c.want)
		}
	}
}

// TestNewDenseRefuses: asymmetric matrices, diagonals, non-finite and
// oversized values are refused.
func TestNewDenseRefuses(t *testing.T) {
	for _, c := range []struct {
		j, h []float64
	}{
		{[]float64{0, 1, 2, 0}, nil},
		{[]float64{1, 0, 0, 0}, nil},
		{[]float64{0, math.NaN(), math.NaN(), 0}, nil},
		{[]float64{0, 2e15, 2e15, 0}, nil},
		{[]float64{0, 1, 1, 0}, []float64{math.Inf(1), 0}},
		{[]float64{0, 1, 1}, nil},
	} {
		if _, err := NewDense(2, c.j, c.h, 0); err == nil {
			t.Errorf("NewDense(%v, %v) accepted", c.j, c.h)
		}
	}
	d, err := NewDense(2, []float64{0, 0.1, 0.1, 0}, []float64{1, 0}, 0.5)
	if err != nil || d.J64 == nil || d.Pairs != 1 {
		t.Fatalf("NewDense: %v (float64 storage %v)", err, d != nil && d.J64 != nil)
	}
}
