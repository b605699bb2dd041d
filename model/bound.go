package model

import (
	"math"
	"strconv"
)

// MaxEnergy bounds the size of a model: the sum of the magnitudes of all
// its terms (couplings and fields; QUBO entries; RBM weights and biases),
// which is the largest |E| any state can have. Every loader and generator
// refuses a model beyond it, and a single term beyond it, with an
// *InputError naming the value.
//
// The bound is what float64 energies need. Below 1e15 the spacing of
// float64 values is at most 1/8, so every energy, every partial sum of
// one and every energy change of an integer-valued model is exact, a
// trace's incremental energy does not drift, and exact enumeration can
// tell apart levels one unit apart. Far beyond it (near 1e16 the spacing
// is 2) energies of different states collapse onto one value, and near
// 1e308 sums of terms overflow to infinity. The fixed-point engines scale
// any model to their own range, so they need no smaller bound.
const MaxEnergy = 1e15

// magnitude accumulates the sum of |terms| of a model as it is read.
type magnitude struct{ sum float64 }

// add counts v and returns "" while v and the sum so far are within
// MaxEnergy, else a message naming v as tok (v itself when tok is "");
// what is the kind of term, e.g. "coupling".
func (g *magnitude) add(what, tok string, v float64) string {
	a := math.Abs(v)
	if a <= MaxEnergy && g.sum+a <= MaxEnergy {
		g.sum += a
		return "" // the common case: no message to format
	}
	if tok == "" {
		tok = fmtFloat(v)
	}
	if a > MaxEnergy {
		return what + " " + tok + " too large (expected |value| <= " + fmtFloat(MaxEnergy) +
			": energies beyond it lose float64 precision)"
	}
	g.sum += a
	if g.sum > MaxEnergy {
		return what + " " + tok + " brings the sum of |values| to " + fmtG(g.sum) +
			" (expected at most " + fmtFloat(MaxEnergy) + ", the largest |energy| a model may reach)"
	}
	return ""
}

// fmtG is v with 6 significant digits, for sums that are not input values;
// a sum that overflowed reads as beyond float64's range.
func fmtG(v float64) string {
	if math.IsInf(v, 0) {
		return "more than " + fmtFloat(math.MaxFloat64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// fmtFloor3 is v > 0 rounded down to 3 significant digits, for a largest
// accepted value that a user may copy.
func fmtFloor3(v float64) string {
	p := math.Pow(10, math.Floor(math.Log10(v))-2)
	return strconv.FormatFloat(math.Floor(v/p)*p, 'g', 3, 64)
}
