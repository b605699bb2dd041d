package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// onGridTerms reports whether every term of is is a multiple of 2^e and
// their magnitudes sum to at most 2^GridBits 2^e.
func onGridTerms(is *Ising, e int) bool {
	b := 0.0
	on := func(x, share float64) bool {
		b += math.Abs(x) * share
		s := math.Ldexp(x, -e)
		return s == math.Trunc(s)
	}
	for k := range is.J {
		if !on(is.J[k], 0.5) { // each pair held twice
			return false
		}
	}
	for _, h := range is.H {
		if !on(h, 1) {
			return false
		}
	}
	return on(is.Offset, 1) && b <= math.Ldexp(1, GridBits+e)
}

// Models of every form, real-valued and integer, put on their grid: the
// Ising form is on the grid, a second OnGrid changes nothing, and an
// integer model is not changed at all.
func TestOnGrid(t *testing.T) {
	integer := []string{"ferro2d:L=8", "frustrated2d:L=8,seed=3", "spinglass3d:L=4", "chimera:M=2,N=2,T=4,J=pm1,h=pm1", "sk:N=20,J=pm1"}
	real := []string{"chimera:M=2,N=2,T=4,seed=3,h=pm1", "rbm-random:V=12,H=7,scale=0.9", "sk:N=30,seed=2"}
	for k, spec := range append(integer, real...) {
		m, err := Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Grid
		if k < len(integer) && g.Rounded != 0 {
			t.Errorf("%s: integer model rounded (%+v)", spec, g)
		}
		if k >= len(integer) && !strings.HasPrefix(spec, "sk") && g.Rounded == 0 {
			t.Errorf("%s: real-valued model not rounded (%+v)", spec, g)
		}
		if !onGridTerms(m.Sparse(), g.Exp) {
			t.Errorf("%s: Ising form not on its grid 2^%d", spec, g.Exp)
		}
		if g.SumChange > 1e-13*g.Bound*float64(m.Interactions()+m.Variables()) {
			t.Errorf("%s: rounding moved energies by up to %g (B = %g)", spec, g.SumChange, g.Bound)
		}
		m.OnGrid()
		if m.Grid.Rounded != 0 || m.Grid.Exp != g.Exp {
			t.Errorf("%s: a second OnGrid changed it: %+v then %+v", spec, g, m.Grid)
		}
	}
}

// A QUBO of decimal coefficients is rounded; its Ising form is on the
// grid, and sums of its terms in any order are the same float64.
func TestOnGridQUBOExactSums(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	n := 30
	var lines []string
	for i := range n {
		lines = append(lines, "")
		lines[i] = itoa(i) + " " + itoa(i) + " " + dec(r)
	}
	nd := len(lines)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if r.Float64() < 0.3 {
				lines = append(lines, itoa(i)+" "+itoa(j)+" "+dec(r))
			}
		}
	}
	b.WriteString("p qubo 0 " + itoa(n) + " " + itoa(nd) + " " + itoa(len(lines)-nd) + "\n" + strings.Join(lines, "\n") + "\n")
	raw, err := ParseQUBO("q.qubo", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ParseQUBO("q.qubo", strings.NewReader(b.String()))
	m.OnGrid()
	if m.Grid.Rounded == 0 {
		t.Fatal("decimal QUBO not rounded")
	}
	if !onGridTerms(m.Ising, m.Grid.Exp) {
		t.Fatalf("Ising form off its grid 2^%d", m.Grid.Exp)
	}
	// Energies of random states by random orders of the terms: one value
	// per state on the grid; several off it (the check can fail).
	differs := func(is *Ising) int {
		bad := 0
		s := make([]int8, n)
		for range 200 {
			for i := range s {
				s[i] = int8(1 - 2*r.IntN(2))
			}
			var terms []float64
			for i := range n {
				terms = append(terms, -is.H[i]*float64(s[i]))
				for k := is.Start[i]; k < is.Start[i+1]; k++ {
					if j := is.Adj[k]; int(j) > i {
						terms = append(terms, -is.J[k]*float64(s[i])*float64(s[j]))
					}
				}
			}
			first := math.NaN()
			for range 20 {
				r.Shuffle(len(terms), func(a, b int) { terms[a], terms[b] = terms[b], terms[a] })
				e := is.Offset
				for _, x := range terms {
					e += x
				}
				if math.IsNaN(first) {
					first = e
				} else if e != first {
					bad++
					break
				}
			}
		}
		return bad
	}
	if d := differs(m.Ising); d != 0 {
		t.Errorf("on the grid, %d of 200 states have energies that depend on the order of the sum", d)
	}
	if d := differs(raw.Ising); d < 50 {
		t.Errorf("off the grid, only %d of 200 states' energies depend on the order (expected most)", d)
	}
}

func itoa(i int) string { return strings.TrimSpace(fmtFloat(float64(i))) }

func dec(r *rand.Rand) string { return fmtFloat(float64(r.IntN(2001)-1000) / 100) }
