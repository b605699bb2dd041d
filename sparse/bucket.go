package sparse

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"weak"

	"sardonics/internal/state"
	"sardonics/model"
	"sardonics/rng"
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
// by swapping with the last); a draw at bias b computes
// Z(gamma_b) = sum_c count_c w_c and picks a class by a linear scan, then
// a member uniformly. The normalizer at the other bias is the same sum
// with the other class weights. dE is tracked per bit as an exact integer
// (in units of 2g, g the gcd of all couplings and fields), so weights and
// the energy are exact functions of the state.
type Bucket struct {
	m     *model.Ising
	n     int
	s     []int8
	bits  []bbit
	start []int32 // m.Start
	edges []bedge // m's CSR entries with 2J/g (shared, read-only)
	g     int64
	eInt  int64 // energy without Offset, exact

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
	us    []float64  // Walk's draws for walkAsm
	rsums []walkSums // reverseAsm's sums per walk
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

type bedge struct {
	j  int32 // neighbour
	jq int32 // 2 J / g
}

var _ saw.Engine = (*Bucket)(nil)

// classes is the analysis that qualifies a model for Bucket, and the
// tables derived from it; engines share it read-only (see analysisOf).
type classes struct {
	g     int64
	qv    []int32 // possible dE/(2g), sorted
	capa  []int32 // how many bits can take each value
	edges []bedge // m's CSR entries with 2J/g
	r     int32   // |q| <= r
	cls   []uint8 // class of q at cls[q+r]
	base  []int32 // class c's members start at base[c] in an engine's mem
	total int32   // the length of mem
}

var errNotInteger = errors.New("couplings and fields are not all integers of magnitude at most 2^30")

// analyze finds the possible values of dE/(2g) of every bit: the field of
// bit i in units of g ranges over h_i/g + sum_j (+-J_ij/g), and dE = 2 s_i
// field. The sets are built coupling by coupling and abandoned as soon as
// one exceeds maxClasses.
func analyze(m *model.Ising) (*classes, error) {
	isInt := func(x float64) bool { return x == math.Trunc(x) && math.Abs(x) <= maxInt }
	g := int64(0)
	for _, x := range slices.Concat(m.H, m.J) {
		if !isInt(x) {
			return nil, errNotInteger
		}
		g = gcd(g, int64(math.Abs(x)))
	}
	if g == 0 {
		g = 1
	}
	var cur, next []int64
	union := map[int64]int32{}
	for i := range m.N {
		cur = append(cur[:0], int64(m.H[i])/g)
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			j := int64(m.J[k]) / g
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
		// q = s * field for s = +-1; count each value once per bit.
		for _, x := range cur {
			union[x]++
			if x != 0 && !slices.Contains(cur, -x) {
				union[-x]++
			}
		}
		if len(union) > maxClasses {
			return nil, fmt.Errorf("more than %d possible energy changes", maxClasses)
		}
	}
	c := &classes{g: g}
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

// derive fills the tables of c that every engine on m shares.
func (c *classes) derive(m *model.Ising) {
	c.edges = make([]bedge, len(m.J))
	for k, j := range m.J {
		c.edges[k] = bedge{m.Adj[k], int32(2 * (int64(j) / c.g))}
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

// analyses caches each model's analysis, so that the trials and samplers
// of a run (and every chain a tuner or replica set builds) share one copy
// instead of re-deriving it. Keys are weak, and an entry is dropped when
// its model is collected. Models are never modified once built.
var analyses sync.Map // weak.Pointer[model.Ising] -> analysisEntry

// analysisOf is analyze(m) with its derived tables, computed once per
// model.
func analysisOf(m *model.Ising) (*classes, error) {
	k := weak.Make(m)
	if v, ok := analyses.Load(k); ok {
		e := v.(analysisEntry)
		return e.c, e.err
	}
	c, err := analyze(m)
	if err == nil {
		c.derive(m)
	}
	v, loaded := analyses.LoadOrStore(k, analysisEntry{c, err})
	if !loaded {
		runtime.AddCleanup(m, func(k weak.Pointer[model.Ising]) { analyses.Delete(k) }, k)
	}
	e := v.(analysisEntry) // another engine's, if it got there first
	return e.c, e.err
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
		start: m.Start, edges: c.edges, g: c.g,
		qv: c.qv, r: c.r, cls: c.cls, mem: make([]int32, c.total),
		recN: -1, asm: bucketAsm,
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
	if bk.asm {
		return takeAsm(bk, l)
	}
	return bk.takeGo(l)
}

// takeGo is take in Go: the reference for takeAsm. Class indices are
// masked to maxClasses-1 (a no-op: they are below maxClasses) so that the
// per-class arrays need no bounds checks.
func (bk *Bucket) takeGo(l int32) int32 {
	bits, cls := bk.bits, bk.cls
	st := &bits[l]
	q := st.qb - bk.r
	bk.eInt += 2 * bk.g * int64(q)
	sl := -st.s
	st.s = sl
	bk.s[l] = int8(sl)
	st.qb = bk.r - q
	st.c = cls[st.qb]
	bk.tca[st.c&(maxClasses-1)]++
	mem, cla := bk.mem, &bk.cla
	for _, e := range bk.edges[bk.start[l]:bk.start[l+1]] {
		bj := &bits[e.j]
		// The field of j changes by 2 J s_l(new), its q by s_j times that.
		nw := bj.qb + e.jq*int32(sl*bj.s)
		bj.qb = nw
		oc, nc := bj.c&(maxClasses-1), cls[nw]&(maxClasses-1)
		if oc == nc {
			continue
		}
		bj.c = nc
		p := bj.pos
		if p < 0 {
			bk.tca[oc]--
			bk.tca[nc]++
			continue
		}
		// Move j from class oc (swap with its last member) to nc.
		co, cn := &cla[oc], &cla[nc]
		co.cnt--
		np := cn.base + cn.cnt
		cn.cnt++
		last := mem[co.base+co.cnt]
		mem[p] = last
		bits[last].pos = p
		mem[np] = e.j
		bj.pos = np
	}
	return q
}

func (bk *Bucket) release(path []int32) {
	for _, l := range path {
		bk.insert(l, bk.class(l))
	}
}

// norms is Z at both biases.
// Every normalizer (here, in Walk and in ReverseLogProbs) is summed in the
// same order, so that a walk scored by any of them gets the same bits.
func (bk *Bucket) norms() (z0, z1 float64) {
	cl := bk.cl
	w := bk.w[:len(cl)]
	for c := range cl {
		f := float64(cl[c].cnt)
		z0 += f * w[c][0]
		z1 += f * w[c][1]
	}
	return z0, z1
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (bk *Bucket) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > bk.n {
		panic(fmt.Sprintf("sparse: walk length %d for %d bits", k, bk.n))
	}
	start := len(path)
	var p0, p1 logProd
	var sl [2]float64
	var dq int64
	cl := bk.cl
	b &= 1
	// Record the class counts of all bits after each flip (rec), for
	// ReverseLogProbs: the ones after flip i-1 are taken at step i.
	nc := len(cl)
	if start == 0 {
		bk.recN = 0
	}
	record := bk.recN == start
	if record {
		bk.rec = slices.Grow(bk.rec[:start*nc], k*nc)[:(start+k)*nc]
		bk.recN = start + k
	} else {
		bk.recN = -1
	}
	if bk.asm && k > 0 {
		// The draws do not depend on the state: take them first, in the
		// same order, and walk in one kernel call (which also releases
		// the path and records the last row).
		u := slices.Grow(bk.us[:0], k)[:k]
		for i := range u {
			u[i] = rng.Float64(r)
		}
		bk.us = u
		path = slices.Grow(path, k)[:start+k]
		a := walkArgs{walkSums: walkSums{m: [2]float64{1, 1}}, u: &u[0], path: &path[start], k: k, b: b}
		if record {
			a.rec = &bk.rec[start*nc]
		}
		walkAsm(bk, &a)
		p0, p1 = logProd{a.m[0], a.e[0]}, logProd{a.m[1], a.e[1]}
		return path, [2]float64{a.sl[0] - p0.log(), a.sl[1] - p1.log()}, float64(2 * bk.g * a.dq)
	}
	path, p0, p1, sl, dq = bk.walkGo(r, k, b, path, record)
	bk.release(path[start:])
	if record && k > 0 {
		rc := bk.rec[(start+k-1)*nc : (start+k)*nc]
		for c := range cl {
			rc[c] = cl[c].cnt
		}
	}
	return path, [2]float64{sl[0] - p0.log(), sl[1] - p1.log()}, float64(2 * bk.g * dq)
}

// walkArgs are walkAsm's inputs and outputs: k uniform draws in [0, 1),
// the k path slots to fill, the record's row for the state before the
// walk's second flip (nil: no record), the bias index b (0 or 1), and the
// walk's sums and dE/(2g).
type walkArgs struct {
	walkSums
	u    *float64
	path *int32
	rec  *int32
	k, b int
	dq   int64
}

// walkSums are a walk's sums in a kernel: the logProd mantissas m and
// exponents e of its normalizers and its log-weights sl, each at both
// biases.
type walkSums struct {
	m  [2]float64
	e  [2]int
	sl [2]float64
}

// walkGo is the loop of Walk in Go: the reference for walkAsm.
func (bk *Bucket) walkGo(r *rand.PCG, k, b int, path []int32, record bool) ([]int32, logProd, logProd, [2]float64, int64) {
	start := len(path)
	p0, p1 := newLogProd(), newLogProd()
	var sl [2]float64
	dq := int64(0)
	cl := bk.cl
	nc := len(cl)
	w, lw := bk.w[:len(cl)], bk.lw[:len(cl)]
	tcnt := bk.tcnt[:nc]
	for i := range k {
		// Z at both biases, fused with the record when there is one (the
		// same sums in the same order as norms).
		var z0, z1 float64
		if record && i > 0 {
			rc := bk.rec[(start+i-1)*nc : (start+i)*nc]
			rc, tcnt := rc[:len(cl)], tcnt[:len(cl)]
			for c := range cl {
				n := cl[c].cnt
				rc[c] = n + tcnt[c]
				f := float64(n)
				z0 += f * w[c][0]
				z1 += f * w[c][1]
			}
		} else {
			for c := range cl {
				f := float64(cl[c].cnt)
				z0 += f * w[c][0]
				z1 += f * w[c][1]
			}
		}
		p0.mul(z0)
		p1.mul(z1)
		zb := z0
		if b == 1 {
			zb = z1
		}
		x := rng.Float64(r) * zb
		c, last := 0, -1
		for ; c < len(cl); c++ {
			if cl[c].cnt == 0 {
				continue
			}
			last = c
			t := float64(cl[c].cnt) * w[c][b]
			if x < t {
				break
			}
			x -= t
		}
		if c == len(cl) { // rounding left x just above the total
			c, x = last, 0
		}
		// The remainder, scaled by the class weight, is uniform on
		// [0, count): it picks the member without another random draw.
		i := min(int32(x/w[c][b]), cl[c].cnt-1)
		l := bk.mem[cl[c].base+i]
		sl[0] += lw[c][0]
		sl[1] += lw[c][1]
		bk.remove(l, c)
		dq += int64(bk.takeGo(l))
		path = append(path, l)
	}
	return path, p0, p1, sl, dq
}

// Replay replays path as one SAW (see saw.Engine). A path that repeats a
// bit is a programmer error and panics. Forwards, it records path as a
// move's only walk, as Walk would (see saw.FastReverser).
func (bk *Bucket) Replay(path []int32, backwards bool) ([2]float64, float64) {
	bk.recN = -1
	p0, p1 := newLogProd(), newLogProd()
	var sl [2]float64
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
		z0, z1 := bk.norms()
		p0.mul(z0)
		p1.mul(z1)
		c := bk.class(l)
		sl[0] += bk.lw[c][0]
		sl[1] += bk.lw[c][1]
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
	return [2]float64{sl[0] - p0.log(), sl[1] - p1.log()}, float64(2 * bk.g * dq)
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
	m := bk.m
	for c := range bk.cl {
		bk.cl[c].cnt = 0
	}
	bk.eInt = 0
	for i := range int32(bk.n) {
		si := int64(bk.s[i])
		f := int64(m.H[i])
		pair := int64(0)
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			sj := int64(bk.s[m.Adj[k]])
			f += int64(m.J[k]) * sj
			if m.Adj[k] > i {
				pair += int64(m.J[k]) * sj
			}
		}
		bk.eInt -= si * (pair + int64(m.H[i]))
		qb := int32(si*f/bk.g) + bk.r
		bk.bits[i] = bbit{qb: qb, s: int16(si), c: bk.cls[qb], ov: -1}
		bk.insert(i, bk.class(i))
	}
	clear(bk.tcnt) // insert counted every bit out of the unavailable ones
	bk.recN = -1
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
