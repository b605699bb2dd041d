package sparse

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"sardonics/internal/state"
	"sardonics/model"
	"sardonics/saw"
)

// Tree is a saw.Engine that draws picks from a sum-tree over the bits'
// pick weights, for any real couplings: O(log M) per draw and per changed
// weight. The weights are quantized (see the package doc): each bit keeps
// a fixed-point local field, an exact integer sum of rounded couplings
// updated in place by its neighbours' flips, and its weights at both
// biases are integers read from one small table shared by all bits (wtab)
// by a weight class, the field shifted and clamped: no exponential and no
// per-bit table in the hot loop. The tree is 16-ary (two levels of sums
// above the leaves, the root's included, up to 256 bits, three up to
// 4096) and each node holds the pair of exact uint64 sums (bias L, bias
// H) of its subtree, updated by differences: every sum is a pure function
// of the state, however it was reached, so nothing drifts and nothing is
// re-summed. A draw is an exact uniform integer below the root.
type Tree struct {
	m      *model.Ising
	n      int
	s      []int8
	energy float64
	jr     tjournal

	// The leaves: bit l's weights and state, padded with zero-weight
	// entries to a multiple of 16.
	bits []tbit
	// The sums above the leaves, level by level: node i of level d >= 1
	// (at node[off[d]+i]; off[1] = 0) sums nodes 16i..16i+15 of level
	// d-1 (level 0: the leaves), and level depth >= 2 is the root alone,
	// the last node. Every level below the root is padded with zero nodes
	// to a multiple of 16.
	depth int
	off   [maxLevels + 1]int
	node  [][2]uint64 // exact sums at both biases

	fx    fix
	start []int32 // m.Start
	edges []tedge // m's CSR entries
	wb    uint    // every weight is at most 2^wb (n 2^wb <= 2^62)

	gam   [2]float64
	wt    saw.Weight
	tb    *wtab
	cache wtabCache

	// The move's record for ReverseLogProbs (see tree_reverse.go), by
	// position p in the move's path.
	rec    [][2]uint64 // after flip p: see Walk
	rx     []tover     // the state of bit p at the end of its walk
	adj    []tpair     // neighbours within a walk, in the order met
	wend   []int       // the recorded walks' ends (positions)
	aend   []int       // len(adj) at each recorded walk's end
	recN   int         // flips recorded since the move's first walk; -1: none
	recAdj bool        // flip notes pairs
	pos    []int32     // per bit: its position in the move's path, while recorded
	rev    revScratch
}

// tbit is a leaf of the tree: what a flip of a neighbour reads and writes,
// in one place.
type tbit struct {
	w [2]uint64 // weights at both biases; 0 while unavailable (weights are >= 1)
	f float64   // the spin, as a float64 (for the energy)
	x int32     // s F, F the fixed-point field (see fix)
	s int32     // the spin
}

// tedge is CSR entry k of row i: neighbour j, the change of j's
// fixed-point field when s_i goes from -1 to +1 (2 round(2^S J_ij)), and
// the coupling itself (for the energy).
type tedge struct {
	j int32
	q int32
	J float64
}

// maxTabDegree was the degree limit of the tree's per-bit tables; the
// quantized weights have none, so every graph gets the fast reverse.
const maxTabDegree = math.MaxInt32

// maxLevels bounds the tree's depth (16^15 leaves).
const maxLevels = 15

var (
	_ saw.Engine = (*Tree)(nil)
	_ saw.Costed = (*Tree)(nil)
)

// Cost is the tree engine's measured cost model (saw.CostTree).
func (t *Tree) Cost() saw.Cost { return saw.CostTree }

// NewTree returns a sum-tree engine for m started at init (copied; nil
// means all +1). Its biases start at gamma_L = gamma_H = 1 with the
// logistic weight. It panics if init has the wrong length or a value other
// than -1 or +1.
func NewTree(m *model.Ising, init []int8) *Tree { return newTree(m, init, 0) }

// newTree is NewTree; its last argument, once a table limit that tests set
// to 0 to force a mode without tables, is ignored (there is one mode).
func newTree(m *model.Ising, init []int8, _ int) *Tree {
	n := m.N
	t := &Tree{
		m: m, n: n, s: initSpins(m, init),
		bits: make([]tbit, (n+15)&^15),
		recN: -1, pos: make([]int32, n), start: m.Start,
		wb: uint(min(52, 62-bits.Len(uint(max(n-1, 1))))),
	}
	// At least two levels above the leaves, so that level 1 (at node 0)
	// is never the root.
	size := 0
	for c := (max(n, 1) + 15) / 16; ; c = (c + 15) / 16 {
		t.depth++
		t.off[t.depth] = size
		if c == 1 && t.depth >= 2 {
			size++
			break
		}
		size += (c + 15) &^ 15
	}
	t.node = make([][2]uint64, size)
	t.fx = newFix(m)
	t.edges = make([]tedge, len(m.Adj))
	for k, j := range m.Adj {
		t.edges[k] = tedge{j: j, q: 2 * t.fx.j[k], J: m.J[k]}
	}
	t.gam, t.wt = [2]float64{1, 1}, saw.Logistic
	t.tb = t.cache.get(t.fx.s, t.wb, 1, 1, saw.Logistic)
	t.SetSpins(t.s)
	return t
}

// up adds (d0, d1) to the ancestors of leaf l from level lo on (wrapping:
// the sums they reach are exact and non-negative).
func (t *Tree) up(l, lo int, d0, d1 uint64) {
	node := t.node
	for d := lo; d <= t.depth; d++ {
		q := t.off[d&maxLevels] + l>>(4*d)
		node[q][0] += d0
		node[q][1] += d1
	}
}

// root is the sum of the available weights at both biases.
func (t *Tree) root() [2]uint64 { return t.node[len(t.node)-1] }

// flip flips bit l, updates the energy, the fixed-point fields of its
// neighbours and the weights of the available ones, and gives l's leaf
// its new weights if keep, else 0 (l becomes unavailable). The levels
// below the root are updated leaf by leaf, the root by the flip's total.
// While a move is recorded, the unavailable neighbours (earlier bits of
// the same walk) are noted as pairs for ReverseLogProbs.
func (t *Tree) flip(l int32, keep bool) {
	bs, tb, node := t.bits, t.tb, t.node
	sh := tb.sh & 31
	deep := t.depth > 2
	me := &bs[l]
	sl := -me.s
	me.s, me.f, me.x = sl, -me.f, -me.x
	t.s[l] = int8(sl)
	f := t.m.H[l]
	var dz [2]uint64 // the flip's change of the root
	taken := false   // some neighbour is unavailable
	for _, e := range t.edges[t.start[l]:t.start[l+1]] {
		b := &bs[e.j]
		f += e.J * b.f
		x := b.x + b.s*sl*e.q
		b.x = x
		if b.w[0] == 0 {
			taken = true
			continue
		}
		w := &tb.w[int(min(max(x>>sh, -tHalf), tHalf-1)+tHalf)&(tClasses-1)]
		w0, w1 := w[0], w[1]
		d0, d1 := w0-b.w[0], w1-b.w[1]
		b.w[0], b.w[1] = w0, w1
		n1 := &node[e.j>>4] // level 1 starts at node 0
		n1[0] += d0
		n1[1] += d1
		dz[0] += d0
		dz[1] += d1
		if deep {
			t.upHigh(int(e.j)>>8, d0, d1)
		}
	}
	if taken && t.recAdj {
		t.notePairs(l)
	}
	// The same sum as model.Field, in the same order.
	t.energy = t.jr.flip(l, t.energy, 2*-me.f*f)
	var w [2]uint64
	if keep {
		w = tb.pair(me.x)
	}
	d0, d1 := w[0]-me.w[0], w[1]-me.w[1]
	me.w = w
	n1 := &node[l>>4]
	n1[0] += d0
	n1[1] += d1
	if deep {
		t.upHigh(int(l)>>8, d0, d1)
	}
	r := &node[len(node)-1]
	r[0] += dz[0] + d0
	r[1] += dz[1] + d1
}

// notePairs notes bit l's unavailable neighbours as pairs of the walk
// (see ReverseLogProbs).
//
//go:noinline
func (t *Tree) notePairs(l int32) {
	for _, e := range t.edges[t.start[l]:t.start[l+1]] {
		if t.bits[e.j].w[0] == 0 {
			t.adj = append(t.adj, tpair{t.pos[e.j], t.pos[l], e.q})
		}
	}
}

// upHigh adds (d0, d1) to level-2 node p and its ancestors but the root.
func (t *Tree) upHigh(p int, d0, d1 uint64) {
	node := t.node
	for d := 2; d < t.depth; d++ {
		q := t.off[d&maxLevels] + p>>(4*(d-2))
		node[q][0] += d0
		node[q][1] += d1
	}
}

// release makes the bits of a finished walk available again. If rx is
// not nil it also records their states (the walk's end state) in it.
func (t *Tree) release(path []int32, rx []tover) {
	bs, tb, node := t.bits, t.tb, t.node
	deep := t.depth > 2
	var dz [2]uint64
	for i, l := range path {
		b := &bs[l]
		if rx != nil {
			rx[i] = tover{x: b.x, s: b.s}
		}
		w := tb.pair(b.x)
		b.w = w
		n1 := &node[l>>4]
		n1[0] += w[0]
		n1[1] += w[1]
		if deep {
			t.upHigh(int(l)>>8, w[0], w[1])
		}
		dz[0] += w[0]
		dz[1] += w[1]
	}
	r := &node[len(node)-1]
	r[0] += dz[0]
	r[1] += dz[1]
}

// rebuild recomputes every internal node from the leaves.
func (t *Tree) rebuild() {
	node := t.node
	clear(node)
	for l := range t.bits {
		w := t.bits[l].w
		t.up(l, 1, w[0], w[1])
	}
}

// N is the number of bits.
func (t *Tree) N() int { return t.n }

// SetBiases sets gamma_L, gamma_H and the weight; a change recomputes
// every leaf (O(M)).
func (t *Tree) SetBiases(gammaL, gammaH float64, w saw.Weight) {
	if t.gam == [2]float64{gammaL, gammaH} && t.wt == w {
		return
	}
	t.gam, t.wt = [2]float64{gammaL, gammaH}, w
	t.tb = t.cache.get(t.fx.s, t.wb, gammaL, gammaH, w)
	t.recN = -1
	t.refresh()
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (t *Tree) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > t.n {
		panic(fmt.Sprintf("sparse: walk length %d for %d bits", k, t.n))
	}
	e0 := t.energy
	start := len(path)
	z0, z1 := newTLogProd(), newTLogProd()
	var sl [2]float64
	node, tb := t.node, t.tb
	b &= 1
	// Record for ReverseLogProbs (see tree_reverse.go): after each flip
	// but the walk's last, the available weight but the next pick's
	// (exact), and after its last flip the root with all bits available;
	// the walk bits' states at its end; and the pairs of neighbours
	// among them.
	if start == 0 {
		t.recN = 0
		t.adj, t.wend, t.aend = t.adj[:0], t.wend[:0], t.aend[:0]
		// A move's undo needs only its own flips journaled; starting
		// afresh keeps the energy's history out of the saved state.
		t.jr.reset()
	}
	record := t.recN == start
	var rx []tover
	if record {
		t.rec = slices.Grow(t.rec[:start], k)[:start+k]
		t.rx = slices.Grow(t.rx[:start], k)[:start+k]
		rx = t.rx[start:]
		t.recN = start + k
	} else {
		t.recN = -1
	}
	t.recAdj = record
	for i := range k {
		root := t.root()
		z0.mul(float64(root[0]))
		z1.mul(float64(root[1]))
		u := uniform(r, root[b])
		q := 0
		for d := t.depth - 1; d >= 1; d-- {
			// The child is the first whose sum exceeds what is left of
			// u; the sums are exact, so it never has weight 0.
			g := t.off[d&maxLevels] + 16*q
			ch := node[g : g+16 : g+16]
			j := 0
			for u >= ch[j][b] {
				u -= ch[j][b]
				j++
			}
			q = 16*q + j
		}
		ch := t.bits[16*q : 16*q+16 : 16*q+16]
		j := 0
		for u >= ch[j].w[b] {
			u -= ch[j].w[b]
			j++
		}
		q = 16*q + j
		if record && i > 0 {
			w := ch[j].w
			t.rec[start+i-1] = [2]uint64{root[0] - w[0], root[1] - w[1]}
		}
		l := int32(q)
		lw := tb.logPair(ch[j].x)
		sl[0] += lw[0]
		sl[1] += lw[1]
		t.pos[l] = int32(start + i)
		t.flip(l, false)
		path = append(path, l)
	}
	t.release(path[start:], rx)
	t.recAdj = false
	if record {
		if k > 0 {
			t.rec[start+k-1] = t.root()
		}
		t.wend = append(t.wend, start+k)
		t.aend = append(t.aend, len(t.adj))
	}
	return path, [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}, t.energy - e0
}

// uniform is an exact uniform draw in [0, n) for n > 0 (Lemire's
// multiply-shift, with rejection).
func uniform(r *rand.PCG, n uint64) uint64 {
	for {
		hi, lo := bits.Mul64(r.Uint64(), n)
		if lo >= n || lo >= -n%n {
			return hi
		}
	}
}

// Replay replays path as one SAW (see saw.Engine). A path that repeats a
// bit is a programmer error and panics. Forwards, it records path as a
// move's only walk, as Walk would (see saw.FastReverser).
func (t *Tree) Replay(path []int32, backwards bool) ([2]float64, float64) {
	t.recN = -1
	record := !backwards
	var rx []tover
	if record {
		n := len(path)
		t.rec = slices.Grow(t.rec[:0], n)[:n]
		t.rx = slices.Grow(t.rx[:0], n)[:n]
		rx = t.rx
		t.adj, t.wend, t.aend = t.adj[:0], t.wend[:0], t.aend[:0]
	}
	t.recAdj = record
	e0 := t.energy
	z0, z1 := newTLogProd(), newTLogProd()
	var sl [2]float64
	for i := range path {
		l := path[i]
		if backwards {
			l = path[len(path)-1-i]
		}
		w := t.bits[l].w
		if w[0] == 0 {
			panic(fmt.Sprintf("sparse: replayed walk visits bit %d twice", l))
		}
		root := t.root()
		if record && i > 0 {
			t.rec[i-1] = [2]uint64{root[0] - w[0], root[1] - w[1]}
		}
		z0.mul(float64(root[0]))
		z1.mul(float64(root[1]))
		lw := t.tb.logPair(t.bits[l].x)
		sl[0] += lw[0]
		sl[1] += lw[1]
		t.pos[l] = int32(i)
		t.flip(l, false)
	}
	t.recAdj = false
	t.release(path, rx) // in any order: the sums are exact
	if record {
		n := len(path)
		if n > 0 {
			t.rec[n-1] = t.root()
		}
		t.wend = append(t.wend, n)
		t.aend = append(t.aend, len(t.adj))
		t.recN = n
	}
	return [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}, t.energy - e0
}

// Flip flips the bits of path in order with no probability bookkeeping.
func (t *Tree) Flip(path []int32) { t.flipPath(path, false) }

// flipPath flips the bits of path in order, or in reverse order if
// backwards.
func (t *Tree) flipPath(path []int32, backwards bool) {
	t.recN = -1
	for i := range path {
		l := path[i]
		if backwards {
			l = path[len(path)-1-i]
		}
		t.flip(l, true)
	}
}

// Energy is the current energy (Offset included).
func (t *Tree) Energy() float64 { return t.energy }

// Spins is the current state (read only).
func (t *Tree) Spins() []int8 { return t.s }

// SetSpins replaces the state and recomputes everything from the model.
func (t *Tree) SetSpins(s []int8) {
	if len(s) != t.n {
		panic(fmt.Sprintf("sparse: %d spins for %d variables", len(s), t.n))
	}
	copy(t.s, s)
	t.recN = -1
	t.energy = t.m.Energy(t.s)
	t.jr.reset()
	F := make([]int32, t.n)
	t.fx.fields(t.m, t.s, F)
	for i, si := range t.s {
		t.bits[i] = tbit{f: float64(si), x: int32(si) * F[i], s: int32(si)}
	}
	t.refresh()
}

// refresh recomputes every leaf and node from the fields.
func (t *Tree) refresh() {
	for l := range t.n {
		t.bits[l].w = t.tb.pair(t.bits[l].x)
	}
	t.rebuild()
}

// b2i is 1 for true, 0 for false (compiled to a flag set, not a branch).
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

var _ saw.StateEngine = (*Tree)(nil)

// AppendState appends the spins and the energy (see saw.StateEngine).
// Every other quantity is a pure function of the spins and the biases:
// fields, leaves and sums are recomputed from them, and the energy journal
// only spans one move (Walk resets it at a move's first walk). The energy
// is a floating-point sum of the moves' dE, so it depends on the order of
// past flips and is saved as it is.
func (t *Tree) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Int8s(t.s)
	w.Float64(t.energy)
	return w.B
}

// RestoreState restores a state AppendState wrote (see saw.StateEngine).
// Spins other than -1 and +1, or an energy that is not the spins' energy
// up to rounding, are refused.
func (t *Tree) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	s := make([]int8, t.n)
	r.Spins(s)
	e := r.Float64()
	if err := r.Err(); err != nil {
		return err
	}
	want := t.m.Energy(s)
	if !(math.Abs(e-want) <= 1e-6*(1+t.energyScale())) {
		return fmt.Errorf("sparse: state's energy %v is not its spins' energy %v", e, want)
	}
	t.SetSpins(s)
	t.energy = e
	return nil
}

// energyScale is the sum of |J| and |h| with Offset: a bound on the
// magnitude of every energy and of the rounding a tracked energy gathers
// per flip, in units of 2^-52.
func (t *Tree) energyScale() float64 {
	m := t.m
	a := math.Abs(m.Offset)
	for _, j := range m.J {
		a += math.Abs(j) / 2 // each coupling is listed twice
	}
	for _, h := range m.H {
		a += math.Abs(h)
	}
	return a
}
