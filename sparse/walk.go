package sparse

import (
	"math/bits"
	"math/rand/v2"
)

// coef is the type of the engine's per-edge 2J/g.
type coef interface{ ~int8 | ~int32 }

// walk is the loop of Walk in Go, the reference for the kernels of
// bucket_amd64.s: len(u)/2 flips at bias b from the draws u (two per
// flip), appended to path (whose capacity Walk reserved). rec, if not nil,
// receives before flip t > 0 the class counts of all bits (row t-1). It
// returns the path and the walk's dE/(2g), and adds to ws.
func walk[E coef](bk *Bucket, jq []E, r *rand.PCG, u []uint64, b int, path []int32, rec []int32, ws *walkSums) ([]int32, int64) {
	nc := len(bk.cl)
	cla, tca, w, lw := &bk.cla, &bk.tca, &bk.w, &bk.lw
	mem, bt := bk.mem, bk.bits
	var dq int64
	pr := bk.pre[:nc]
	b &= 1
	for t := 0; t+1 < len(u); t += 2 {
		// Z at both biases and their prefix sums over the classes, fused
		// with the record when there is one (the sums of norms, in its
		// order).
		var z0, z1 float64
		if rec != nil && t > 0 {
			rc := rec[(t/2-1)*nc : t/2*nc]
			rc = rc[:len(pr)]
			for c := range pr {
				n := cla[c&(maxClasses-1)].cnt
				rc[c] = n + tca[c&(maxClasses-1)]
				f := float64(n)
				z0 += f * w[c&(maxClasses-1)][0]
				z1 += f * w[c&(maxClasses-1)][1]
				pr[c] = [2]float64{z0, z1}
			}
		} else {
			for c := range pr {
				f := float64(cla[c&(maxClasses-1)].cnt)
				z0 += f * w[c&(maxClasses-1)][0]
				z1 += f * w[c&(maxClasses-1)][1]
				pr[c] = [2]float64{z0, z1}
			}
		}
		// The class: the number of prefix sums at or below x = u Z, all
		// compared at once (an empty class repeats a prefix and is
		// skipped). Rounding can leave x at the total.
		x := float64(u[t]>>11) * 0x1p-53 * pr[nc-1][b]
		c := 0
		for i := range pr {
			c += b2i(pr[i][b] <= x)
		}
		if c >= nc {
			c = lastNonEmpty(cla[:nc])
		}
		cl := &cla[c&(maxClasses-1)]
		p := cl.base + int32(pick(u[t+1], uint64(cl.cnt), r))
		l := mem[p]
		ws.mul(z0, z1)
		ws.sl[0] += lw[c&(maxClasses-1)][0]
		ws.sl[1] += lw[c&(maxClasses-1)][1]
		// Remove l: its slot gets the class's last member.
		cl.cnt--
		last := mem[cl.base+cl.cnt]
		mem[p] = last
		bt[last].pos = p
		bt[l].pos = -1
		dq += int64(take(bk, jq, l))
		path = append(path, l)
	}
	return path, dq
}

// lastNonEmpty is the last class with members (there is one: a walk never
// draws from an empty bucket).
func lastNonEmpty(cl []bclass) int {
	c := len(cl) - 1
	for c > 0 && cl[c].cnt == 0 {
		c--
	}
	return c
}

// pick is a uniform integer in [0, n), n > 0, from the uniform 64-bit u,
// by rejection: the first of u's s-bit fields (s = bits.Len(n-1); as many
// as fit in 64 bits, lowest first) that is below n. Unlike the high word of
// u n it stays the same when n changes a little (only a field between the
// old and the new n changes its verdict), so the walk can guess its picks
// a few flips ahead (see prime). If every field is rejected (probability
// below 2^-(64/s)), it is the high word of v n for fresh draws v from r,
// with the rejection that makes that exact (Lemire 2019, "Fast random
// integer generation in an interval", ACM TOMACS 29(1)).
func pick(u, n uint64, r *rand.PCG) uint64 {
	if v, ok := fields(u, n); ok {
		return v
	}
	return pickFresh(n, r)
}

// fields is pick from u alone: false if every field is rejected.
func fields(u, n uint64) (uint64, bool) {
	s := uint(bits.Len64(n - 1))
	if s == 0 {
		return 0, true
	}
	mask := uint64(1)<<s - 1
	for f := 64 / s; f > 0; f-- {
		if v := u & mask; v < n {
			return v, true
		}
		u >>= s
	}
	return 0, false
}

// pickFresh is pick's last resort: a uniform integer in [0, n) from fresh
// draws.
func pickFresh(n uint64, r *rand.PCG) uint64 {
	for {
		hi, lo := bits.Mul64(r.Uint64(), n)
		if lo >= n || lo >= -n%n {
			return hi
		}
	}
}

// row is bit l's range of CSR entries.
func (bk *Bucket) row(l int32) (int32, int32) {
	if d := bk.deg; d > 0 {
		return d * l, d*l + d
	}
	return bk.start[l], bk.start[l+1]
}

// take flips bit l (already removed from its class) and moves its
// available neighbours to their new classes (an unavailable one only
// changes the counts tca). It returns dE/(2g). Class indices are masked
// to maxClasses-1 (a no-op: they are below maxClasses) so that the
// per-class arrays need no bounds checks.
func take[E coef](bk *Bucket, jq []E, l int32) int32 {
	bt, cls := bk.bits, bk.cls
	st := &bt[l]
	q := st.qb - bk.r
	bk.eInt += 2 * bk.g * int64(q)
	sl := -st.s
	st.s = sl
	bk.s[l] = int8(sl)
	st.qb = bk.r - q
	st.c = cls[st.qb]
	bk.tca[st.c&(maxClasses-1)]++
	mem, cla, tca := bk.mem, &bk.cla, &bk.tca
	lo, hi := bk.row(l)
	adj := bk.adj[lo:hi]
	jr := jq[lo:hi]
	jr = jr[:len(adj)]
	for e, j := range adj {
		bj := &bt[j]
		// The field of j changes by 2 J s_l(new), its q by s_j times that.
		nw := bj.qb + int32(jr[e])*int32(sl*bj.s)
		bj.qb = nw
		oc, nc := bj.c&(maxClasses-1), cls[nw]&(maxClasses-1)
		if oc == nc {
			continue
		}
		bj.c = nc
		p := bj.pos
		if p < 0 {
			tca[oc]--
			tca[nc]++
			continue
		}
		// Move j from class oc (swap with its last member) to nc.
		co, cn := &cla[oc], &cla[nc]
		co.cnt--
		np := cn.base + cn.cnt
		cn.cnt++
		last := mem[co.base+co.cnt]
		mem[p] = last
		bt[last].pos = p
		mem[np] = j
		bj.pos = np
	}
	return q
}
