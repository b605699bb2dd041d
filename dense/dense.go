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

// Engine is the dense RBM engine. The zero value is not usable; call New.
type Engine struct {
	nv, nh int
	q      *Quant
	w      []float64 // V x H, row-major: the model's W (shared, read only)
	wt     []float64 // H x V, the transpose
	b, c   []float64
	s      []int8
	F      []int32   // fixed-point fields (exact), visible then hidden
	field  []float64 // visible: b_i + W_i.h; hidden: c_j + v.W_:j (for the energy)
	t      *Table    // pick weights, visible layer first
	mask   []uint32  // all ones for an available bit, 0 for a taken one
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
		wt:    make([]float64, len(r.W)),
		b:     append([]float64(nil), r.B...),
		c:     append([]float64(nil), r.C...),
		s:     make([]int8, n),
		F:     make([]int32, n),
		field: make([]float64, n),
		t:     NewTable(r.V, r.H),
		mask:  make([]uint32, n),
		gamma: [2]float64{1, 1},
	}
	Transpose(e.wt, r.W, r.V, r.H)
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
// bias plus the rows of the active bits of the other layer, added in
// index order (row by row, so no branch on a spin in the inner loop).
func (e *Engine) refresh() {
	nv, nh := e.nv, e.nh
	fv, fh := e.field[:nv], e.field[nv:]
	copy(fv, e.b)
	copy(fh, e.c)
	for j := 0; j < nh; j++ {
		if e.s[nv+j] > 0 {
			for i, x := range e.wt[j*nv : (j+1)*nv] {
				fv[i] += x
			}
		}
	}
	for i := 0; i < nv; i++ {
		if e.s[i] > 0 {
			for j, x := range e.w[i*nh : (i+1)*nh] {
				fh[j] += x
			}
		}
	}
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

// rows returns bit l's couplings to the other layer (fixed point and
// float64), the other layer's index and its range.
func (e *Engine) rows(l int) (rowq []int32, row []float64, k, lo, hi int) {
	nv, nh := e.nv, e.nh
	if l < nv {
		return e.q.W[l*nh : (l+1)*nh], e.w[l*nh : (l+1)*nh], 1, nv, nv + nh
	}
	j := l - nv
	return e.q.WT[j*nv : (j+1)*nv], e.wt[j*nv : (j+1)*nv], 0, 0, nv
}

// flipSpin flips bit l's spin and updates the energy; it returns the
// change of x_l (+1 or -1).
func (e *Engine) flipSpin(l int) int32 {
	sl := e.s[l]
	e.e += float64(sl) * e.field[l]
	e.s[l] = -sl
	e.since++
	return int32(-sl)
}

// flipWeighed flips bit l and updates the other layer's fields, weights and
// sums.
func (e *Engine) flipWeighed(l int) {
	d := e.flipSpin(l)
	rowq, row, k, lo, hi := e.rows(l)
	e.t.Update(k, e.bias, e.s[lo:hi], e.F[lo:hi], e.field[lo:hi], e.mask[lo:hi], rowq, row, d)
}

// flipFields flips bit l and updates the other layer's fields only (the
// weights become stale).
func (e *Engine) flipFields(l int) {
	d := e.flipSpin(l)
	rowq, row, _, lo, hi := e.rows(l)
	AddRow(e.F[lo:hi], e.field[lo:hi], rowq, row, d)
	e.stale = true
}

// AddRow adds d times a row of couplings to fields: the fixed-point row
// rowq to F, the float64 row to f (a flip's change of the other layer's
// fields, without the weights).
func AddRow(F []int32, f []float64, rowq []int32, row []float64, d int32) {
	F, f, row = F[:len(rowq)], f[:len(rowq)], row[:len(rowq)]
	df := float64(d)
	for j, x := range rowq {
		F[j] += d * x
		f[j] += df * row[j]
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
