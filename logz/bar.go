package logz

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// BAR is Bennett's acceptance ratio (Bennett 1976; Shirts, Bair, Hooker
// and Pande 2003): the estimate of df = f1 - f0, f = -ln Z, between two
// states of reduced potentials u0 and u1 from forward works wF_i =
// u1(x_i) - u0(x_i) at samples x_i of state 0 and reverse works wR_j =
// u0(y_j) - u1(y_j) at samples y_j of state 1. For the temperatures beta0
// and beta1 of one model, u = beta E: wF = (beta1 - beta0) E(x), wR =
// -(beta1 - beta0) E(y), and ln Z1 - ln Z0 = -df.
//
// df is the root of
//
//	sum_i f(M + wF_i - df) = sum_j f(-M + wR_j + df),  f(x) = 1/(1+e^x), M = ln(nF/nR),
//
// whose left side increases and right side decreases in df, so the root
// is unique; Jensen's inequality puts it between -mean(wR) and mean(wF).
// The samples may be correlated: the estimate is still consistent, but
// its error must come from independent replications (LadderBAR).
func BAR(wF, wR []float64) (float64, error) {
	return barSolve(plain(wF), plain(wR), -1, math.NaN())
}

// side is one state's works: distinct values w with their counts c and
// the trial g of each (nil: one group), as works compresses them (a
// model with integer couplings has few distinct energies, so BAR's sums
// cost its levels, not its samples).
type side struct {
	w, c []float64
	g    []int32
}

func plain(w []float64) side {
	c := make([]float64, len(w))
	for i := range c {
		c[i] = 1
	}
	return side{w: w, c: c}
}

// count is the samples of s outside group skip, and their works' sum.
func (s side) count(skip int32) (n, sum float64) {
	for i, w := range s.w {
		if s.g == nil || s.g[i] != skip {
			n += s.c[i]
			sum += s.c[i] * w
		}
	}
	return n, sum
}

// barEq is sum_i f(M + wF_i - d) - sum_j f(-M + wR_j + d) and its
// derivative in d, over the samples whose group is not skip.
func barEq(fw, rv side, skip int32, m, d float64) (h, dh float64) {
	for i, w := range fw.w {
		if fw.g != nil && fw.g[i] == skip {
			continue
		}
		p := fermi(m + w - d)
		h += fw.c[i] * p
		dh += fw.c[i] * p * (1 - p)
	}
	for j, w := range rv.w {
		if rv.g != nil && rv.g[j] == skip {
			continue
		}
		p := fermi(-m + w + d)
		h -= rv.c[j] * p
		dh += rv.c[j] * p * (1 - p)
	}
	return h, dh
}

// fermi is f(x) = 1 / (1 + e^x).
func fermi(x float64) float64 { return sigmoid(-x) }

// barSolve solves the BAR equation over the samples not in group skip
// (see barEq); start, if not NaN, is a point near the root (a
// leave-one-out solve starts at the full root).
func barSolve(fw, rv side, skip int32, start float64) (float64, error) {
	nF, sF := fw.count(skip)
	nR, sR := rv.count(skip)
	if nF == 0 || nR == 0 {
		return 0, errors.New("logz: BAR needs samples of both states")
	}
	if math.IsNaN(sF) || math.IsNaN(sR) || math.IsInf(sF, 0) || math.IsInf(sR, 0) {
		return 0, errors.New("logz: BAR: works are not finite")
	}
	m := math.Log(nF / nR)
	eq := func(d float64) (float64, float64) { return barEq(fw, rv, skip, m, d) }
	if math.IsNaN(start) {
		start = (sF/nF - sR/nR) / 2 // between Jensen's bounds -mean(wR) and mean(wF)
	}
	// A bracket [lo, hi] of the root (h is increasing in d): from start,
	// twice Newton's step to the side the sign of h says, growing by 4
	// until the sign changes.
	h, dh := eq(start)
	if h == 0 {
		return start, nil
	}
	step := 2 * math.Abs(h/dh)
	if !(step > 1e-12*(1+math.Abs(start))) || math.IsInf(step, 0) {
		step = 1e-12 * (1 + math.Abs(start))
		if dh == 0 {
			step = 1 + math.Abs(sF/nF) + math.Abs(sR/nR)
		}
	}
	lo, hi := start, start
	for it := 0; ; it++ {
		if it == 200 {
			return 0, errors.New("logz: BAR: no root found")
		}
		if h > 0 {
			hi, lo = lo, start-step
			if x, _ := eq(lo); x <= 0 {
				break
			}
		} else {
			lo, hi = hi, start+step
			if x, _ := eq(hi); x >= 0 {
				break
			}
		}
		step *= 4
	}
	// Newton's method, kept inside the bracket (bisection when a step
	// leaves it).
	d := start - h/dh
	if !(d > lo && d < hi) {
		d = (lo + hi) / 2
	}
	for it := 0; it < 200; it++ {
		h, dh := eq(d)
		if h > 0 {
			hi = d
		} else {
			lo = d
		}
		next := d - h/dh
		if dh <= 0 || !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-d) <= 1e-13*math.Max(1, math.Abs(d)) || hi-lo <= 1e-13*math.Max(1, math.Abs(d)) {
			return next, nil
		}
		d = next
	}
	return d, nil
}

// LadderBAR is ln Z(betas[K-1]) - ln Z(betas[0]) from replica exchange:
// the sum over neighbouring rungs of Bennett's acceptance ratio, each rung
// pair's estimate pooling the samples of every trial, and its standard
// error by the jackknife over trials (leave one trial out, re-solve every
// pair; se^2 = (T-1)/T sum_t (est_-t - mean)^2), which accounts for the
// samples' correlation within a trial as long as the trials are
// independent.
//
// Inputs: betas, the ladder's inverse temperatures in increasing order
// (betas[0] may be 0); energies[t][k], the energies (in the model's own
// convention, E of exp(-beta E)) recorded at rung k in trial t, after
// burn-in; every trial needs samples at every rung, and at least two
// trials are needed for an error (with one the error is NaN). The
// samples' order does not matter.
func LadderBAR(betas []float64, energies [][][]float64) (lnZDiff, stderr float64, err error) {
	lnZDiff, stderr, _, err = ladderBAR(betas, energies)
	return lnZDiff, stderr, err
}

// ladderBAR is LadderBAR with each pair's ln Z difference.
func ladderBAR(betas []float64, energies [][][]float64) (total, stderr float64, pairs []float64, err error) {
	K, T := len(betas), len(energies)
	if K < 2 {
		return 0, 0, nil, fmt.Errorf("logz: %d rungs (expected at least 2)", K)
	}
	for k := 1; k < K; k++ {
		if !(betas[k] > betas[k-1]) {
			return 0, 0, nil, fmt.Errorf("logz: ladder %v (expected strictly increasing betas)", betas)
		}
	}
	if T == 0 {
		return 0, 0, nil, errors.New("logz: no trials")
	}
	for t := range energies {
		if len(energies[t]) != K {
			return 0, 0, nil, fmt.Errorf("logz: trial %d has energies at %d rungs (expected %d)", t, len(energies[t]), K)
		}
		for k := range energies[t] {
			if len(energies[t][k]) == 0 {
				return 0, 0, nil, fmt.Errorf("logz: trial %d has no energies at rung %d", t, k)
			}
		}
	}
	loo := make([]float64, T) // leave-one-out sums
	for k := 0; k+1 < K; k++ {
		db := betas[k+1] - betas[k]
		fw, rv := works(energies, k, db), works(energies, k+1, -db)
		if brokenBAR {
			rv = works(energies, k+1, db)
		}
		d, err := barSolve(fw, rv, -1, math.NaN())
		if err != nil {
			return 0, 0, nil, fmt.Errorf("logz: rungs %d-%d: %w", k, k+1, err)
		}
		total -= d
		pairs = append(pairs, -d)
		if T < 2 {
			continue
		}
		for t := range T {
			dt, err := barSolve(fw, rv, int32(t), d)
			if err != nil {
				return 0, 0, nil, err
			}
			loo[t] -= dt
		}
	}
	if T < 2 {
		return total, math.NaN(), pairs, nil
	}
	_, sd := meanSD(loo)
	n := float64(T)
	return total, sd * math.Sqrt((n-1)*(n-1)/n), pairs, nil
}

// works are scale times the energies at rung k of every trial, as
// distinct values with counts per trial.
func works(energies [][][]float64, k int, scale float64) side {
	var s side
	for t := range energies {
		e := slices.Clone(energies[t][k])
		slices.Sort(e)
		for i, x := range e {
			if i > 0 && x == e[i-1] {
				s.c[len(s.c)-1]++
				continue
			}
			s.w = append(s.w, scale*x)
			s.c = append(s.c, 1)
			s.g = append(s.g, int32(t))
		}
	}
	return s
}
