package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

// Tree is a saw.Engine that draws picks from a binary sum-tree over the
// bits' weights, for any real couplings: O(log M) per draw and per changed
// weight. Node i holds the pair of sums (bias L, bias H) of its subtree;
// a parent is always recomputed as left + right, never adjusted by a
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

	p    int       // leaves (a power of two >= n)
	node []float64 // node i (1 = root, leaf of bit l = p+l) at [2i], [2i+1]

	gam   [2]float64
	wt    saw.Weight
	epoch uint64

	// Table mode.
	tabled bool
	code   []uint32 // bit 0: s_i = +1; bit 1+q: the q-th neighbour is +1
	off    []int32  // start of bit i's table in tab
	rev    []uint8  // per CSR entry k of row i: code bit of i in row Adj[k]
	tab    []entry

	// Direct mode: the current log-weights and dE of every available bit.
	lw [][2]float64
	de []float64

	list  []int32 // nodes to recompute
	stamp []uint32
	tick  uint32
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
	p := 1
	for p < n {
		p *= 2
	}
	t := &Tree{
		m: m, n: n, s: initSpins(m, init), avail: make([]bool, n),
		p: p, node: make([]float64, 4*p),
		stamp: make([]uint32, n),
	}
	for i := range t.avail {
		t.avail[i] = true
	}
	t.buildTables(maxEntries)
	if !t.tabled {
		t.lw = make([][2]float64, n)
		t.de = make([]float64, n)
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
	t.rev = make([]uint8, len(m.Adj))
	for i := range t.n {
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			j := m.Adj[k]
			row := m.Adj[m.Start[j]:m.Start[j+1]]
			q, _ := slices.BinarySearch(row, int32(i))
			t.rev[k] = uint8(1 + q)
		}
	}
	t.code = make([]uint32, t.n)
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
	x := 2 * (t.p + int(l))
	if t.tabled {
		e := &t.tab[int(t.off[l])+int(t.code[l])]
		if e.epoch != t.epoch {
			t.fill(e)
		}
		t.node[x], t.node[x+1] = e.w[0], e.w[1]
		return
	}
	d := 2 * float64(t.s[l]) * t.m.Field(t.s, int(l))
	t.de[l] = d
	lw0 := saw.LogWeight(t.wt, t.gam[0], d)
	w0 := math.Exp(lw0)
	lw1, w1 := lw0, w0
	if t.gam[1] != t.gam[0] {
		lw1 = saw.LogWeight(t.wt, t.gam[1], d)
		w1 = math.Exp(lw1)
	}
	t.lw[l] = [2]float64{lw0, lw1}
	t.node[x], t.node[x+1] = w0, w1
}

// dE is the energy change of flipping bit l now (no weights needed).
func (t *Tree) dE(l int32) float64 {
	if t.tabled {
		return t.tab[int(t.off[l])+int(t.code[l])].dE
	}
	return 2 * float64(t.s[l]) * t.m.Field(t.s, int(l))
}

// flipSpin flips bit l and updates the energy; weights are left stale.
func (t *Tree) flipSpin(l int32, d float64) {
	t.energy = t.jr.flip(l, t.energy, d)
	t.s[l] = -t.s[l]
	if t.tabled {
		t.code[l] ^= 1
		m := t.m
		for k := m.Start[l]; k < m.Start[l+1]; k++ {
			t.code[m.Adj[k]] ^= 1 << t.rev[k]
		}
	}
}

// take flips available bit l as a walk step: l becomes unavailable and the
// weights of its available neighbours are refreshed.
func (t *Tree) take(l int32, d float64) {
	t.flipSpin(l, d)
	t.avail[l] = false
	x := 2 * (t.p + int(l))
	t.node[x], t.node[x+1] = 0, 0
	list := append(t.list[:0], int32(t.p)+l)
	m := t.m
	for k := m.Start[l]; k < m.Start[l+1]; k++ {
		if j := m.Adj[k]; t.avail[j] {
			t.setLeaf(j)
			list = append(list, int32(t.p)+j)
		}
	}
	t.list = list
	t.propagate()
}

// release makes the bits of a finished walk available again.
func (t *Tree) release(path []int32) {
	if 4*len(path) > t.p {
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
		list = append(list, int32(t.p)+l)
	}
	t.list = list
	t.propagate()
}

// propagate recomputes the ancestors of the nodes in t.list, each once:
// sorted node indices stay sorted when halved, so duplicates are adjacent.
func (t *Tree) propagate() {
	list := t.list
	if len(list) > 24 {
		slices.Sort(list)
	} else {
		for i := 1; i < len(list); i++ {
			for j := i; j > 0 && list[j] < list[j-1]; j-- {
				list[j], list[j-1] = list[j-1], list[j]
			}
		}
	}
	node := t.node
	for list[0] > 1 {
		out, last := 0, int32(-1)
		// Branch-free: a parent shared by two listed children is simply
		// recomputed twice (same value) and listed once.
		for _, v := range list {
			q := v >> 1
			ch := (*[4]float64)(node[4*q:])
			par := (*[2]float64)(node[2*q:])
			par[0], par[1] = ch[0]+ch[2], ch[1]+ch[3]
			out -= b2i(q == last)
			list[out] = q
			out++
			last = q
		}
		list = list[:out]
	}
	t.list = list
}

// rebuild recomputes every internal node.
func (t *Tree) rebuild() {
	node := t.node
	for q := t.p - 1; q >= 1; q-- {
		c := 4 * q
		node[2*q] = node[c] + node[c+2]
		node[2*q+1] = node[c+1] + node[c+3]
	}
}

// pickLog is log w of available bit l at both biases (valid after setLeaf).
func (t *Tree) pickLog(l int32) [2]float64 {
	if t.tabled {
		return t.tab[int(t.off[l])+int(t.code[l])].lw
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
	node, p := t.node, t.p
	for range k {
		z0.mul(node[2])
		z1.mul(node[3])
		x := rng.Float64(r) * node[2+b]
		q := 1
		for q < p {
			c := 4*q + b
			left := node[c]
			// Branch-free descent (the direction is a coin flip, so a
			// branch mispredicts half the time). A right subtree of
			// weight 0 is never entered, so rounding at the edge cannot
			// pick an unavailable bit.
			right := b2i(x >= left) & b2i(node[c+2] != 0)
			x -= left * float64(right)
			q = 2*q + right
		}
		l := int32(q - p)
		lw := t.pickLog(l)
		sl[0] += lw[0]
		sl[1] += lw[1]
		t.take(l, t.dE(l))
		path = append(path, l)
	}
	t.release(path[start:])
	return path, [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}, t.energy - e0
}

// Replay replays path as one SAW (see saw.Engine). A path that repeats a
// bit is a programmer error and panics.
func (t *Tree) Replay(path []int32, backwards bool) ([2]float64, float64) {
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
		z0.mul(t.node[2])
		z1.mul(t.node[3])
		lw := t.pickLog(l)
		sl[0] += lw[0]
		sl[1] += lw[1]
		t.take(l, t.dE(l))
	}
	t.release(path)
	return [2]float64{sl[0] - z0.log(), sl[1] - z1.log()}, t.energy - e0
}

// Flip flips the bits of path in order with no probability bookkeeping.
func (t *Tree) Flip(path []int32) {
	t.tick++
	if t.tick == 0 {
		clear(t.stamp)
		t.tick = 1
	}
	list := t.list[:0]
	mark := func(l int32) {
		if t.stamp[l] != t.tick {
			t.stamp[l] = t.tick
			list = append(list, int32(t.p)+l)
		}
	}
	m := t.m
	for _, l := range path {
		t.flipSpin(l, t.dE(l))
		mark(l)
		for k := m.Start[l]; k < m.Start[l+1]; k++ {
			mark(m.Adj[k])
		}
	}
	for _, v := range list {
		t.setLeaf(v - int32(t.p))
	}
	t.list = list
	if 4*len(list) > t.p {
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
	t.energy = t.m.Energy(t.s)
	t.jr.reset()
	if t.tabled {
		m := t.m
		for i := range t.n {
			c := uint32(0)
			if t.s[i] == 1 {
				c = 1
			}
			for k := m.Start[i]; k < m.Start[i+1]; k++ {
				if t.s[m.Adj[k]] == 1 {
					c |= 1 << (1 + k - m.Start[i])
				}
			}
			t.code[i] = c
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
