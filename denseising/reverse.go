package denseising

import (
	"math"
	"slices"

	"sardonics/dense"

	"sardonics/internal/walkrec"
)

// Record is what an engine keeps of its walks since the last one that
// started with an empty path (or of one forward Replay), for
// ReverseLogProbs and Undo (dense.Record, for one layer): this package's
// engine and package parallelsaw's dense engine.
type Record struct {
	walkrec.Walks
	fu []int32 // scratch: fixed-point field of each path spin
	su []int8  // scratch: spin of each path spin
	// qp holds Q between path spins i > j at qp[i(i-1)/2 + j], read from
	// spin i's row while the kernel has it in cache, so that scoring the
	// reverse walks reads no scattered matrix entries; qok says it holds
	// every pair of the recorded path (not kept past maxPairPath spins).
	qp  []int32
	qok bool
}

// maxPairPath bounds the path whose couplings a record keeps (a path of K
// spins needs K(K-1)/2 of them).
var maxPairPath = 512

// BeginPairs is walkrec.Walks.Begin, which also starts recording the
// path's couplings when it starts a record.
func (r *Record) BeginPairs(start int, e float64) {
	if r.Begin(start, e) {
		r.qp, r.qok = r.qp[:0], true
	}
}

// PairSlots returns where the couplings of path spin i to the i earlier
// ones go (Q between spin i and spin j at index j), the record grown to
// hold them; false when they are not kept (an invalid record, or a path
// past maxPairPath spins). Path spins are added in order.
func (r *Record) PairSlots(i int) ([]int32, bool) {
	base := i * (i - 1) / 2
	if !r.Valid() || !r.qok || i >= maxPairPath || len(r.qp) != base {
		r.qok = false
		return nil, false
	}
	r.qp = slices.Grow(r.qp, i)[:base+i]
	return r.qp[base:], true
}

// AddPairs records the couplings of the path spin just added (row, its
// fixed-point row) to the earlier ones.
func (r *Record) AddPairs(row []int16, earlier []int32) {
	if dst, ok := r.PairSlots(len(earlier)); ok {
		for k, u := range earlier {
			dst[k] = int32(row[u])
		}
	}
}

// Fixed is an engine's fixed-point state, as Record.Reverse reads it.
type Fixed interface {
	FixedField(l int32) int32       // spin l's fixed-point field
	FixedCoupling(a, b int32) int32 // Q_ab
}

// pair is Q between path spins i and j (i != j), from the record or the
// engine.
func (r *Record) pair(q Fixed, path []int32, i, j int) int32 {
	if i < j {
		i, j = j, i
	}
	if r.qok {
		return r.qp[i*(i-1)/2+j]
	}
	return q.FixedCoupling(path[i], path[j])
}

// FastAcceptance is 0: scoring the reverse path costs O(k^2) look-ups per
// walk of k spins and undoing a rejected move k passes of integer adds,
// both far less than a replay, so the fast path always pays.
func (e *Engine) FastAcceptance() float64 { return 0 }

// ReverseLogProbs scores the reverse walks from the record of the forward
// ones (see saw.FastReverser and dense.Engine.ReverseLogProbs), with the
// state unchanged. Reverse walk j picks the spins of forward walk w =
// len(bounds)-2-j backwards; it picks l_r at the state x_{r+1} right after
// l_r's forward flip, with the spins picked after l_r in walk w taken, so
// its normalizer is
//
//	Z_rev = Zav_r + sum_{i in w, i <= r} w_i(x_{r+1}) - sum_{i in w, i > r} w_i(x_{r+1})
//
// where Zav_r is the forward sum recorded right after l_r's flip. The path
// spins' weights at x_{r+1} come from their fixed-point fields, rebuilt
// backwards from the current ones by subtracting the couplings of the
// undone flips (every spin is coupled to every other here; the walks
// recorded them, record.qp). All of it is exact
// integer arithmetic, and the terms are added in Replay's order with
// Replay's expressions, so the result equals Replay's bit for bit.
func (e *Engine) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	return e.rec.Reverse(e.bias, path, bounds, e, e.s, rev)
}

// FixedField is spin l's fixed-point field (Fixed).
func (e *Engine) FixedField(l int32) int32 { return e.F[l] }

// FixedCoupling is Q_ab (Fixed).
func (e *Engine) FixedCoupling(a, b int32) int32 { return int32(e.q.Q[int(a)*e.n+int(b)]) }

// Reverse is ReverseLogProbs of an engine at bias tb with spins s and the
// fixed-point state q.
func (r *Record) Reverse(tb *dense.Bias, path []int32, bounds []int, q Fixed, s []int8, rev [][2]float64) bool {
	if !r.Matches(path, bounds) || len(rev) != len(bounds)-1 {
		return false
	}
	K := len(path)
	if cap(r.fu) < K {
		r.fu, r.su = make([]int32, K), make([]int8, K)
	}
	fu, su := r.fu[:K], r.su[:K]
	for i, l := range path {
		fu[i], su[i] = q.FixedField(l), s[l]
	}
	nw := len(bounds) - 1
	for w := nw - 1; w >= 0; w-- {
		st, en := bounds[w], bounds[w+1]
		var lf [2]float64
		for k := en - 1; k >= st; k-- {
			z := r.Sums()[k]
			for i := st; i < en; i++ {
				if brokenReverse && i == k {
					continue
				}
				c := tb.Class(su[i], fu[i])
				if i <= k {
					z[0] += uint64(tb.W[0][c])
					z[1] += uint64(tb.W[1][c])
				} else {
					z[0] -= uint64(tb.W[0][c])
					z[1] -= uint64(tb.W[1][c])
				}
			}
			c := tb.Class(su[k], fu[k])
			lf[0] += tb.Log[0][c] - math.Log(float64(z[0]))
			lf[1] += tb.Log[1][c] - math.Log(float64(z[1]))
			// Undo the flip of l: the state becomes x_k.
			l := path[k]
			m := 2 * int32(su[k])
			for i, u := range path[:en] {
				if u == l { // k itself, or l in an earlier walk (Q_ll = 0)
					su[i] = -su[i]
				} else {
					fu[i] -= m * r.pair(q, path, k, i)
				}
			}
		}
		rev[nw-1-w] = lf
	}
	return true
}

// Undo flips the spins of path back in reverse order (see
// saw.FastReverser); the energy returns exactly to its value before the
// recorded walks.
func (e *Engine) Undo(path []int32) {
	for i := len(path) - 1; i >= 0; i-- {
		e.flipFieldsOnly(int(path[i]))
	}
	if e0, ok := e.rec.E0(len(path)); ok {
		e.e = e0
	} else {
		e.refresh()
	}
	e.stale = true
	e.rec.Invalidate()
}

// flipFieldsOnly flips spin l and its fixed-point row, without the energy
// (Undo restores it from the record).
func (e *Engine) flipFieldsOnly(l int) {
	sl := -e.s[l]
	e.s[l] = sl
	e.since++
	AddQ(e.F, e.row(l), 2*int32(sl))
}
