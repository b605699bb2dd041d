package sparse

import "slices"

// tover is a path bit's virtual state while the tree's ReverseLogProbs
// un-flips the move: its table index, and its index in the current reverse
// walk (-1 if not in it).
type tover struct {
	cur, wpos int32
}

// revGuard bounds the cancellation the tree's ReverseLogProbs accepts: a
// reverse normalizer is a recorded forward sum R less the weights of some
// of the walk's later bits plus those of its earlier ones, and the move
// falls back to Replay when R less the later bits is below R/revGuard. Each
// normalizer then has a relative error below about
// revGuard (depth + k + 2) 2^-53, under 1e-11 for walks of up to 60 bits
// on up to 1e8 bits (Replay's: about depth 2^-53). The guard only fires
// when the walk's later bits carry nearly all the weight of the bits
// available, as when walks cover much of a small model.
const revGuard = 1024

// ReverseLogProbs scores the move's reverse path without replaying it (see
// saw.FastReverser); table mode only. Walk recorded after each flip m < k
// the sum R_m over the bits available then, all but the walk's earlier
// bits sigma_(1..m), less the next pick sigma_(m+1) (summed without
// subtraction). Reverse step m (flipping sigma_m back from state u_m) sees
// all bits but sigma_(m+1..k), so its normalizer is R_m plus the weights of
// sigma_(1..m) less those of sigma_(m+2..k), all at u_m (at m = k: the
// root Walk recorded, all bits available). The
// path bits' table indices at u_m are tracked by un-flipping the path
// virtually, last walk first; the other bits' spins are the same at every
// state of the move. It returns false (and the move replays) in direct
// mode and when the cancellation is too large (see revGuard).
func (t *Tree) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	nw := len(bounds) - 1
	if !t.tabled || t.recN != len(path) || nw < 0 || bounds[0] != 0 || bounds[nw] != len(path) || len(rev) < nw {
		return false
	}
	ovix, cur := t.ovix, t.cur
	ovl := t.ovl[:0]
	for _, l := range path {
		if ovix[l] < 0 {
			ovix[l] = int32(len(ovl))
			ovl = append(ovl, tover{cur: cur[l], wpos: -1})
		}
	}
	t.ovl = ovl
	edges, start, rec := t.edges, t.m.Start, t.rec
	ok := true
	for wk := nw - 1; wk >= 0 && ok; wk-- {
		seg := path[bounds[wk]:bounds[wk+1]]
		k := len(seg)
		ww := &t.ww
		ww.reset(k)
		for j, l := range seg {
			o := &ovl[ovix[l]]
			o.wpos = int32(j)
			ww.n[ww.p+j] = t.entry(o.cur).w
		}
		ww.build()
		z0, z1 := newLogProd(), newLogProd()
		var sl [2]float64
		for m := k - 1; m >= 0; m-- {
			z := rec[bounds[wk]+m]
			if m < k-1 {
				sp, sf := ww.sum(0, m+1), ww.sum(m+2, k)
				for b := range 2 {
					a := z[b] - sf[b]
					if !(a*revGuard >= z[b]) {
						ok = false
					}
					z[b] = a + sp[b]
				}
				if !ok {
					break
				}
			}
			z0.mul(z[0])
			z1.mul(z[1])
			l := seg[m]
			o := &ovl[ovix[l]]
			lw := t.entry(o.cur).lw
			sl[0] += lw[0]
			sl[1] += lw[1]
			// Un-flip l: its own spin bit and its bit in each
			// neighbour's index.
			o.cur ^= 1
			ww.set(m, t.entry(o.cur).w)
			for _, e := range edges[start[l]:start[l+1]] {
				x := ovix[e.j]
				if x < 0 {
					continue
				}
				oj := &ovl[x]
				oj.cur ^= e.mask
				if oj.wpos >= 0 {
					ww.set(int(oj.wpos), t.entry(oj.cur).w)
				}
			}
		}
		for _, l := range seg {
			ovl[ovix[l]].wpos = -1
		}
		rev[nw-1-wk] = [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}
	}
	for _, l := range path {
		ovix[l] = -1
	}
	return ok
}

// entry is table entry c with its weights filled at the current biases.
func (t *Tree) entry(c int32) *entry {
	e := &t.tab[c]
	if e.epoch != t.epoch {
		t.fill(e)
	}
	return e
}

// FastAcceptance is where the fast reverse pays (see saw.FastReverser):
// measured on 2D lattices and Chimera graphs, it costs about 90 ns per flip
// more than replaying on a rejected move and saves about 220 on an accepted
// one.
func (t *Tree) FastAcceptance() float64 { return 0.4 }

// Undo flips the bits of path in reverse order (see saw.FastReverser); the
// journal restores the energy exactly.
func (t *Tree) Undo(path []int32) { t.flipPath(path, true) }

// wtree is a binary sum tree over the weights (at both biases) of a
// reverse walk's bits, so that the tree's ReverseLogProbs gets the sums
// over its earlier and later bits in O(log k) per step, not O(k). As in
// Tree, parents are recomputed from their children: sums never drift.
type wtree struct {
	p int          // leaves: a power of two >= k; leaf j is n[p+j]
	n [][2]float64 // n[1] is the root
}

// reset makes k zero leaves.
func (w *wtree) reset(k int) {
	w.p = 1
	for w.p < k {
		w.p *= 2
	}
	w.n = slices.Grow(w.n[:0], 2*w.p)[:2*w.p]
	clear(w.n)
}

// build computes every parent from the leaves.
func (w *wtree) build() {
	for i := w.p - 1; i >= 1; i-- {
		a, b := w.n[2*i], w.n[2*i+1]
		w.n[i] = [2]float64{a[0] + b[0], a[1] + b[1]}
	}
}

// set sets leaf j and recomputes its ancestors.
func (w *wtree) set(j int, v [2]float64) {
	i := w.p + j
	w.n[i] = v
	for i > 1 {
		i >>= 1
		a, b := w.n[2*i], w.n[2*i+1]
		w.n[i] = [2]float64{a[0] + b[0], a[1] + b[1]}
	}
}

// sum is the sum of leaves lo..hi-1.
func (w *wtree) sum(lo, hi int) [2]float64 {
	var r [2]float64
	for l, h := lo+w.p, hi+w.p; l < h; l, h = l>>1, h>>1 {
		if l&1 == 1 {
			r[0] += w.n[l][0]
			r[1] += w.n[l][1]
			l++
		}
		if h&1 == 1 {
			h--
			r[0] += w.n[h][0]
			r[1] += w.n[h][1]
		}
	}
	return r
}
