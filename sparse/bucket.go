package sparse

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"sardonics/internal/memo"
	"sardonics/internal/state"
	"sardonics/model"
	"sardonics/saw"
)

// Bucket limits: at most maxClasses distinct dE values, and couplings and
// fields of magnitude at most maxInt so that every integer energy sum is
// exact in float64 and int64.
const (
	maxClasses = 64
	maxInt     = 1 << 30
	maxRange   = 1 << 20
)

// Bucket is a saw.Engine for models whose flips change the energy by few
// distinct amounts: integer couplings and fields, at most 64 classes of
// dE. Available bits sit in one array per class (O(1) insert and remove
// by swapping with the last); a draw at bias b computes the prefix sums
// of count_c w_c over the classes (their total is Z(gamma_b)), takes the
// class whose prefix interval holds u Z by comparing u Z with all of them
// at once (no branch on the data), then a member from a second uniform
// draw (pick: no divide). The normalizer at the other bias is the same sum
// with the other class weights. dE is tracked per bit as an exact integer
// (in units of 2g, g the gcd of all couplings and fields), so weights and
// the energy are exact functions of the state. A bit's neighbours are the
// model's own CSR rows (adj, start) with a small integer 2J/g per entry.
type Bucket struct {
	m     *model.Ising
	n     int
	s     []int8
	bits  []bbit
	start []int32 // m.Start
	adj   []int32 // m.Adj (the model's own array, read-only)
	deg   int32   // every row's length where all rows have one (row l starts at deg*l), else 0
	// 2J/g of each CSR entry (shared, read-only): int8 where every one
	// fits (then edges32 is nil), else int32 in edges32 (then edges is nil).
	edges   []int8
	edges32 []int32
	g       int64
	eInt    int64 // energy without Offset, exact

	r   int32   // |q| <= r
	cls []uint8 // class of q at cls[q+r] (shared, read-only)
	qv  []int32 // q of each class

	cl  []bclass // cla[:classes]
	mem []int32  // class c's bits at mem[base:base+cnt]
	cla [maxClasses]bclass
	tca [maxClasses]int32 // backs tcnt

	gam [2]float64
	wt  saw.Weight
	w   [maxClasses][2]float64 // class c at bias b: w[c][b] = exp(lw[c][b])
	lw  [maxClasses][2]float64

	// The move's record for ReverseLogProbs (see reverse.go).
	tcnt []int32           // per class: unavailable bits (tca[:classes])
	rec  []int32           // rec[p*nc+c]: bits of class c after the move's flip p
	recN int               // flips recorded since the move's first walk; -1: none
	fca  [maxClasses]int32 // per class: the reverse walk's unavailable bits
	ovl  []bover           // path bits' virtual state

	// The assembly kernels (bucket_amd64.s), used if asm; else the Go code.
	asm   bool
	pf    bool                   // prime the caches before each walk (prefetch.go)
	pp    prime                  // prime's scratch
	us    []uint64               // a walk's draws
	rsums []walkSums             // the reverse kernel's sums per walk
	pre   [maxClasses][2]float64 // a flip's prefix sums of the class weights
}

// bbit is one bit's state, kept together so a neighbour update touches one
// cache line.
type bbit struct {
	qb  int32 // dE/(2g) + r
	pos int32 // index in mem, -1 while unavailable
	ov  int32 // index in ovl during ReverseLogProbs, else -1
	s   int16 // spin
	c   uint8 // class: cls[qb]
}

type bclass struct{ base, cnt int32 }

var (
	_ saw.Engine = (*Bucket)(nil)
	_ saw.Costed = (*Bucket)(nil)
)

// Cost is the bucket engine's measured cost model (saw.CostBucket).
func (bk *Bucket) Cost() saw.Cost { return saw.CostBucket }

// classes is the analysis that qualifies a model for Bucket, and the
// tables derived from it; engines share it read-only (see analysisOf).
type classes struct {
	g       int64
	qv      []int32 // possible dE/(2g), sorted
	capa    []int32 // how many bits can take each value
	edges   []int8  // 2J/g of m's CSR entries, if all fit in an int8
	edges32 []int32 // else 2J/g here
	deg     int32   // every row's length, if all are equal; else 0
	top     int64   // the largest |J|
	r       int32   // |q| <= r
	cls     []uint8 // class of q at cls[q+r]
	base    []int32 // class c's members start at base[c] in an engine's mem
	total   int32   // the length of mem
}

var errNotInteger = errors.New("couplings and fields are not all integers of magnitude at most 2^30")

// analyze finds the possible values of dE/(2g) of every bit: the field of
// bit i in units of g ranges over h_i/g + sum_j (+-J_ij/g), and dE = 2 s_i
// field. The sets are built coupling by coupling and abandoned as soon as
// one exceeds maxClasses. A bit's set depends only on its h/g and the
// multiset of its |J|/g, so rows of up to rowKeyMax couplings are computed
// once per such key (a lattice has a handful) and counted per key.
func analyze(m *model.Ising) (*classes, error) {
	isInt := func(x float64) bool { return x == math.Trunc(x) && math.Abs(x) <= maxInt }
	g, top := int64(0), 0.0 // top: the largest |J|
	for k, xs := range [][]float64{m.H, m.J} {
		for _, x := range xs {
			if !isInt(x) {
				return nil, errNotInteger
			}
			a := math.Abs(x)
			if k == 1 && a > top {
				top = a
			}
			if g != 1 { // gcd(1, x) = 1: no division per entry once g is 1
				g = gcd(g, int64(a))
			}
		}
	}
	if g == 0 {
		g = 1
	}
	var cur, next []int64
	// qset is bit i's possible q = s * field, s = +-1, each value once.
	qset := func(i int, js []float64) ([]int64, error) {
		cur = append(cur[:0], over(int64(m.H[i]), g))
		for _, jf := range js {
			j := over(int64(jf), g)
			next = next[:0]
			for _, x := range cur {
				next = append(next, x+j, x-j)
			}
			slices.Sort(next)
			next = slices.Compact(next)
			if len(next) > maxClasses {
				return nil, fmt.Errorf("bit %d has more than %d possible energy changes", i, maxClasses)
			}
			cur, next = next, cur
		}
		q := slices.Clone(cur)
		for _, x := range cur {
			if x != 0 && !slices.Contains(cur, -x) {
				q = append(q, -x)
			}
		}
		return q, nil
	}
	union := map[int64]int32{} // value -> bits that can take it
	add := func(q []int64, n int32) error {
		for _, x := range q {
			union[x] += n
		}
		if len(union) > maxClasses {
			return fmt.Errorf("more than %d possible energy changes", maxClasses)
		}
		return nil
	}
	type rowKey struct {
		h, n int64
		j    [rowKeyMax]int64 // |J|/g, sorted
	}
	keys := map[rowKey]int{} // -> index in sets and counts
	var sets [][]int64
	var counts []int32
	// The last keys met, checked before the map: a lattice has few.
	var recent [4]rowKey
	var recentIdx [4]int
	for r := range recent {
		recent[r].n = -1
	}
	// The previous row's |h| and |J|s as the model holds them: a row
	// equal to it, entry for entry, has its set (most rows of a lattice),
	// found without the divisions and the sort. (The sets of h and -h are
	// the same: each holds the negation of its every value.)
	prevH, prevJ, prevIdx := 0.0, []float64(nil), -1 // prevIdx -1: none yet
	for i := range m.N {
		js := m.J[m.Start[i]:m.Start[i+1]]
		if prevIdx >= 0 && math.Abs(m.H[i]) == prevH && sameAbs(js, prevJ) {
			counts[prevIdx]++
			continue
		}
		prevIdx = -1
		if len(js) > rowKeyMax {
			q, err := qset(i, js)
			if err == nil {
				err = add(q, 1)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		k := rowKey{h: over(int64(m.H[i]), g), n: int64(len(js))}
		for a, jf := range js {
			v := abs64(over(int64(jf), g))
			b := a
			for ; b > 0 && k.j[b-1] > v; b-- {
				k.j[b] = k.j[b-1]
			}
			k.j[b] = v
		}
		idx := -1
		for r := range recent {
			if recent[r] == k {
				idx = recentIdx[r]
				break
			}
		}
		if idx < 0 {
			var ok bool
			if idx, ok = keys[k]; !ok {
				q, err := qset(i, js)
				if err == nil {
					err = add(q, 0) // counted below, per key
				}
				if err != nil {
					return nil, err
				}
				idx = len(sets)
				keys[k] = idx
				sets, counts = append(sets, q), append(counts, 0)
			}
			copy(recent[1:], recent[:3])
			copy(recentIdx[1:], recentIdx[:3])
			recent[0], recentIdx[0] = k, idx
		}
		counts[idx]++
		prevH, prevJ, prevIdx = math.Abs(m.H[i]), js, idx
	}
	for k, q := range sets {
		if err := add(q, counts[k]); err != nil {
			return nil, err
		}
	}
	c := &classes{g: g, top: int64(top)}
	for x := range union {
		if x > maxRange || x < -maxRange {
			return nil, fmt.Errorf("energy change %d outside +-%d", 2*g*x, 2*g*maxRange)
		}
		c.qv = append(c.qv, int32(x))
	}
	slices.Sort(c.qv)
	for _, x := range c.qv {
		c.capa = append(c.capa, union[int64(x)])
	}
	return c, nil
}

// sameAbs reports whether a and b have the same length and the same
// magnitudes entry for entry.
func sameAbs(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if math.Abs(x) != math.Abs(b[k]) {
			return false
		}
	}
	return true
}

// rowKeyMax is the longest row analyze computes once per key.
const rowKeyMax = 8

// derive fills the tables of c that every engine on m shares.
func (c *classes) derive(m *model.Ising) {
	g := c.g
	if 2*(c.top/g) <= math.MaxInt8 {
		c.edges = make([]int8, len(m.J))
		for k, j := range m.J {
			c.edges[k] = int8(2 * over(int64(j), g))
		}
	} else {
		c.edges32 = make([]int32, len(m.J))
		for k, j := range m.J {
			c.edges32[k] = int32(2 * over(int64(j), g))
		}
	}
	c.deg = m.Start[1] - m.Start[0]
	for i := range m.N {
		if m.Start[i+1]-m.Start[i] != c.deg || m.Start[i] != int32(i)*c.deg {
			c.deg = 0
			break
		}
	}
	nc := len(c.qv)
	c.r = max(-c.qv[0], c.qv[nc-1])
	c.cls = make([]uint8, 2*c.r+1)
	for i, x := range c.qv {
		c.cls[x+c.r] = uint8(i)
		c.base = append(c.base, c.total)
		c.total += c.capa[i]
	}
}

// analysisEntry is a cached analyze result.
type analysisEntry struct {
	c   *classes
	err error
}

// analyses keeps each model's analysis while the model lives, so that the
// trials and samplers of a run (and every chain a tuner or replica set
// builds) share one copy instead of re-deriving it.
var analyses memo.Weak[model.Ising, analysisEntry]

// analysisOf is analyze(m) with its derived tables, computed once per
// model.
func analysisOf(m *model.Ising) (*classes, error) {
	e := analyses.Get(m, func(m *model.Ising) analysisEntry {
		c, err := analyze(m)
		if err == nil {
			c.derive(m)
		}
		return analysisEntry{c, err}
	})
	return e.c, e.err
}

func abs64(x int64) int64 { return max(x, -x) }

// over is x/g, without the division where g = 1 (most models: the
// division was most of a 10^6-spin model's derive and SetSpins).
func over(x, g int64) int64 {
	if g == 1 {
		return x
	}
	return x / g
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Qualifies reports whether NewBucket accepts m: all couplings and fields
// are integers (|x| <= 2^30) and flips change the energy by at most 64
// distinct amounts.
func Qualifies(m *model.Ising) bool {
	_, err := analysisOf(m)
	return err == nil
}

// NewBucket returns a bucketed engine for m started at init (copied; nil
// means all +1), or an error if m does not qualify (see Qualifies). Its
// biases start at gamma_L = gamma_H = 1 with the logistic weight. It
// panics if init has the wrong length or a value other than -1 or +1.
func NewBucket(m *model.Ising, init []int8) (*Bucket, error) {
	c, err := analysisOf(m)
	if err != nil {
		return nil, fmt.Errorf("bucket engine: %w", err)
	}
	nc := len(c.qv)
	bk := &Bucket{
		m: m, n: m.N, s: initSpins(m, init), bits: make([]bbit, m.N),
		start: m.Start, adj: m.Adj, deg: c.deg, edges: c.edges, edges32: c.edges32, g: c.g,
		qv: c.qv, r: c.r, cls: c.cls, mem: make([]int32, c.total),
		recN: -1, asm: bucketAsm, pf: bucketAsm && m.N >= prefetchMin,
	}
	bk.cl, bk.tcnt = bk.cla[:nc], bk.tca[:nc]
	for i := range nc {
		bk.cl[i].base = c.base[i]
	}
	bk.setBiases(1, 1, saw.Logistic)
	bk.SetSpins(bk.s)
	return bk, nil
}

// N is the number of bits.
func (bk *Bucket) N() int { return bk.n }

// SetBiases sets gamma_L, gamma_H and the weight: O(classes).
func (bk *Bucket) SetBiases(gammaL, gammaH float64, w saw.Weight) {
	if bk.gam != [2]float64{gammaL, gammaH} || bk.wt != w {
		bk.setBiases(gammaL, gammaH, w)
	}
}

func (bk *Bucket) setBiases(gammaL, gammaH float64, w saw.Weight) {
	bk.gam, bk.wt = [2]float64{gammaL, gammaH}, w
	bk.recN = -1
	for c, x := range bk.qv {
		dE := float64(2 * bk.g * int64(x))
		for b := range 2 {
			bk.lw[c][b] = saw.LogWeight(w, bk.gam[b], dE)
			bk.w[c][b] = math.Exp(bk.lw[c][b])
		}
	}
}

func (bk *Bucket) class(l int32) int { return int(bk.bits[l].c) }

func (bk *Bucket) insert(l int32, c int) {
	cl := &bk.cl[c]
	p := cl.base + cl.cnt
	bk.mem[p] = l
	bk.bits[l].pos = p
	cl.cnt++
	bk.tcnt[c]--
}

func (bk *Bucket) remove(l int32, c int) {
	cl := &bk.cl[c]
	cl.cnt--
	p := bk.bits[l].pos
	last := bk.mem[cl.base+cl.cnt]
	bk.mem[p] = last
	bk.bits[last].pos = p
	bk.bits[l].pos = -1
}

// take flips bit l (already removed from its class) and moves its
// available neighbours to their new classes. It returns dE/(2g).
func (bk *Bucket) take(l int32) int32 {
	switch {
	case bk.asm && bk.edges != nil:
		return takeAsm8(bk, l)
	case bk.asm:
		return takeAsm32(bk, l)
	case bk.edges != nil:
		return take(bk, bk.edges, l)
	}
	return take(bk, bk.edges32, l)
}

// release makes the bits of path available again, last first.
func (bk *Bucket) release(path []int32) {
	for i := len(path) - 1; i >= 0; i-- {
		l := path[i]
		bk.insert(l, bk.class(l))
	}
}

// norms is Z at both biases.
// Every normalizer (here, in Walk and in ReverseLogProbs) is summed in the
// same order, so that a walk scored by any of them gets the same bits.
func (bk *Bucket) norms() (z0, z1 float64) {
	cl, w := bk.cl, &bk.w
	for c := range cl {
		f := float64(cl[c].cnt)
		z0 += f * w[c&(maxClasses-1)][0]
		z1 += f * w[c&(maxClasses-1)][1]
	}
	return z0, z1
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (bk *Bucket) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > bk.n {
		panic(fmt.Sprintf("sparse: walk length %d for %d bits", k, bk.n))
	}
	start := len(path)
	b &= 1
	// Record the class counts of all bits after each flip (rec), for
	// ReverseLogProbs: the ones after flip i-1 are taken at step i.
	nc := len(bk.cl)
	if start == 0 {
		bk.recN = 0
	}
	var rec []int32
	if bk.recN == start {
		bk.rec = slices.Grow(bk.rec[:start*nc], k*nc)[:(start+k)*nc]
		bk.recN = start + k
		rec = bk.rec[start*nc:]
	} else {
		bk.recN = -1
	}
	// The draws do not depend on the state: take them all first (two per
	// flip, class then member; pick rarely takes more, after these), so
	// that a large engine can guess the walk's picks (see prime).
	u := slices.Grow(bk.us[:0], 2*k)[:2*k]
	if bk.asm {
		drawPCG(r, u)
	} else {
		draw(r, u)
	}
	bk.us = u
	path = slices.Grow(path, k)
	ws := newWalkSums()
	var dq int64
	switch {
	case bk.asm && k > 0:
		path = path[:start+k]
		a := walkArgs{ws: ws, u: &u[0], path: &path[start], k: k, b: b}
		if rec != nil {
			a.rec = &rec[0]
		}
		if bk.pf {
			bk.prime(u, b)
		}
		bk.walkAsm(&a, u, r)
		ws, dq = a.ws, a.dq
		return path, ws.logs(), float64(2 * bk.g * dq)
	case bk.edges != nil:
		path, dq = walk(bk, bk.edges, r, u, b, path, rec, &ws)
	default:
		path, dq = walk(bk, bk.edges32, r, u, b, path, rec, &ws)
	}
	bk.release(path[start:])
	if rec != nil && k > 0 {
		rc := rec[(k-1)*nc : k*nc]
		for c := range rc {
			rc[c] = bk.cla[c].cnt
		}
	}
	return path, ws.logs(), float64(2 * bk.g * dq)
}

// walkAsm runs a walk's kernel on the draws u from flip a.t on: where
// every field of a member draw is rejected (see pick), it draws as pick
// does, puts the result in u (pick takes it as its first field) and goes
// on from that flip.
func (bk *Bucket) walkAsm(a *walkArgs, u []uint64, r *rand.PCG) {
	for {
		if bk.edges != nil {
			walkAsm8(bk, a)
		} else {
			walkAsm32(bk, a)
		}
		if a.t == a.k {
			return
		}
		u[2*a.t+1] = pickFresh(uint64(a.n), r)
	}
}

// drawPCG is draw by pcgFill. The state goes out through the generator's
// binary form ("pcg:", then hi and lo big-endian) and back by Seed, which
// sets hi and lo (rand.NewPCG).
func drawPCG(r *rand.PCG, u []uint64) {
	if len(u) == 0 {
		return
	}
	var buf [20]byte
	b, _ := r.AppendBinary(buf[:0])
	st := [2]uint64{binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])}
	pcgFill(&st, &u[0], len(u))
	r.Seed(st[0], st[1])
}

// draw fills u with draws from r (through a local copy of the generator,
// which the compiler keeps closer than *r).
func draw(r *rand.PCG, u []uint64) {
	p := *r
	for i := range u {
		u[i] = p.Uint64()
	}
	*r = p
}

// walkArgs are the walk kernels' inputs and outputs: the draws u[:2k],
// the k path slots to fill, the record's rows (nil: no record), the bias
// index b (0 or 1), the flip t to go on from (on return k, or the flip
// whose member draw pick rejected, and n that flip's class count), and the
// walk's sums and dE/(2g) so far.
type walkArgs struct {
	ws   walkSums
	u    *uint64
	path *int32
	rec  *int32
	k, b int
	t, n int
	dq   int64
}

// walkSums are a walk's sums at both biases: the product of its
// normalizers as a mantissa m in [0.5, 1) and a binary exponent e (as in
// tlogProd: no logarithm per flip), and the sum sl of its log-weights.
// The kernels hold each pair in one register.
type walkSums struct {
	m  [2]float64
	e  [2]int64
	sl [2]float64
}

// newWalkSums is the empty walk: products 1 = 0.5 * 2^1.
func newWalkSums() walkSums { return walkSums{m: [2]float64{0.5, 0.5}, e: [2]int64{1, 1}} }

// mul multiplies the products by the normalizers z0, z1 (positive normal
// numbers, so m z is one too).
func (ws *walkSums) mul(z0, z1 float64) {
	for b, z := range [2]float64{z0, z1} {
		x := math.Float64bits(ws.m[b] * z)
		ws.e[b] += int64(x>>52) - 1022
		ws.m[b] = math.Float64frombits(x&(1<<52-1) | 1022<<52)
	}
}

// logs is the walk's log-probability at both biases.
func (ws *walkSums) logs() [2]float64 {
	var lf [2]float64
	for b := range lf {
		lf[b] = ws.sl[b] - (logHalf(ws.m[b]) + float64(ws.e[b])*math.Ln2)
	}
	return lf
}

// Replay replays path as one SAW (see saw.Engine). A path that repeats a
// bit is a programmer error and panics. Forwards, it records path as a
// move's only walk, as Walk would (see saw.FastReverser).
func (bk *Bucket) Replay(path []int32, backwards bool) ([2]float64, float64) {
	bk.recN = -1
	ws := newWalkSums()
	dq := int64(0)
	nc := len(bk.cl)
	if !backwards {
		bk.rec = slices.Grow(bk.rec[:0], len(path)*nc)[:len(path)*nc]
	}
	for i := range path {
		if !backwards && i > 0 {
			rc := bk.rec[(i-1)*nc : i*nc]
			for c := range rc {
				rc[c] = bk.cl[c].cnt + bk.tcnt[c]
			}
		}
		l := path[i]
		if backwards {
			l = path[len(path)-1-i]
		}
		if bk.bits[l].pos < 0 {
			panic(fmt.Sprintf("sparse: replayed walk visits bit %d twice", l))
		}
		ws.mul(bk.norms())
		c := bk.class(l)
		ws.sl[0] += bk.lw[c][0]
		ws.sl[1] += bk.lw[c][1]
		bk.remove(l, c)
		dq += int64(bk.take(l))
	}
	bk.release(path)
	if !backwards {
		if n := len(path); n > 0 {
			rc := bk.rec[(n-1)*nc : n*nc]
			for c := range rc {
				rc[c] = bk.cl[c].cnt
			}
		}
		bk.recN = len(path)
	}
	return ws.logs(), float64(2 * bk.g * dq)
}

// Flip flips the bits of path in order with no probability bookkeeping.
func (bk *Bucket) Flip(path []int32) {
	bk.recN = -1
	for _, l := range path {
		bk.remove(l, bk.class(l))
		bk.take(l)
		bk.insert(l, bk.class(l))
	}
}

// Energy is the current energy (Offset included); exact.
func (bk *Bucket) Energy() float64 { return float64(bk.eInt) + bk.m.Offset }

// Spins is the current state (read only).
func (bk *Bucket) Spins() []int8 { return bk.s }

// SetSpins replaces the state and recomputes everything from the model.
func (bk *Bucket) SetSpins(s []int8) {
	if len(s) != bk.n {
		panic(fmt.Sprintf("sparse: %d spins for %d variables", len(s), bk.n))
	}
	copy(bk.s, s)
	for c := range bk.cl {
		bk.cl[c].cnt = 0
	}
	if bk.edges != nil {
		bk.eInt = setSpins(bk, bk.edges)
	} else {
		bk.eInt = setSpins(bk, bk.edges32)
	}
	clear(bk.tcnt) // insert counted every bit out of the unavailable ones
	bk.recN = -1
}

// setSpins fills every bit's state from the spins bk.s and puts the bits
// in their classes in index order; it returns the energy without Offset.
// It works in the engine's integers (2J/g per entry), not the model's
// float64 couplings: one pass over 1/8 of the bytes, no division per bit
// where g = 1.
func setSpins[E coef](bk *Bucket, jq []E) int64 {
	m, sp, g := bk.m, bk.s, bk.g
	var e2 int64 // -2 E/g: 2 sum_i s_i (h_i/g + sum_{j>i} J_ij s_j/g)
	for i := range int32(bk.n) {
		si := int64(sp[i])
		h := over(int64(m.H[i]), g)
		lo, hi := bk.row(i)
		f2, pair2 := 2*h, int64(0) // 2 field/g, 2 sum_{j>i} J s_j/g
		for k := lo; k < hi; k++ {
			j := bk.adj[k]
			x := int64(jq[k]) * int64(sp[j])
			f2 += x
			pair2 += x & -int64(b2i(j > i)) // no branch on the row's order
		}
		e2 += si * (pair2 + 2*h)
		qb := int32(si*f2/2) + bk.r
		bk.bits[i] = bbit{qb: qb, s: int16(si), c: bk.cls[qb], ov: -1}
		bk.insert(i, bk.class(i))
	}
	return -e2 / 2 * g
}

var _ saw.StateEngine = (*Bucket)(nil)

// AppendState appends the spins and the order of every class's members
// (the only part of the state that depends on the order of past flips;
// see saw.StateEngine).
func (bk *Bucket) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Int8s(bk.s)
	w.Int32s(bk.mem)
	return w.B
}

// RestoreState restores a state AppendState wrote (see saw.StateEngine).
func (bk *Bucket) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	s := make([]int8, bk.n)
	mem := make([]int32, len(bk.mem))
	r.Spins(s)
	r.Int32s(mem)
	if err := r.Err(); err != nil {
		return err
	}
	bk.SetSpins(s)
	// Every class must list exactly its members, each once.
	seen := make([]bool, bk.n)
	for c, cl := range bk.cl {
		for p := cl.base; p < cl.base+cl.cnt; p++ {
			l := mem[p]
			if l < 0 || int(l) >= bk.n || seen[l] || bk.class(l) != c {
				return errors.New("sparse: state's class lists do not match its spins")
			}
			seen[l] = true
		}
	}
	copy(bk.mem, mem)
	for _, cl := range bk.cl {
		for p := cl.base; p < cl.base+cl.cnt; p++ {
			bk.bits[bk.mem[p]].pos = p
		}
	}
	return nil
}
