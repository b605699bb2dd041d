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

// Ising returns the exact Ising form (visible first, then hidden).
func (r *RBM) Ising() (*Ising, error) {
	n := r.V + r.H
	diag := make([]float64, n)
	for i := 0; i < r.V; i++ {
		diag[i] = -r.B[i]
	}
	for j := 0; j < r.H; j++ {
		diag[r.V+j] = -r.C[j]
	}
	off := make([]Edge, 0, r.V*r.H)
	for i := 0; i < r.V; i++ {
		for j := 0; j < r.H; j++ {
			off = append(off, Edge{int32(i), int32(r.V + j), -r.W[i*r.H+j]})
		}
	}
	return FromQUBO(n, diag, off, 0)
}
