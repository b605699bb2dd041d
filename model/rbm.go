package model

import (
	"fmt"
	"math"
)

// RBM is a restricted Boltzmann machine, E(v,h) = -v'Wh - b'v - c'h with
// v in {0,1}^V, h in {0,1}^H. W is V x H, row-major: W[i*H+j].
// In its Ising form (Ising()), variables 0..V-1 are visible and V..V+H-1 hidden.
type RBM struct {
	V, H int
	W    []float64
	B, C []float64
}

// NewRBM checks shapes and finiteness.
func NewRBM(v, h int, w, b, c []float64) (*RBM, error) {
	if v <= 0 || h <= 0 {
		return nil, fmt.Errorf("RBM is %d x %d (expected positive sizes)", v, h)
	}
	if b == nil {
		b = make([]float64, v)
	}
	if c == nil {
		c = make([]float64, h)
	}
	if len(w) != v*h || len(b) != v || len(c) != h {
		return nil, fmt.Errorf("RBM arrays W %d, b %d, c %d (expected %d, %d, %d)", len(w), len(b), len(c), v*h, v, h)
	}
	for _, a := range [][]float64{w, b, c} {
		for _, x := range a {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("RBM parameter is %v (expected finite numbers)", x)
			}
		}
	}
	return &RBM{V: v, H: h, W: w, B: b, C: c}, nil
}

// Energy of (v, h) with bits in {0,1}.
func (r *RBM) Energy(v, h []uint8) float64 {
	e := 0.0
	for i := 0; i < r.V; i++ {
		if v[i] == 0 {
			continue
		}
		e -= r.B[i]
		row := r.W[i*r.H : (i+1)*r.H]
		for j, hj := range h {
			if hj != 0 {
				e -= row[j]
			}
		}
	}
	for j, hj := range h {
		if hj != 0 {
			e -= r.C[j]
		}
	}
	return e
}

// Ising returns the exact Ising form (visible first, then hidden): the
// form FromQUBO gives the QUBO with diagonal -b, -c and off-diagonal -W,
// built straight into its CSR rows (each already sorted) with FromQUBO's
// operations in FromQUBO's order, so every value is bit for bit the same,
// without FromQUBO's two edge lists (48 bytes per weight).
func (r *RBM) Ising() (*Ising, error) {
	n, nv := r.V+r.H, r.V
	if n <= 0 {
		return nil, fmt.Errorf("model has %d variables (expected at least 1)", n)
	}
	h, c := r.isingFields()
	for i, v := range h {
		if !finite(v) {
			return nil, fmt.Errorf("field %d is %v (expected a finite number)", i, v)
		}
	}
	if !finite(c) {
		return nil, fmt.Errorf("offset is %v (expected a finite number)", c)
	}
	m := &Ising{N: n, Start: make([]int32, n+1), Adj: make([]int32, 2*len(r.W)), J: make([]float64, 2*len(r.W)), H: h, Offset: c}
	for i := 0; i < nv; i++ {
		m.Start[i+1] = int32((i + 1) * r.H)
	}
	for j := 0; j < r.H; j++ {
		m.Start[nv+j+1] = int32(len(r.W) + (j+1)*nv)
	}
	hid := len(r.W) // hidden row j starts at hid + j V
	for i := 0; i < nv; i++ {
		for j, w := range r.W[i*r.H : (i+1)*r.H] {
			q := -(-w) / 4 // FromQUBO's -e.W/4 of e.W = -w (exact negations: w/4)
			k := i*r.H + j
			m.Adj[k], m.J[k] = int32(nv+j), q
			k = hid + j*nv + i
			m.Adj[k], m.J[k] = int32(i), q
		}
	}
	return m, nil
}

// isingFields are the fields and offset of the Ising form, computed as
// FromQUBO computes them (the same additions in the same order, so the
// same bits).
func (r *RBM) isingFields() ([]float64, float64) {
	nv := r.V
	h := make([]float64, nv+r.H)
	c := 0.0
	for i, b := range r.B {
		d := -b
		h[i] -= d / 2
		c += d / 2
	}
	for j, b := range r.C {
		d := -b
		h[nv+j] -= d / 2
		c += d / 2
	}
	for i := 0; i < nv; i++ {
		for j, w := range r.W[i*r.H : (i+1)*r.H] {
			q := -w / 4
			h[i] -= q
			h[nv+j] -= q
			c += q
		}
	}
	return h, c
}
