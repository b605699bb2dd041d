package sparse

import (
	"fmt"
	"slices"

	"sardonics/saw"
)

var (
	_ saw.FastReverser = (*Bucket)(nil)
	_ saw.FastReverser = (*Tree)(nil)
)

// bover is a path bit's virtual state while ReverseLogProbs un-flips the
// move: its dE/(2g) + r, its spin, and whether it is among the bits the
// current reverse walk has already flipped (unavailable to it).
type bover struct {
	qb, s int32
	used  bool
}

// ReverseLogProbs scores the move's reverse path without replaying it (see
// saw.FastReverser). Walk recorded the class counts of all bits after each
// flip; reverse walk step m (flipping sigma_m back from state u_m) sees all
// bits but sigma_(m+1..k) of its walk, so its class counts are the record
// at u_m less the classes of those bits at u_m. Those are tracked by
// un-flipping the path virtually, last walk first, on an overlay of the
// path bits' dE and spins; the other bits' spins are the same at every
// state of the move. The counts equal Replay's exactly and the sums are
// formed in the same order, so the results are bit for bit Replay's.
func (bk *Bucket) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	nw := len(bounds) - 1
	if bk.recN != len(path) || nw < 0 || bounds[0] != 0 || bounds[nw] != len(path) || len(rev) < nw {
		return false
	}
	for wk := range nw {
		if bounds[wk] > bounds[wk+1] {
			panic(fmt.Sprintf("sparse: walk bounds %v", bounds))
		}
	}
	if bk.asm && len(path) > 0 {
		// The kernels trust path: check it as the Go code's indexing
		// would.
		for _, l := range path {
			if uint(l) >= uint(bk.n) {
				panic(fmt.Sprintf("sparse: bit %d of %d in a reverse path", l, bk.n))
			}
		}
		bk.ovl = slices.Grow(bk.ovl[:0], len(path))[:len(path)]
		bk.rsums = slices.Grow(bk.rsums[:0], nw)[:nw]
		a := revAllArgs{path: &path[0], n: len(path), bounds: &bounds[0], nw: nw, sums: &bk.rsums[0]}
		if bk.edges != nil {
			reverseAsm8(bk, &a)
		} else {
			reverseAsm32(bk, &a)
		}
		for wk := range bk.rsums {
			rev[nw-1-wk] = bk.rsums[wk].logs()
		}
		return true
	}
	bits := bk.bits
	ovl := bk.ovl[:0]
	for _, l := range path {
		if b := &bits[l]; b.ov < 0 {
			b.ov = int32(len(ovl))
			ovl = append(ovl, bover{qb: b.qb, s: int32(b.s)})
		}
	}
	bk.ovl = ovl
	nc := len(bk.cl)
	for wk := nw - 1; wk >= 0; wk-- {
		seg := path[bounds[wk]:bounds[wk+1]]
		clear(bk.fca[:nc])
		ws := newWalkSums()
		rec := bk.rec[bounds[wk]*nc : bounds[wk+1]*nc]
		if bk.edges != nil {
			reverse(bk, bk.edges, seg, rec, &ws)
		} else {
			reverse(bk, bk.edges32, seg, rec, &ws)
		}
		for _, l := range seg {
			ovl[bits[l].ov].used = false
		}
		rev[nw-1-wk] = ws.logs()
	}
	for _, l := range path {
		bits[l].ov = -1
	}
	return true
}

// revAllArgs are the reverse kernels' inputs: the move's path[:n], its
// walks' bounds[:nw+1] (checked), and sums[:nw] for each walk's sums.
type revAllArgs struct {
	path   *int32
	n      int
	bounds *int
	nw     int
	sums   *walkSums
}

// reverse scores one reverse walk of ReverseLogProbs (the path bits'
// overlay set up, fca cleared). rec holds the record's rows of seg's
// flips.
func reverse[E coef](bk *Bucket, jq []E, seg []int32, rec []int32, ws *walkSums) {
	bits, cls, ovl := bk.bits, bk.cls, bk.ovl
	nc := len(bk.cl)
	w := &bk.w
	fcnt := &bk.fca // indexed by class & (maxClasses-1): no bounds checks
	r2 := 2 * bk.r
	for m := len(seg) - 1; m >= 0; m-- {
		rc := rec[m*nc : (m+1)*nc]
		var z0, z1 float64
		for c := range rc { // the order of Bucket.norms
			f := float64(rc[c] - fcnt[c&(maxClasses-1)])
			z0 += f * w[c&(maxClasses-1)][0]
			z1 += f * w[c&(maxClasses-1)][1]
		}
		ws.mul(z0, z1)
		l := seg[m]
		o := &ovl[bits[l].ov]
		c := cls[o.qb] & (maxClasses - 1)
		ws.sl[0] += bk.lw[c][0]
		ws.sl[1] += bk.lw[c][1]
		// Un-flip l: its q changes sign, its neighbours' q by
		// 2 J s_l(new) s_j / (2g).
		s := -o.s
		o.s = s
		o.qb = r2 - o.qb
		lo, hi := bk.row(l)
		adj := bk.adj[lo:hi]
		jr := jq[lo:hi]
		jr = jr[:len(adj)]
		for e, j := range adj {
			k := bits[j].ov
			if k < 0 {
				continue
			}
			oj := &ovl[k]
			old := oj.qb
			nq := old + int32(jr[e])*s*oj.s
			oj.qb = nq
			if oj.used {
				fcnt[cls[old]&(maxClasses-1)]--
				fcnt[cls[nq]&(maxClasses-1)]++
			}
		}
		o.used = true
		fcnt[cls[o.qb]&(maxClasses-1)]++
	}
}

// FastAcceptance is where the fast reverse pays (see saw.FastReverser):
// measured on 2D and 3D lattices, it costs about 40 ns per flip more than
// replaying on a rejected move and saves about 160 on an accepted one.
func (bk *Bucket) FastAcceptance() float64 { return 0.25 }

// Undo flips the bits of path in reverse order (see saw.FastReverser).
func (bk *Bucket) Undo(path []int32) {
	bk.recN = -1
	for i := len(path) - 1; i >= 0; i-- {
		l := path[i]
		bk.remove(l, bk.class(l))
		bk.take(l)
		bk.insert(l, bk.class(l))
	}
}
