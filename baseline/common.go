package baseline

import (
	"errors"
	"fmt"
	"math"

	"sardonics/model"
)

// ErrNotBipartite is returned (wrapped) by NewBlockGibbs for models that are
// not RBMs.
var ErrNotBipartite = errors.New("model is not bipartite (block Gibbs needs an RBM)")

// refreshEvery is how many steps pass between exact recomputations of the
// incrementally tracked energy and local fields, so rounding never
// accumulates over long runs.
const refreshEvery = 1000

// two53 scales a probability p to the integer threshold t such that
// rng.Float64 < p exactly when Uint64()>>11 < t.
const two53 = 1 << 53

func threshold(p float64) uint64 {
	if p >= 1 {
		return two53
	}
	if p <= 0 {
		return 0
	}
	return uint64(math.Ceil(p * two53))
}

// checkArgs validates beta and the initial state and returns a copy of it.
func checkArgs(m *model.Model, beta float64, init []int8) ([]int8, error) {
	if m == nil || m.Ising == nil && m.Dense == nil && m.RBM == nil {
		return nil, errors.New("baseline: nil model")
	}
	if math.IsNaN(beta) || math.IsInf(beta, 0) || beta < 0 {
		return nil, fmt.Errorf("baseline: beta is %v (expected a finite number >= 0)", beta)
	}
	n := m.Variables()
	if len(init) != n {
		return nil, fmt.Errorf("baseline: initial state has %d spins (expected %d)", len(init), n)
	}
	s := make([]int8, n, n+1) // room for SW's ghost spin
	for i, v := range init {
		if v != 1 && v != -1 {
			return nil, fmt.Errorf("baseline: initial spin %d is %d (expected -1 or +1)", i, v)
		}
		s[i] = v
	}
	return s, nil
}

// maxUnits bounds the integer couplings and fields of the table path, and
// maxTable the local-field range it tabulates; beyond them exp per spin is
// cheaper than the table's cache misses.
const (
	maxUnits = 1 << 20
	maxTable = 4096
)

// integerForm looks for a unit u such that every coupling and field is
// exactly an integer multiple of u (integers, or QUBO quarters, or a
// common real scale)
// with local fields in [-K, K] units, K <= maxTable. It returns the
// couplings and fields in units, or ok = false.
func integerForm(m *model.Ising) (u float64, jInt, hInt []int32, k int, ok bool) {
	cands := []float64{}
	minAbs := math.Inf(1)
	for _, vs := range [][]float64{m.J, m.H} {
		for _, v := range vs {
			if v != 0 {
				minAbs = min(minAbs, math.Abs(v))
			}
		}
	}
	if math.IsInf(minAbs, 1) {
		minAbs = 1
	}
	for d := 1.0; d <= 1024; d *= 2 {
		cands = append(cands, 1/d)
	}
	cands = append(cands, minAbs)
next:
	for _, u := range cands {
		jInt = make([]int32, len(m.J))
		hInt = make([]int32, len(m.H))
		for _, p := range []struct {
			src []float64
			dst []int32
		}{{m.J, jInt}, {m.H, hInt}} {
			for i, v := range p.src {
				// Exactly r units, never nearly: within a tolerance the
				// table would sample a model a little off this one, and
				// report u eInt for energies that a fresh evaluation of
				// the state does not give.
				r := math.Round(v / u)
				if math.Abs(r) > maxUnits || r*u != v {
					continue next
				}
				p.dst[i] = int32(r)
			}
		}
		k = 0
		for i := 0; i < m.N; i++ {
			f := int64(abs32(hInt[i]))
			for e := m.Start[i]; e < m.Start[i+1]; e++ {
				f += int64(abs32(jInt[e]))
			}
			k = max(k, int(min(f, maxTable+1)))
		}
		if k > maxTable {
			continue
		}
		return u, jInt, hInt, k, true
	}
	return 0, nil, nil, 0, false
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
