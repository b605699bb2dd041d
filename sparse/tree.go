package sparse

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"sardonics/internal/state"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

// Tree is a saw.Engine that draws picks from a sum-tree over the bits'
// weights, for any real couplings: O(log M) per draw and per changed
// weight. The tree is 4-ary (half the levels of a binary one; the four
// children of a node fill one 64-byte line) and each node holds the pair
// of sums (bias L, bias H) of its subtree. A parent is always recomputed
// as (c0 + c1) + (c2 + c3) from its children, never adjusted by a
// difference, so every sum is a pure function of the leaves and never
// drifts. Weights are stored as exp(log w): saw.LogWeight is clamped to
// [-690, 690], so a weight is a normal float64 and a sum of up to about
// 1e8 of them stays finite.
//
// On graphs of small degree (at most maxTabDegree) each bit's weight is
// looked up in a table indexed by the spins of the bit and its neighbours;
// bits with the same field and coupling row share a table, and entries are
// filled lazily after SetBiases, so no exponential is computed in the hot
// loop. Otherwise weights are computed from the model on every change.
type Tree struct {
	m      *model.Ising
	n      int
	s      []int8
	avail  []bool
	energy float64
	jr     journal

	// Node i has children 4i-8..4i-5 and parent i/4+2 (a 4-ary heap
	// shifted by 3 so that sibling groups start at multiples of 4); the
	// root is node 3, bit l's leaf is node base+l.
	base  int
	depth int          // levels below the root
	node  [][2]float64 // sums at both biases

	gam   [2]float64
	wt    saw.Weight
	epoch uint64

	// Table mode. Bit i's entry is tab[cur[i]], cur[i] = off[i] | code,
	// where code has bit 0 set when s_i = +1 and bit 1+q when the q-th
	// neighbour is +1 (tables are aligned to their power-of-two size).
	tabled bool
	cur    []int32
	off    []int32
	edges  []tedge // m's CSR entries
	tab    []entry

	// Direct mode: the current log-weights of every available bit.
	lw [][2]float64

	list  []int32 // leaves whose ancestors need recomputing
	stamp []uint32
	tick  uint32

	nstamp   []uint32 // propagateWide's marks, per node
	ntick    uint32
	lv0, lv1 []int32

	// The move's record for ReverseLogProbs (see tree_reverse.go), table mode
	// only.
	rec  [][2]float64 // after the move's flip p: see Walk
	recN int          // flips recorded since the move's first walk; -1: none
	ovix []int32      // per bit: index in ovl during ReverseLogProbs, else -1
	ovl  []tover
	ww   wtree // weights of the current reverse walk's bits
}

// tedge is CSR entry k of row i: neighbour j and the bit of i's spin in
// j's table index.
type tedge struct {
	j    int32
	mask int32
}

// entry is one local configuration of one table: its dE (fixed) and its
// weights at both biases, valid when epoch matches the engine's.
type entry struct {
	w     [2]float64
	lw    [2]float64
	dE    float64
	epoch uint64
}

// Table mode limits: tables of 2^(degree+1) entries, at most maxTabEntries
// in all (48 bytes each).
const (
	maxTabDegree  = 12
	maxTabEntries = 1 << 19
)

var _ saw.Engine = (*Tree)(nil)

// NewTree returns a sum-tree engine for m started at init (copied; nil
// means all +1). Its biases start at gamma_L = gamma_H = 1 with the
// logistic weight. It panics if init has the wrong length or a value other
// than -1 or +1.
func NewTree(m *model.Ising, init []int8) *Tree { return newTree(m, init, maxTabEntries) }

// newTree lets tests force direct mode with maxEntries = 0.
func newTree(m *model.Ising, init []int8, maxEntries int) *Tree {
	n := m.N
	leaves, depth := 1, 0
	for leaves < n {
		leaves *= 4
		depth++
	}
	base := 3 + (leaves-1)/3
	t := &Tree{
		m: m, n: n, s: initSpins(m, init), avail: make([]bool, n),
		base: base, depth: depth, node: make([][2]float64, base+leaves),
		stamp: make([]uint32, n), recN: -1,
	}
	for i := range t.avail {
		t.avail[i] = true
	}
	t.buildTables(maxEntries)
	if !t.tabled {
		t.lw = make([][2]float64, n)
	}
	t.gam, t.wt, t.epoch = [2]float64{1, 1}, saw.Logistic, 1
	t.SetSpins(t.s)
	return t
}

// buildTables enables table mode when the degree and the number of
// distinct (field, coupling row) pairs allow it.
func (t *Tree) buildTables(maxEntries int) {
	m := t.m
	d := m.MaxDegree()
	if d > maxTabDegree {
		return
	}
	size := 1 << (d + 1)
	key := make([]byte, 0, 8*(d+2))
	seen := map[string]int32{}
	off := make([]int32, t.n)
	var firsts []int // a bit of each distinct table
	for i := range t.n {
		key = key[:0]
		key = fmt.Appendf(key, "%x", math.Float64bits(m.H[i]))
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			key = fmt.Appendf(key, ",%x", math.Float64bits(m.J[k]))
		}
		o, ok := seen[string(key)]
		if !ok {
			o = int32(len(firsts) * size)
			if len(firsts)*size+size > maxEntries {
				return
			}
			seen[string(key)] = o
			firsts = append(firsts, i)
		}
		off[i] = o
	}
	t.tabled, t.off = true, off
	t.tab = make([]entry, len(firsts)*size)
	for f, i := range firsts {
		deg := int(m.Start[i+1] - m.Start[i])
		for c := range 1 << (deg + 1) {
			// The same sum as model.Field, in the same order.
			fld := m.H[i]
			for q := range deg {
				sj := -1.0
				if c>>(1+q)&1 == 1 {
					sj = 1
				}
				fld += m.J[int(m.Start[i])+q] * sj
			}
			si := -1.0
			if c&1 == 1 {
				si = 1
			}
			t.tab[f*size+c].dE = 2 * si * fld
		}
	}
	t.edges = make([]tedge, len(m.Adj))
	for i := range t.n {
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			j := m.Adj[k]
			q, _ := slices.BinarySearch(m.Adj[m.Start[j]:m.Start[j+1]], int32(i))
			t.edges[k] = tedge{j, 1 << (1 + q)}
		}
	}
	t.cur = make([]int32, t.n)
	t.ovix = make([]int32, t.n)
	for i := range t.ovix {
		t.ovix[i] = -1
	}
}

// fill computes an entry's weights at the current biases.
func (t *Tree) fill(e *entry) {
	e.lw[0] = saw.LogWeight(t.wt, t.gam[0], e.dE)
	e.w[0] = math.Exp(e.lw[0])
	if t.gam[1] == t.gam[0] {
		e.lw[1], e.w[1] = e.lw[0], e.w[0]
	} else {
		e.lw[1] = saw.LogWeight(t.wt, t.gam[1], e.dE)
		e.w[1] = math.Exp(e.lw[1])
	}
	e.epoch = t.epoch
}

// setLeaf writes bit l's current weights into its leaf (l available).
func (t *Tree) setLeaf(l int32) {
	x := t.base + int(l)
	if t.tabled {
		e := &t.tab[t.cur[l]]
		if e.epoch != t.epoch {
			t.fill(e)
		}
		t.node[x] = e.w
		return
	}
	d := 2 * float64(t.s[l]) * t.m.Field(t.s, int(l))
	lw0 := saw.LogWeight(t.wt, t.gam[0], d)
	w0 := math.Exp(lw0)
	lw1, w1 := lw0, w0
	if t.gam[1] != t.gam[0] {
		lw1 = saw.LogWeight(t.wt, t.gam[1], d)
		w1 = math.Exp(lw1)
	}
	t.lw[l] = [2]float64{lw0, lw1}
	t.node[x] = [2]float64{w0, w1}
}

// dE is the energy change of flipping bit l now (no weights needed).
func (t *Tree) dE(l int32) float64 {
	if t.tabled {
		return t.tab[t.cur[l]].dE
	}
	return 2 * float64(t.s[l]) * t.m.Field(t.s, int(l))
}

// flipSpin flips bit l and updates the energy; weights are left stale.
func (t *Tree) flipSpin(l int32, d float64) {
	t.energy = t.jr.flip(l, t.energy, d)
	t.s[l] = -t.s[l]
	if t.tabled {
		t.cur[l] ^= 1
		for _, e := range t.edges[t.m.Start[l]:t.m.Start[l+1]] {
			t.cur[e.j] ^= e.mask
		}
	}
}

// take flips available bit l as a walk step: l becomes unavailable and the
// weights of its available neighbours are refreshed.
func (t *Tree) take(l int32, d float64) {
	t.energy = t.jr.flip(l, t.energy, d)
	t.s[l] = -t.s[l]
	t.avail[l] = false
	node, base := t.node, int32(t.base)
	node[base+l] = [2]float64{}
	list := append(t.list[:0], l)
	if t.tabled {
		t.cur[l] ^= 1
		cur, tab, avail := t.cur, t.tab, t.avail
		for _, e := range t.edges[t.m.Start[l]:t.m.Start[l+1]] {
			c := cur[e.j] ^ e.mask
			cur[e.j] = c
			if !avail[e.j] {
				continue
			}
			en := &tab[c]
			if en.epoch != t.epoch {
				t.fill(en)
			}
			node[base+e.j] = en.w
			list = append(list, e.j)
		}
	} else {
		m := t.m
		for k := m.Start[l]; k < m.Start[l+1]; k++ {
			if j := m.Adj[k]; t.avail[j] {
				t.setLeaf(j)
				list = append(list, j)
			}
		}
	}
	t.list = list
	t.propagate()
}

// release makes the bits of a finished walk available again.
func (t *Tree) release(path []int32) {
	if 4*len(path) > t.n {
		for _, l := range path {
			t.avail[l] = true
			t.setLeaf(l)
		}
		t.rebuild()
		return
	}
	list := t.list[:0]
	for _, l := range path {
		t.avail[l] = true
		t.setLeaf(l)
		list = append(list, l)
	}
	t.list = list
	t.propagate()
}

// propagate recomputes the ancestors of the leaves of the bits in t.list,
// each once. In sorted order, the ancestors of leaf a_i below its lowest
// common ancestor with a_(i+1) are a_i's alone; the rest are also
// a_(i+1)'s and are recomputed on its way up, after every leaf below them.
func (t *Tree) propagate() {
	list := t.list
	if len(list) > 16 {
		t.propagateWide()
		return
	} else {
		for i := 1; i < len(list); i++ {
			for j := i; j > 0 && list[j] < list[j-1]; j-- {
				list[j], list[j-1] = list[j-1], list[j]
			}
		}
	}
	node := t.node
	for i, a := range list {
		steps := t.depth
		if i+1 < len(list) {
			// The lowest common ancestor is as many levels up as the
			// base-4 digits of the positions that differ.
			steps = (bits.Len32(uint32(a^list[i+1]))+1)/2 - 1
		}
		q := t.base + int(a)
		for range steps {
			g := q &^ 3
			ch := node[g : g+4 : g+4]
			q = q>>2 + 2
			node[q] = [2]float64{(ch[0][0] + ch[1][0]) + (ch[2][0] + ch[3][0]),
				(ch[0][1] + ch[1][1]) + (ch[2][1] + ch[3][1])}
		}
	}
}

// propagateWide is propagate for long lists, without sorting: level by
// level, each parent of the previous level's nodes is recomputed once
// (marked with a stamp), after all of its children.
func (t *Tree) propagateWide() {
	t.ntick++
	if t.ntick == 0 {
		clear(t.nstamp)
		t.ntick = 1
	}
	if len(t.nstamp) != len(t.node) {
		t.nstamp = make([]uint32, len(t.node))
	}
	cur := t.lv0[:0]
	for _, a := range t.list {
		cur = append(cur, int32(t.base)+a)
	}
	next := t.lv1[:0]
	node, stamp, tick := t.node, t.nstamp, t.ntick
	for range t.depth {
		next = next[:0]
		for _, q := range cur {
			if p := q>>2 + 2; stamp[p] != tick {
				stamp[p] = tick
				next = append(next, p)
			}
		}
		for _, p := range next {
			g := 4*p - 8
			ch := node[g : g+4 : g+4]
			node[p] = [2]float64{(ch[0][0] + ch[1][0]) + (ch[2][0] + ch[3][0]),
				(ch[0][1] + ch[1][1]) + (ch[2][1] + ch[3][1])}
		}
		cur, next = next, cur
	}
	t.lv0, t.lv1 = cur, next
}

// rebuild recomputes every internal node.
func (t *Tree) rebuild() {
	node := t.node
	for q := t.base - 1; q >= 3; q-- {
		ch := node[4*q-8 : 4*q-4 : 4*q-4]
		node[q] = [2]float64{(ch[0][0] + ch[1][0]) + (ch[2][0] + ch[3][0]),
			(ch[0][1] + ch[1][1]) + (ch[2][1] + ch[3][1])}
	}
}

// pickLog is log w of available bit l at both biases (valid after setLeaf).
func (t *Tree) pickLog(l int32) [2]float64 {
	if t.tabled {
		return t.tab[t.cur[l]].lw
	}
	return t.lw[l]
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
	t.epoch++
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
	z0, z1 := newLogProd(), newLogProd()
	var sl [2]float64
	node := t.node
	// Record for ReverseLogProbs, after each flip but the walk's last, the
	// sum of the weights of the bits available then but the next pick (of
	// the siblings met on the way down, so with no subtraction), and after
	// its last flip the root with all bits available.
	if start == 0 {
		t.recN = 0
		// A move's undo needs only its own flips journaled; starting
		// afresh keeps the energy's history out of the saved state.
		t.jr.reset()
	}
	record := t.tabled && t.recN == start
	if record {
		t.rec = slices.Grow(t.rec[:start], k)[:start+k]
		t.recN = start + k
	} else {
		t.recN = -1
	}
	for i := range k {
		z0.mul(node[3][0])
		z1.mul(node[3][1])
		x := rng.Float64(r) * node[3][b]
		q := 3
		var rest [2]float64 // the available weight but the pick's
		for range t.depth {
			g := 4*q - 8
			ch := node[g : g+4 : g+4]
			// The child is the number of prefix sums <= x, counted
			// without branches (each comparison is a coin flip).
			s1 := ch[0][b]
			s2 := s1 + ch[1][b]
			s3 := s2 + ch[2][b]
			j := b2i(x >= s1) + b2i(x >= s2) + b2i(x >= s3)
			// Rounding can leave x at or past the total: never enter
			// a child of weight 0 (an unavailable bit).
			for j > 0 && ch[j][b] == 0 {
				j--
			}
			x -= [4]float64{0, s1, s2, s3}[j]
			q = g + j
			if record {
				// Added, never subtracted: no cancellation.
				a, c, d := ch[(j+1)&3], ch[(j+2)&3], ch[(j+3)&3]
				rest[0] += (a[0] + c[0]) + d[0]
				rest[1] += (a[1] + c[1]) + d[1]
			}
		}
		if record && i > 0 {
			t.rec[start+i-1] = rest
		}
		l := int32(q - t.base)
		lw := t.pickLog(l)
		sl[0] += lw[0]
		sl[1] += lw[1]
		t.take(l, t.dE(l))
		path = append(path, l)
	}
	t.release(path[start:])
	if record && k > 0 {
		t.rec[start+k-1] = node[3]
	}
	return path, [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}, t.energy - e0
}

// Replay replays path as one SAW (see saw.Engine). A path that repeats a
// bit is a programmer error and panics. Forwards in table mode, it records
// path as a move's only walk, as Walk would (see saw.FastReverser).
func (t *Tree) Replay(path []int32, backwards bool) ([2]float64, float64) {
	t.recN = -1
	record := !backwards && t.tabled
	if record {
		t.rec = slices.Grow(t.rec[:0], len(path))[:len(path)]
	}
	e0 := t.energy
	z0, z1 := newLogProd(), newLogProd()
	var sl [2]float64
	for i := range path {
		l := path[i]
		if backwards {
			l = path[len(path)-1-i]
		}
		if !t.avail[l] {
			panic(fmt.Sprintf("sparse: replayed walk visits bit %d twice", l))
		}
		if record && i > 0 {
			t.rec[i-1] = t.rest(l)
		}
		z0.mul(t.node[3][0])
		z1.mul(t.node[3][1])
		lw := t.pickLog(l)
		sl[0] += lw[0]
		sl[1] += lw[1]
		t.take(l, t.dE(l))
	}
	t.release(path)
	if record {
		if n := len(path); n > 0 {
			t.rec[n-1] = t.node[3]
		}
		t.recN = len(path)
	}
	return [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}, t.energy - e0
}

// rest is the available weight but bit l's: the sum of the siblings of
// l's leaf and of its ancestors, in the order Walk's descent adds them.
func (t *Tree) rest(l int32) [2]float64 {
	var anc [32]int
	q := t.base + int(l)
	for d := t.depth - 1; d >= 0; d-- {
		anc[d] = q
		q = q>>2 + 2
	}
	var r [2]float64
	for _, q := range anc[:t.depth] {
		j := q & 3
		ch := t.node[q-j : q-j+4 : q-j+4]
		a, c, d := ch[(j+1)&3], ch[(j+2)&3], ch[(j+3)&3]
		r[0] += (a[0] + c[0]) + d[0]
		r[1] += (a[1] + c[1]) + d[1]
	}
	return r
}

// Flip flips the bits of path in order with no probability bookkeeping.
func (t *Tree) Flip(path []int32) { t.flipPath(path, false) }

// flipPath flips the bits of path in order, or in reverse order if
// backwards.
func (t *Tree) flipPath(path []int32, backwards bool) {
	t.recN = -1
	t.tick++
	if t.tick == 0 {
		clear(t.stamp)
		t.tick = 1
	}
	list := t.list[:0]
	mark := func(l int32) {
		if t.stamp[l] != t.tick {
			t.stamp[l] = t.tick
			list = append(list, l)
		}
	}
	m := t.m
	for i := range path {
		l := path[i]
		if backwards {
			l = path[len(path)-1-i]
		}
		t.flipSpin(l, t.dE(l))
		mark(l)
		for k := m.Start[l]; k < m.Start[l+1]; k++ {
			mark(m.Adj[k])
		}
	}
	for _, v := range list {
		t.setLeaf(v)
	}
	t.list = list
	if 4*len(list) > t.n {
		t.rebuild()
		return
	}
	if len(list) > 0 {
		t.propagate()
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
	if t.tabled {
		m := t.m
		for i := range t.n {
			c := int32(0)
			if t.s[i] == 1 {
				c = 1
			}
			for k := m.Start[i]; k < m.Start[i+1]; k++ {
				if t.s[m.Adj[k]] == 1 {
					c |= 1 << (1 + k - m.Start[i])
				}
			}
			t.cur[i] = t.off[i] | c
		}
	}
	t.refresh()
}

// refresh recomputes every leaf and node (table entries do not depend on
// the state, so they stay valid).
func (t *Tree) refresh() {
	for l := range int32(t.n) {
		t.setLeaf(l)
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
// leaves and sums are recomputed from them, table entries from the biases,
// and the energy journal only spans one move (Walk resets it at a move's
// first walk). The energy is a floating-point sum of the moves' dE, so it
// depends on the order of past flips and is saved as it is.
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
	r.Int8s(s)
	e := r.Float64()
	if err := r.Err(); err != nil {
		return err
	}
	for _, v := range s {
		if v != 1 && v != -1 {
			return fmt.Errorf("sparse: state holds spin %d", v)
		}
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
