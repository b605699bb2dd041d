package dense

import (
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

// RefreshEvery is the number of flips between recomputations of the fields
// and the energy from scratch (done at the start of a Walk, Replay or Flip).
const RefreshEvery = 10000

// Engine is the dense RBM engine. The zero value is not usable; call New.
type Engine struct {
	nv, nh int
	w      []float64 // V x H, row-major (a copy of the model's W)
	wt     []float64 // H x V, the transpose
	b, c   []float64
	s      []int8
	field  []float64 // visible: b_i + W_i.h; hidden: c_j + v.W_:j
	t      *Table    // pick weights, visible layer first
	avail  []bool
	gamma  [2]float64
	wf     saw.Weight
	e      float64
	stale  bool // weights and sums must be recomputed
	since  int  // flips since the last refresh
}

var _ saw.Engine = (*Engine)(nil)

// New returns an engine for r in state init (spins, visible then hidden; nil
// means all -1, i.e. all bits 0; copied). Biases start at gamma_L = gamma_H
// = 1 with the logistic weight, as in saw.NewNaive; call SetBiases. It
// panics if len(init) != V+H.
func New(r *model.RBM, init []int8) *Engine {
	n := r.V + r.H
	e := &Engine{
		nv: r.V, nh: r.H,
		w:     append([]float64(nil), r.W...),
		wt:    make([]float64, len(r.W)),
		b:     append([]float64(nil), r.B...),
		c:     append([]float64(nil), r.C...),
		s:     make([]int8, n),
		field: make([]float64, n),
		t:     NewTable(r.V, r.H),
		avail: make([]bool, n),
		gamma: [2]float64{1, 1},
	}
	for i := 0; i < r.V; i++ {
		for j := 0; j < r.H; j++ {
			e.wt[j*r.V+i] = r.W[i*r.H+j]
		}
	}
	for i := range e.avail {
		e.avail[i] = true
	}
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
	e.stale = true
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
	e.refresh()
}

// refresh recomputes the fields and the energy from scratch.
func (e *Engine) refresh() {
	nv, nh := e.nv, e.nh
	for i := 0; i < nv; i++ {
		f := e.b[i]
		row := e.w[i*nh : (i+1)*nh]
		for j, x := range row {
			if e.s[nv+j] > 0 {
				f += x
			}
		}
		e.field[i] = f
	}
	en := 0.0
	for j := 0; j < nh; j++ {
		f := e.c[j]
		row := e.wt[j*nv : (j+1)*nv]
		for i, x := range row {
			if e.s[i] > 0 {
				f += x
			}
		}
		e.field[nv+j] = f
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
	e.stale = true
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
	e.t.Reweigh(k, e.wf, e.gamma[0], e.gamma[1], e.s[lo:hi], e.field[lo:hi], e.avail[lo:hi])
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

// flipField flips bit l, updates the energy and the other layer's fields,
// and returns that layer.
func (e *Engine) flipField(l int) int {
	nv, nh := e.nv, e.nh
	sl := e.s[l]
	e.e += float64(sl) * e.field[l]
	sl = -sl
	e.s[l] = sl
	d := float64(sl) // change of x_l
	e.since++
	if l < nv {
		row := e.w[l*nh : (l+1)*nh]
		f := e.field[nv : nv+nh]
		for j, x := range row {
			f[j] += d * x
		}
		return 1
	}
	row := e.wt[(l-nv)*nv : (l-nv+1)*nv]
	f := e.field[:nv]
	for i, x := range row {
		f[i] += d * x
	}
	return 0
}

// take flips available bit l within a walk: it becomes unavailable and the
// weights and sums are brought up to date.
func (e *Engine) take(l int) {
	e.avail[l] = false
	other := e.flipField(l)
	e.t.Take(l)
	e.reweigh(other)
}

// release makes the bits of path available again and recomputes the weights.
func (e *Engine) release(path []int32) {
	g0, g1, wf := e.gamma[0], e.gamma[1], e.wf
	for _, l := range path {
		e.avail[l] = true
		dE := float64(e.s[l]) * e.field[l]
		e.t.Set(int(l), Weight(wf, g0, dE), Weight(wf, g1, dE))
	}
	e.t.SumLayers()
}

// logPick adds log w_l - log Z at both biases to lf.
func (e *Engine) logPick(lf *[2]float64, l int) {
	dE := float64(e.s[l]) * e.field[l]
	for b := 0; b < 2; b++ {
		lf[b] += LogWeight(e.wf, e.gamma[b], dE) - math.Log(e.t.Z(b))
	}
}

// draw picks an available bit with probability w_l / Z_b (Table.Draw).
func (e *Engine) draw(r *rand.PCG, b int) int {
	return e.t.Draw(b, rng.Float64(r)*e.t.Z(b))
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (e *Engine) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > e.N() {
		panic(fmt.Sprintf("dense: walk of length %d on %d bits", k, e.N()))
	}
	e.prepare()
	start := len(path)
	e0 := e.e
	var lf [2]float64
	for t := 0; t < k; t++ {
		l := e.draw(r, b)
		e.logPick(&lf, l)
		e.take(l)
		path = append(path, int32(l))
	}
	e.release(path[start:])
	return path, lf, e.e - e0
}

// Replay flips path as one SAW (see saw.Engine). It panics if path repeats
// a bit.
func (e *Engine) Replay(path []int32, backwards bool) ([2]float64, float64) {
	e.prepare()
	e0 := e.e
	var lf [2]float64
	for t := range path {
		if backwards {
			t = len(path) - 1 - t
		}
		l := int(path[t])
		if !e.avail[l] {
			panic(fmt.Sprintf("dense: Replay path repeats bit %d", l))
		}
		e.logPick(&lf, l)
		e.take(l)
	}
	e.release(path)
	return lf, e.e - e0
}

// Flip flips the bits of path, with no probability bookkeeping.
func (e *Engine) Flip(path []int32) {
	if e.since >= RefreshEvery {
		e.refresh()
	}
	for _, l := range path {
		e.flipField(int(l))
	}
	e.stale = true
}
