package dense

import (
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

// RefreshEvery is the number of flips between recomputations of the float64
// fields and the energy from scratch (done at the start of a Walk, Replay
// or Flip). The fixed-point fields that the weights come from are exact
// and never need it.
const RefreshEvery = 10000

// CompactFrom is the number of weights V H from which an engine keeps
// only the fixed-point transpose of W (compact: 4 bytes per weight of its
// own, besides the model's float64 W), not also W in fixed point and the
// float64 transpose (16 bytes per weight of its own). Both give the same
// bits. The compact engine pays for its lazy visible fields (see Engine)
// with chains of dependent additions where the full one makes vector
// updates: a loss where the matrices fit the caches, about even where
// they do not (BenchmarkChain). Tests lower it.
var CompactFrom = 1 << 22

// Engine is the dense RBM engine. The zero value is not usable; call New.
//
// Its matrices are the model's W (float64, shared) and the fixed-point
// transpose q.WT (int32). A compact engine (CompactFrom) has no others: a
// visible flip reads its row of W for both of the hidden layer's fields
// (rounding the fixed-point couplings on the fly), and a hidden flip
// changes the visible fixed-point fields by its row of WT and only logs
// itself for the visible float64 fields (hflips). Otherwise qw and wt
// give both directions a row of each kind.
type Engine struct {
	nv, nh int
	q      *Quant
	w      []float64 // V x H, row-major: the model's W (shared, read only)
	qw     []int32   // V x H: W in fixed point; nil in a compact engine
	wt     []float64 // H x V: the transpose of W; nil in a compact engine
	b, c   []float64
	s      []int8
	F      []int32   // fixed-point fields (exact), visible then hidden
	field  []float64 // visible: b_i + W_i.h as of hflips[:upto[i]]; hidden: c_j + v.W_:j (for the energy)
	// hflips are a compact engine's hidden flips since the last refresh,
	// 2j for h_j 0 -> 1 and 2j+1 for 1 -> 0, and visible field i has added
	// those of hflips[:upto[i]]. A visible field is caught up
	// (visibleField) only when it is read, by the same float64 additions
	// in the same order as an update at every flip makes, so with the
	// same bits; the couplings come from its own row of W, no transpose.
	hflips []int32
	upto   []int32
	act    []int32  // scratch: the active hidden units, for refresh
	t      *Table   // pick weights, visible layer first
	mask   []uint32 // all ones for an available bit, 0 for a taken one
	gamma  [2]float64
	wf     saw.Weight
	bias   *Bias
	biases BiasCache
	e      float64
	stale  bool // weights and sums must be recomputed
	since  int  // flips since the last refresh
	rec    Record
}

var (
	_ saw.Engine       = (*Engine)(nil)
	_ saw.StateEngine  = (*Engine)(nil)
	_ saw.FastReverser = (*Engine)(nil)
	_ saw.Costed       = (*Engine)(nil)
)

// New returns an engine for r in state init (spins, visible then hidden; nil
// means all -1, i.e. all bits 0; copied). Biases start at gamma_L = gamma_H
// = 1 with the logistic weight, as in saw.NewNaive; call SetBiases. It
// panics if len(init) != V+H.
func New(r *model.RBM, init []int8) *Engine {
	n := r.V + r.H
	e := &Engine{
		nv: r.V, nh: r.H,
		q:     NewQuant(r),
		w:     r.W, // read only: the model's own matrix is not copied
		upto:  make([]int32, r.V),
		b:     append([]float64(nil), r.B...),
		c:     append([]float64(nil), r.C...),
		s:     make([]int8, n),
		F:     make([]int32, n),
		field: make([]float64, n),
		t:     NewTable(r.V, r.H),
		mask:  make([]uint32, n),
		gamma: [2]float64{1, 1},
	}
	if r.V*r.H < CompactFrom {
		e.qw, e.wt = make([]int32, len(r.W)), make([]float64, len(r.W))
		Transpose(e.qw, e.q.WT, r.H, r.V)
		Transpose(e.wt, r.W, r.V, r.H)
	}
	for i := range e.mask {
		e.mask[i] = ^uint32(0)
	}
	e.bias = e.biases.Get(e.q.S, 1, 1, saw.Logistic)
	if init == nil {
		init = make([]int8, n)
		for i := range init {
			init[i] = -1
		}
	}
	e.SetSpins(init)
	return e
}

// N is V+H.
func (e *Engine) N() int { return e.nv + e.nh }

// SetBiases sets gamma_L, gamma_H and the weight function.
func (e *Engine) SetBiases(gammaL, gammaH float64, w saw.Weight) {
	e.gamma = [2]float64{gammaL, gammaH}
	e.wf = w
	e.bias = e.biases.Get(e.q.S, gammaL, gammaH, w)
	e.stale = true
	e.rec.Invalidate()
}

// Energy is E(v, h) of the current state.
func (e *Engine) Energy() float64 { return e.e }

// Spins is the current state (read only).
func (e *Engine) Spins() []int8 { return e.s }

// SetSpins replaces the state. It panics if len(s) != N().
func (e *Engine) SetSpins(s []int8) {
	if len(s) != len(e.s) {
		panic(fmt.Sprintf("dense: SetSpins with %d spins (expected %d)", len(s), len(e.s)))
	}
	for i, v := range s {
		if v > 0 {
			e.s[i] = 1
		} else {
			e.s[i] = -1
		}
	}
	e.q.Fields(e.s, e.F)
	e.refresh()
	e.stale = true
	e.rec.Invalidate()
}

// refresh recomputes the float64 fields and the energy from scratch: the
// bias plus the couplings of the active bits of the other layer, added in
// index order. One pass over the rows of W: a visible field sums its row
// at the active hidden units (four rows at once, each its own chain of
// additions), and an active visible unit's row is added to the hidden
// fields.
func (e *Engine) refresh() {
	nv := e.nv
	fv, fh := e.field[:nv], e.field[nv:]
	act := Active(e.act[:0], e.s[nv:])
	e.act = act
	copy(fh, e.c)
	for i0 := 0; i0 < nv; i0 += 4 {
		i1 := min(i0+4, nv)
		SumsAt(fv[i0:i1], e.b[i0:i1], e.w[i0*e.nh:i1*e.nh], e.nh, act)
		for i := i0; i < i1; i++ {
			if e.s[i] > 0 {
				for j, x := range e.row(i) {
					fh[j] += x
				}
			}
		}
	}
	e.hflips = e.hflips[:0]
	clear(e.upto)
	en := 0.0
	for j, f := range fh {
		if e.s[nv+j] > 0 {
			en -= f
		}
	}
	for i := 0; i < nv; i++ {
		if e.s[i] > 0 {
			en -= e.b[i]
		}
	}
	e.e = en
	e.since = 0
}

// Active appends to dst the indices of the up spins of s (the active
// units, whose rows SumsAt adds) and returns it.
func Active(dst []int32, s []int8) []int32 {
	for j, x := range s {
		if x > 0 {
			dst = append(dst, int32(j))
		}
	}
	return dst
}

// SumsAt sets f[i] = b[i] + the sum of row i of w (rows of n) at the
// columns act, added in act's order, for each of the len(f) rows: four
// rows at once, each its own chain of additions (the same bits as one at
// a time).
func SumsAt(f, b, w []float64, n int, act []int32) {
	m := len(f)
	b, w = b[:m], w[:m*n]
	i := 0
	for ; i+4 <= m; i += 4 {
		r0, r1, r2, r3 := w[i*n:(i+1)*n], w[(i+1)*n:(i+2)*n], w[(i+2)*n:(i+3)*n], w[(i+3)*n:(i+4)*n]
		f0, f1, f2, f3 := b[i], b[i+1], b[i+2], b[i+3]
		for _, j := range act {
			f0 += r0[j]
			f1 += r1[j]
			f2 += r2[j]
			f3 += r3[j]
		}
		f[i], f[i+1], f[i+2], f[i+3] = f0, f1, f2, f3
	}
	for ; i < m; i++ {
		x, r := b[i], w[i*n:(i+1)*n]
		for _, j := range act {
			x += r[j]
		}
		f[i] = x
	}
}

// layer returns the range [lo, hi) of layer k (0 visible, 1 hidden).
func (e *Engine) layer(k int) (int, int) {
	if k == 0 {
		return 0, e.nv
	}
	return e.nv, e.nv + e.nh
}

// reweigh recomputes the weights of layer k and its sums.
func (e *Engine) reweigh(k int) {
	lo, hi := e.layer(k)
	e.t.Update(k, e.bias, e.s[lo:hi], e.F[lo:hi], nil, e.mask[lo:hi], nil, nil, 0)
}

// prepare refreshes when due and brings the weights up to date.
func (e *Engine) prepare() {
	if e.since >= RefreshEvery {
		e.refresh()
	}
	if e.stale {
		e.reweigh(0)
		e.reweigh(1)
		e.stale = false
	}
}

// row is visible unit i's couplings W_i. (float64).
func (e *Engine) row(i int) []float64 { return e.w[i*e.nh : (i+1)*e.nh] }

// rowT is hidden unit j's fixed-point couplings (a row of WT).
func (e *Engine) rowT(j int) []int32 { return e.q.WT[j*e.nv : (j+1)*e.nv] }

// visibleField brings visible field i up to date and returns it: it adds
// d W_ij for the logged hidden flips it has not seen, in their order.
func (e *Engine) visibleField(i int) float64 {
	f := e.field[i]
	if log := e.hflips[e.upto[i]:]; len(log) > 0 {
		f = CatchUp(f, e.row(i), log)
		e.field[i] = f
		e.upto[i] = int32(len(e.hflips))
	}
	return f
}

// HiddenFlip is the log entry of a flip of hidden unit j whose x changed
// by d = +-1: 2j for 0 -> 1, 2j+1 for 1 -> 0 (see CatchUp).
func HiddenFlip(j int, d int32) int32 { return int32(2*j) + (1-d)>>1 }

// CatchUp returns visible field f plus d W_ij for the logged hidden flips
// (HiddenFlip entries), in their order, with row = W_i. (float64): the
// same float64 additions, in the same order, as an update of the field
// at every flip makes, so the same bits.
func CatchUp(f float64, row []float64, log []int32) float64 {
	for _, x := range log {
		// d W_ij, d = -1 for an odd entry: a sign flip, exact.
		f += math.Float64frombits(math.Float64bits(row[x>>1]) ^ uint64(x&1)<<63)
	}
	return f
}

// fields brings every visible field up to date and returns all the float64
// fields.
func (e *Engine) fields() []float64 {
	for i := range e.nv {
		e.visibleField(i)
	}
	return e.field
}

// flipSpin flips bit l's spin and updates the energy. A hidden flip is
// logged for the visible fields. Callers update the other layer first: a
// visible field is caught up from its row of W, which that has just
// brought into the cache.
func (e *Engine) flipSpin(l int) {
	sl := e.s[l]
	if l < e.nv {
		e.e += float64(sl) * e.visibleField(l)
	} else {
		e.e += float64(sl) * e.field[l]
		if e.wt == nil {
			e.hflips = append(e.hflips, HiddenFlip(l-e.nv, int32(-sl)))
		}
	}
	e.s[l] = -sl
	e.since++
}

// flipWeighed flips bit l and updates the other layer's fields, weights and
// sums.
func (e *Engine) flipWeighed(l int) {
	nv, nh, d := e.nv, e.nh, int32(-e.s[l])
	switch j := l - nv; {
	case e.wt != nil && l < nv:
		e.t.Update(1, e.bias, e.s[nv:], e.F[nv:], e.field[nv:], e.mask[nv:], e.qw[l*nh:(l+1)*nh], e.row(l), d)
	case e.wt != nil:
		e.t.Update(0, e.bias, e.s[:nv], e.F[:nv], e.field[:nv], e.mask[:nv], e.rowT(j), e.wt[j*nv:(j+1)*nv], d)
	case l < nv:
		e.t.UpdateFix(1, e.bias, e.s[nv:], e.F[nv:], e.field[nv:], e.mask[nv:], e.row(l), e.q.Scale, d)
	default:
		e.t.Update(0, e.bias, e.s[:nv], e.F[:nv], nil, e.mask[:nv], e.rowT(j), nil, d)
	}
	e.flipSpin(l)
}

// flipFields flips bit l and updates the other layer's fields only (the
// weights become stale).
func (e *Engine) flipFields(l int) {
	nv, nh, d := e.nv, e.nh, int32(-e.s[l])
	switch j := l - nv; {
	case e.wt != nil && l < nv:
		AddRow(e.F[nv:], e.field[nv:], e.qw[l*nh:(l+1)*nh], e.row(l), d)
	case e.wt != nil:
		AddRow(e.F[:nv], e.field[:nv], e.rowT(j), e.wt[j*nv:(j+1)*nv], d)
	case l < nv:
		AddRowFix(e.F[nv:], e.field[nv:], e.row(l), e.q.Scale, d)
	default:
		AddRow(e.F[:nv], nil, e.rowT(j), nil, d)
	}
	e.flipSpin(l)
	e.stale = true
}

// AddRow adds d times a row of couplings to fields: the fixed-point row
// rowq to F, the float64 row to f unless row is nil (a flip's change of
// the other layer's fields, without the weights).
func AddRow(F []int32, f []float64, rowq []int32, row []float64, d int32) {
	F = F[:len(rowq)]
	for j, x := range rowq {
		F[j] += d * x
	}
	if row != nil {
		f, row = f[:len(rowq)], row[:len(rowq)]
		df := float64(d)
		for j, x := range row {
			f[j] += df * x
		}
	}
}

// AddRowFix is AddRow with rowq = round(row scale) (see Table.UpdateFix);
// with f nil only F changes.
func AddRowFix(F []int32, f []float64, row []float64, scale float64, d int32) {
	F = F[:len(row)]
	df := float64(d)
	if f == nil {
		for j, x := range row {
			F[j] += fixBy(df*x, scale)
		}
		return
	}
	f = f[:len(row)]
	for j, x := range row {
		F[j] += fixBy(df*x, scale)
		f[j] += df * x
	}
}

// take flips available bit l within a walk: it becomes unavailable and the
// weights and sums are brought up to date.
func (e *Engine) take(l int) {
	e.mask[l] = 0
	e.t.Take(l)
	e.flipWeighed(l)
}

// release makes the bits of path available again with their weights.
func (e *Engine) release(path []int32) {
	for _, l := range path {
		e.mask[l] = ^uint32(0)
		c := e.bias.Class(e.s[l], e.F[l])
		e.t.Set(int(l), e.bias.W[0][c], e.bias.W[1][c])
	}
}

// logPick adds log w_l - log Z at both biases to lf.
func (e *Engine) logPick(lf *[2]float64, l int) {
	c := e.bias.Class(e.s[l], e.F[l])
	lf[0] += e.bias.Log[0][c] - math.Log(float64(e.t.Z(0)))
	lf[1] += e.bias.Log[1][c] - math.Log(float64(e.t.Z(1)))
}

// draw picks an available bit with probability w_l / Z_b exactly.
func (e *Engine) draw(r *rand.PCG, b int) int {
	return e.t.Draw(b, Uniform(r, e.t.Z(b)))
}

// Uniform is a uniform draw in [0, n) for n > 0 (Lemire's multiply-shift
// with rejection, as rng.Intn).
func Uniform(r *rand.PCG, n uint64) uint64 { return uint64(rng.Intn(r, int(n))) }

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (e *Engine) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > e.N() {
		panic(fmt.Sprintf("dense: walk of length %d on %d bits", k, e.N()))
	}
	e.prepare()
	start := len(path)
	e.rec.Begin(start, e.e)
	e0 := e.e
	var lf [2]float64
	for t := 0; t < k; t++ {
		l := e.draw(r, b)
		e.logPick(&lf, l)
		e.take(l)
		path = append(path, int32(l))
		e.rec.Add(e.t.Z(0), e.t.Z(1))
	}
	e.release(path[start:])
	e.rec.End(len(path))
	return path, lf, e.e - e0
}

// Replay flips path as one SAW (see saw.Engine). It panics if path repeats
// a bit.
func (e *Engine) Replay(path []int32, backwards bool) ([2]float64, float64) {
	e.prepare()
	e0 := e.e
	if backwards {
		e.rec.Invalidate()
	} else {
		e.rec.Begin(0, e.e)
	}
	var lf [2]float64
	for t := range path {
		if backwards {
			t = len(path) - 1 - t
		}
		l := int(path[t])
		if e.mask[l] == 0 {
			panic(fmt.Sprintf("dense: Replay path repeats bit %d", l))
		}
		e.logPick(&lf, l)
		e.take(l)
		e.rec.Add(e.t.Z(0), e.t.Z(1))
	}
	e.release(path)
	e.rec.End(len(path))
	return lf, e.e - e0
}

// Flip flips the bits of path, with no probability bookkeeping.
func (e *Engine) Flip(path []int32) {
	if e.since >= RefreshEvery {
		e.refresh()
	}
	for _, l := range path {
		e.flipFields(int(l))
	}
	e.stale = true
	e.rec.Invalidate()
}

// Cost is the RBM engine's measured cost model (saw.CostDense).
func (e *Engine) Cost() saw.Cost { return saw.CostDense }
