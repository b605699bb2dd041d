package dense

import (
	"math"

	"sardonics/internal/walkrec"
)

// Record is what an engine keeps of its walks since the last one that
// started with an empty path (or of one forward Replay), for
// ReverseLogProbs and Undo (see saw.FastReverser): the walks (walkrec) and
// scratch for scoring their reverses.
type Record struct {
	walkrec.Walks
	fu []int32 // scratch: fixed-point field of each path bit
	su []int8  // scratch: spin of each path bit
}

// FastAcceptance is 0: scoring the reverse path in place costs O(k^2)
// table look-ups per walk of k bits, far less than replaying it, and
// undoing a rejected move costs less than a replay, so the fast path
// always pays.
func (e *Engine) FastAcceptance() float64 { return 0 }

// ReverseLogProbs scores the reverse walks from the record of the forward
// ones (see saw.FastReverser), with the state unchanged. Reverse walk j
// picks the bits of forward walk w = len(bounds)-2-j backwards; it picks
// bit l_r at the state x_{r+1} right after l_r's forward flip, with the
// bits picked after l_r in walk w taken, so its normalizer is
//
//	Z_rev = Zav_r + sum_{i in w, i <= r} w_i(x_{r+1}) - sum_{i in w, i > r} w_i(x_{r+1})
//
// where Zav_r is the forward sum recorded right after l_r's flip (all bits
// but those of w up to r). The weights of the path bits at x_{r+1} come
// from their fixed-point fields, rebuilt backwards from the current ones
// by subtracting the couplings of the undone flips. All of it is exact
// integer arithmetic, and the log-probability terms are added in Replay's
// order with Replay's expressions, so the result equals Replay's bit for
// bit.
func (e *Engine) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	return e.rec.Reverse(e.bias, e.q, path, bounds, func(l int32) int32 { return e.F[l] }, e.s, rev)
}

// Reverse scores the reverse walks of the recorded walks path and bounds
// (see Engine.ReverseLogProbs) with tables tb, given fq(l), the current
// fixed-point field of bit l, and spins s; false if the record does not
// hold exactly these walks.
func (r *Record) Reverse(tb *Bias, q *Quant, path []int32, bounds []int, fq func(l int32) int32, s []int8, rev [][2]float64) bool {
	if !r.Matches(path, bounds) || len(rev) != len(bounds)-1 {
		return false
	}
	K := len(path)
	r.fu, r.su = resize32(r.fu, K), resize8(r.su, K)
	for i, l := range path {
		r.fu[i], r.su[i] = fq(l), s[l]
	}
	reverseScore(tb, q, path, bounds, r.Sums(), r.fu, r.su, rev)
	return true
}

// reverseScore is Reverse on fields fu and spins su of the path bits at
// the end state (both overwritten) and the recorded sums zav.
func reverseScore(tb *Bias, q *Quant, path []int32, bounds []int, zav [][2]uint64, fu []int32, su []int8, rev [][2]float64) {
	nw := len(bounds) - 1
	nv := int32(q.V)
	for w := nw - 1; w >= 0; w-- {
		st, en := bounds[w], bounds[w+1]
		var lf [2]float64
		for r := en - 1; r >= st; r-- {
			z := zav[r]
			for i := st; i < en; i++ {
				c := tb.Class(su[i], fu[i])
				if i <= r {
					z[0] += uint64(tb.W[0][c])
					z[1] += uint64(tb.W[1][c])
				} else {
					z[0] -= uint64(tb.W[0][c])
					z[1] -= uint64(tb.W[1][c])
				}
			}
			c := tb.Class(su[r], fu[r])
			lf[0] += tb.Log[0][c] - math.Log(float64(z[0]))
			lf[1] += tb.Log[1][c] - math.Log(float64(z[1]))
			// Undo the flip of l: the state becomes x_r.
			l := path[r]
			d := int32(su[r])
			for i, u := range path[:en] {
				switch {
				case (u >= nv) != (l >= nv):
					fu[i] -= d * q.Coupling(int(l), int(u))
				case u == l:
					su[i] = -su[i]
				}
			}
		}
		rev[nw-1-w] = lf
	}
}

// Undo flips the bits of path back in reverse order (see
// saw.FastReverser); the energy returns exactly to its value before the
// recorded walks.
func (e *Engine) Undo(path []int32) {
	for i := len(path) - 1; i >= 0; i-- {
		e.flipFields(int(path[i]))
	}
	if e0, ok := e.rec.E0(len(path)); ok {
		e.e = e0
	}
	e.stale = true
	e.rec.Invalidate()
}

func resize32(x []int32, n int) []int32 {
	if cap(x) < n {
		return make([]int32, n)
	}
	return x[:n]
}

func resize8(x []int8, n int) []int8 {
	if cap(x) < n {
		return make([]int8, n)
	}
	return x[:n]
}
