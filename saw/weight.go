package saw

import (
	"fmt"
	"math"
)

// MaxLogWeight bounds |log w|. Clamping changes w only where it is below
// exp(-690) or above exp(690); the clamped w is still a positive function
// of dE, and any such function gives an exact sampler as long as the
// forward and reverse walks use the same one. The bound keeps exp(log w)
// a normal float64 (neither +Inf nor a zero that makes a bit unselectable)
// for |J| up to 1e3 at beta = 1, so engines that hold weights in linear
// scale (sum trees, buckets) never overflow.
const MaxLogWeight = 690

// LogWeight is log w(dE) at bias gamma, clamped to [-MaxLogWeight,
// MaxLogWeight]:
//
//	Logistic: -log(1 + exp(gamma dE))   (softplus, computed stably)
//	Exp:      -gamma dE
//
// Every engine uses this function (or a table of its exact values), so all
// engines define the same walk distribution. An unknown Weight panics.
func LogWeight(w Weight, gamma, dE float64) float64 {
	x := gamma * dE
	if math.IsNaN(x) { // gamma = beta theta overflowed to +Inf and dE = 0: as FixedWeight
		x = 0
	}
	var lw float64
	switch w {
	case Logistic:
		// log(1+e^x) = x + log1p(e^-x) for x > 0, so e^x never overflows.
		if x > 0 {
			lw = -(x + math.Log1p(math.Exp(-x)))
		} else {
			lw = -math.Log1p(math.Exp(x))
		}
	case Exp:
		lw = -x
	default:
		panic(fmt.Sprintf("saw: unknown Weight %d", int(w)))
	}
	return min(max(lw, -MaxLogWeight), MaxLogWeight)
}

// String is the weight's command-line name.
func (w Weight) String() string {
	switch w {
	case Logistic:
		return "logistic"
	case Exp:
		return "exp"
	}
	return fmt.Sprintf("Weight(%d)", int(w))
}

// ParseWeight reads the --weight flag: "logistic" or "exp".
func ParseWeight(s string) (Weight, error) {
	switch s {
	case "logistic":
		return Logistic, nil
	case "exp":
		return Exp, nil
	}
	return 0, fmt.Errorf("unknown weight %q (expected logistic or exp)", s)
}

// FixedWeight is the integer pick weight in [1, one] that the fixed-point
// engines (dense, the sparse tree) store for a class whose gamma dE is x:
// one / (1 + e^x) for Logistic, one e^(-x-r) for Exp, x first clamped to
// [-r, r]. Any positive weight gives an exact sampler when forward and
// reverse walks use the same stored integers; these stay within rounding
// of the smooth weights over the clamped range.
func FixedWeight(w Weight, x, r, one float64) float64 {
	if math.IsNaN(x) {
		x = 0 // gamma = 0 times an infinite dE: no NaN reaches a table
	}
	x = min(max(x, -r), r)
	var v float64
	if w == Logistic {
		v = one / (1 + math.Exp(x))
	} else {
		v = one * math.Exp(-x-r)
	}
	return min(max(math.Round(v), 1), one)
}
