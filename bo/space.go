package bo

import (
	"fmt"
	"math"
)

// Dim is one named parameter with bounds [Lo, Hi]. An Integer dimension
// takes the values Lo, Lo+1, ..., Hi.
type Dim struct {
	Name    string  `json:"name"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	Integer bool    `json:"integer,omitempty"`
}

// Order constrains params[Upper] >= params[Lower] (indices into Space.Dims),
// as ku >= kl and gH >= gL in the SARDONICS search space.
type Order struct {
	Lower int `json:"lower"`
	Upper int `json:"upper"`
}

// Space is a box of parameters, searched through the unit cube [0,1]^D.
//
// Each coordinate u_i in [0,1] maps to its own dimension, except that the
// upper member of an Order is parametrized relative to the lower one's
// value v: it ranges over [max(Lo, v), Hi], so every point of the cube is
// feasible and the optimizer needs no constraint handling. Integer
// dimensions split [0,1] into Hi-Lo+1 equal bins, one per value, so each
// value gets the same share of the cube (plain rounding would halve the
// share of the end values).
type Space struct {
	Dims   []Dim   `json:"dims"`
	Orders []Order `json:"orders,omitempty"`
}

// Len is the number of dimensions.
func (s Space) Len() int { return len(s.Dims) }

// Validate reports bounds that are empty or not integral on integer
// dimensions, and orders that are out of range, chained, repeated, or
// infeasible (the upper dimension must reach the lower one's top value).
func (s Space) Validate() error {
	if len(s.Dims) == 0 {
		return fmt.Errorf("bo: space has no dimensions")
	}
	for i, d := range s.Dims {
		if !(d.Lo <= d.Hi) || math.IsInf(d.Lo, 0) || math.IsInf(d.Hi, 0) {
			return fmt.Errorf("bo: dimension %d (%s): bad bounds [%v, %v]", i, d.Name, d.Lo, d.Hi)
		}
		if d.Integer && (d.Lo != math.Trunc(d.Lo) || d.Hi != math.Trunc(d.Hi)) {
			return fmt.Errorf("bo: integer dimension %d (%s) has non-integral bounds [%v, %v]", i, d.Name, d.Lo, d.Hi)
		}
	}
	upper := map[int]bool{}
	for _, o := range s.Orders {
		if o.Lower < 0 || o.Lower >= len(s.Dims) || o.Upper < 0 || o.Upper >= len(s.Dims) || o.Lower == o.Upper {
			return fmt.Errorf("bo: order %v out of range", o)
		}
		if upper[o.Upper] {
			return fmt.Errorf("bo: dimension %d is the upper member of two orders", o.Upper)
		}
		upper[o.Upper] = true
	}
	for _, o := range s.Orders {
		if upper[o.Lower] {
			return fmt.Errorf("bo: order %v: chained orders are not supported", o)
		}
		lo, up := s.Dims[o.Lower], s.Dims[o.Upper]
		if up.Hi < lo.Hi {
			return fmt.Errorf("bo: order %s <= %s infeasible: %s can reach %v but %s only %v",
				lo.Name, up.Name, lo.Name, lo.Hi, up.Name, up.Hi)
		}
	}
	return nil
}

// lowerOf returns, for each dimension, the index of the dimension it must
// not fall below, or -1.
func (s Space) lowerOf() []int {
	lw := make([]int, len(s.Dims))
	for i := range lw {
		lw[i] = -1
	}
	for _, o := range s.Orders {
		lw[o.Upper] = o.Lower
	}
	return lw
}

func fromUnit(d Dim, lo, u float64) float64 {
	u = math.Min(math.Max(u, 0), 1)
	if d.Integer {
		n := d.Hi - lo + 1
		return math.Min(lo+math.Floor(u*n), d.Hi)
	}
	return lo + u*(d.Hi-lo)
}

func toUnit(d Dim, lo, v float64) float64 {
	if d.Integer {
		v = math.Round(v)
		return math.Min(math.Max((v-lo+0.5)/(d.Hi-lo+1), 0), 1)
	}
	if d.Hi == lo {
		return 0.5
	}
	return math.Min(math.Max((v-lo)/(d.Hi-lo), 0), 1)
}

// ToParams maps a unit-cube point to parameters (integers rounded into
// their bins, orders enforced). The space must be valid.
func (s Space) ToParams(u []float64) []float64 {
	if len(u) != len(s.Dims) {
		panic(fmt.Sprintf("bo: point has %d coordinates, space %d", len(u), len(s.Dims)))
	}
	lw := s.lowerOf()
	p := make([]float64, len(u))
	for i, d := range s.Dims {
		if lw[i] < 0 {
			p[i] = fromUnit(d, d.Lo, u[i])
		}
	}
	for i, d := range s.Dims {
		if lw[i] >= 0 {
			p[i] = fromUnit(d, math.Max(d.Lo, p[lw[i]]), u[i])
		}
	}
	return p
}

// ToUnit maps parameters back to the unit cube (integer values to the
// center of their bin), the inverse of ToParams on its range. Values out of
// bounds are clamped.
func (s Space) ToUnit(p []float64) []float64 {
	if len(p) != len(s.Dims) {
		panic(fmt.Sprintf("bo: parameters have %d values, space %d", len(p), len(s.Dims)))
	}
	lw := s.lowerOf()
	u := make([]float64, len(p))
	for i, d := range s.Dims {
		lo := d.Lo
		if lw[i] >= 0 {
			lo = math.Max(d.Lo, s.Dims[lw[i]].clamp(p[lw[i]]))
		}
		u[i] = toUnit(d, lo, p[i])
	}
	return u
}

func (d Dim) clamp(v float64) float64 {
	if d.Integer {
		v = math.Round(v)
	}
	return math.Min(math.Max(v, d.Lo), d.Hi)
}

// Snap returns the canonical unit point of the parameters u maps to, so
// that every unit point the GP sees for an integer setting is the same one.
func (s Space) Snap(u []float64) []float64 { return s.ToUnit(s.ToParams(u)) }
