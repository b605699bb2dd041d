package sparse

import "slices"

// tover is a path bit's state: x = s F and the spin s.
type tover struct {
	x, s int32
}

// tpair is a pair of neighbours a < b in one walk (positions in the
// move's path) and the change of either's fixed-point field when the
// other goes from -1 to +1 (2 round(2^S J)).
type tpair struct {
	a, b, q int32
}

// tnb is a neighbour within a reverse walk: its index in the walk and q.
type tnb struct {
	p, q int32
}

// revScratch is ReverseLogProbs's working memory, reused.
type revScratch struct {
	w  [][2]uint64 // the walk bits' weights
	st []int32     // nb[st[i]:st[i+1]] are bit i's neighbours in the walk
	nb []tnb
}

// ReverseLogProbs scores the move's reverse path without replaying it (see
// saw.FastReverser). Walk recorded after each flip m < k-1 of a walk
// sigma_0..sigma_(k-1) the exact sum R_m of the weights of the bits
// available then, all but sigma_(0..m), less the next pick sigma_(m+1);
// after its last flip the root, all bits available; the states of its
// bits at its end; and the pairs of its bits that are neighbours. Reverse
// step m (flipping sigma_m back from state u_(m+1)) sees all bits but
// sigma_(m+1..k-1), so its normalizer is R_m plus the weights of
// sigma_(0..m) less those of sigma_(m+2..k-1), all at u_(m+1) (at m = k-1:
// the recorded root). The walk's reverse starts from the state its forward
// walk ended in (the later walks are undone first), and un-flipping its
// bits one by one changes the fields of the walk's other bits only through
// the recorded pairs (the other bits' weights are inside R_m); the two
// partial sums are kept by differences. Everything is exact integer
// arithmetic, so the normalizers are the very integers a replay computes,
// and the result equals Replay's bit for bit: it never refuses the move's
// own walks. The record is used up (the bits' states are un-flipped in
// place): a second call returns false.
func (t *Tree) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	nw := len(bounds) - 1
	if t.recN != len(path) || nw < 0 || bounds[0] != 0 || len(rev) < nw || len(t.wend) != nw {
		return false
	}
	for w, e := range t.wend {
		if bounds[w+1] != e {
			return false
		}
	}
	tb, sc := t.tb, &t.rev
	for wk := nw - 1; wk >= 0; wk-- {
		lo, hi := bounds[wk], bounds[wk+1]
		k := hi - lo
		a0 := 0
		if wk > 0 {
			a0 = t.aend[wk-1]
		}
		pairs := t.adj[a0:t.aend[wk]]
		ov := t.rx[lo:hi] // consumed: the record is invalidated below
		wv := slices.Grow(sc.w[:0], k)[:k]
		sc.w = wv
		st, nb := sc.st, sc.nb
		if len(pairs) > 0 {
			// The pairs by walk position, both ways (a counting sort).
			st = slices.Grow(st[:0], k+2)[:k+2]
			clear(st)
			for _, p := range pairs {
				st[p.a-int32(lo)+2]++
				st[p.b-int32(lo)+2]++
			}
			for i := 2; i < k+2; i++ {
				st[i] += st[i-1]
			}
			nb = slices.Grow(nb[:0], 2*len(pairs))[:2*len(pairs)]
			for _, p := range pairs {
				a, b := p.a-int32(lo), p.b-int32(lo)
				nb[st[a+1]] = tnb{b, p.q}
				st[a+1]++
				nb[st[b+1]] = tnb{a, p.q}
				st[b+1]++
			}
			sc.st, sc.nb = st, nb
		}
		// a: the weights of sigma_(0..m); c: those of sigma_(m+2..k-1).
		var a, c [2]uint64
		for i := range ov {
			w := tb.pair(ov[i].x)
			wv[i] = w
			a[0] += w[0]
			a[1] += w[1]
		}
		z0, z1 := newTLogProd(), newTLogProd()
		var sl [2]float64
		r := t.rec[lo:hi]
		for m := k - 1; m >= 0; m-- {
			z := r[m]
			if m < k-1 {
				z[0] += a[0] - c[0]
				z[1] += a[1] - c[1]
			}
			z0.mul(float64(z[0]))
			z1.mul(float64(z[1]))
			o := &ov[m]
			lw := tb.logPair(o.x)
			sl[0] += lw[0]
			sl[1] += lw[1]
			// Step m-1's ranges: a over sigma_(0..m-1), c over
			// sigma_(m+1..k-1).
			a[0] -= wv[m][0]
			a[1] -= wv[m][1]
			if m+1 < k {
				c[0] += wv[m+1][0]
				c[1] += wv[m+1][1]
			}
			// Un-flip sigma_m: its own x and its walk neighbours'.
			o.s, o.x = -o.s, -o.x
			wv[m] = tb.pair(o.x)
			if len(pairs) == 0 {
				continue
			}
			for i := st[m]; i < st[m+1]; i++ {
				e := nb[i]
				op := &ov[e.p]
				op.x += op.s * o.s * e.q
				w := tb.pair(op.x)
				d0, d1 := w[0]-wv[e.p][0], w[1]-wv[e.p][1]
				wv[e.p] = w
				if int(e.p) < m {
					a[0] += d0
					a[1] += d1
				} else {
					c[0] += d0
					c[1] += d1
				}
			}
		}
		rev[nw-1-wk] = [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}
	}
	t.recN = -1
	return true
}

// FastAcceptance is where the fast reverse pays (see saw.FastReverser).
func (t *Tree) FastAcceptance() float64 { return 0.4 }

// Undo flips the bits of path in reverse order (see saw.FastReverser); the
// journal restores the energy exactly.
func (t *Tree) Undo(path []int32) { t.flipPath(path, true) }
