package stattest

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// minExpected is the usual rule of thumb for Pearson's test: cells whose
// expected count is below it are pooled so the chi-square approximation holds.
const minExpected = 5

// ChiSquare is Pearson's goodness-of-fit test of observed counts against
// probabilities probs (normalized here, so they need only be proportional).
// Cells with expected count below 5 are merged into one cell; if that pooled
// cell is itself below 5 it is merged into the smallest remaining cell.
// df is the number of cells after merging minus one; p is the survival
// function of the chi-square distribution with df degrees of freedom.
// With fewer than two cells (df < 1), or mismatched or empty input, the
// result is (NaN, 0, NaN). A count in a cell of zero probability gives
// stat = +Inf and p = 0.
func ChiSquare(counts []float64, probs []float64) (stat float64, df int, p float64) {
	if len(counts) != len(probs) || len(counts) == 0 {
		return math.NaN(), 0, math.NaN()
	}
	n, z := 0.0, 0.0
	for i := range counts {
		n += counts[i]
		z += probs[i]
	}
	if n <= 0 || z <= 0 {
		return math.NaN(), 0, math.NaN()
	}
	var obs, exp []float64
	poolO, poolE := 0.0, 0.0
	for i := range counts {
		e := n * probs[i] / z
		if e == 0 && counts[i] > 0 {
			return math.Inf(1), len(counts) - 1, 0
		}
		if e < minExpected {
			poolO += counts[i]
			poolE += e
			continue
		}
		obs = append(obs, counts[i])
		exp = append(exp, e)
	}
	if poolE > 0 {
		if poolE >= minExpected || len(exp) == 0 {
			obs = append(obs, poolO)
			exp = append(exp, poolE)
		} else {
			k := 0
			for i := range exp {
				if exp[i] < exp[k] {
					k = i
				}
			}
			obs[k] += poolO
			exp[k] += poolE
		}
	}
	df = len(obs) - 1
	if df < 1 {
		return math.NaN(), 0, math.NaN()
	}
	for i := range obs {
		d := obs[i] - exp[i]
		stat += d * d / exp[i]
	}
	p = distuv.ChiSquared{K: float64(df)}.Survival(stat)
	return stat, df, p
}

// Enumerate calls f with every one of the 2^n spin states in index order:
// state k has s_i = +1 exactly when bit i of k is set. f must not keep s,
// which is reused. n must be in 0..30; larger n panics (programmer error).
func Enumerate(n int, f func(s []int8)) {
	if n < 0 || n > 30 {
		panic("stattest.Enumerate: n out of range 0..30")
	}
	s := make([]int8, n)
	for k := 0; k < 1<<n; k++ {
		for i := range s {
			s[i] = int8(2*((k>>i)&1) - 1)
		}
		f(s)
	}
}

// StateIndex is the index of spin state s in the order of Enumerate.
func StateIndex(s []int8) int {
	k := 0
	for i, v := range s {
		if v > 0 {
			k |= 1 << i
		}
	}
	return k
}
