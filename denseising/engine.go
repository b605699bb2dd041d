package denseising

import (
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/dense"
	"sardonics/model"
	"sardonics/saw"
)

// RefreshEvery is the least number of flips between recomputations of the
// energy from scratch (an O(N^2) pass of dot products, done at the start
// of a Walk, Replay or Flip; at least 64 N flips apart, so that it costs
// under 2% of the flips). The fixed-point fields the weights come from are
// exact and never need it.
const RefreshEvery = 10000

// Every is the number of flips between refreshes of the energy of an
// engine of n spins.
func Every(n int) int { return max(RefreshEvery, 64*n) }

// Engine is the dense SARDONICS engine for any symmetric J (see the
// package doc). The zero value is not usable; call New.
type Engine struct {
	n      int
	d      *model.Dense
	q      *Quant
	s      []int8
	F      []int32 // fixed-point fields (exact)
	t      *Table  // pick weights (0 for a taken spin)
	gamma  [2]float64
	wf     saw.Weight
	bias   *dense.Bias
	biases dense.BiasCache
	e      float64
	stale  bool // weights and sums must be recomputed
	since  int  // flips since the last refresh of the energy
	every  int  // flips between refreshes
	rec    Record
}

var (
	_ saw.Engine       = (*Engine)(nil)
	_ saw.StateEngine  = (*Engine)(nil)
	_ saw.FastReverser = (*Engine)(nil)
	_ saw.Costed       = (*Engine)(nil)
)

// New returns an engine for the dense model d in state init (spins; nil
// means all -1; copied). Its fixed-point form is shared by every engine of
// d (QuantOf). Biases start at gamma_L = gamma_H = 1 with the logistic
// weight, as in saw.NewNaive; call SetBiases. It panics if len(init) !=
// d.N.
func New(d *model.Dense, init []int8) *Engine {
	n := d.N
	e := &Engine{
		n: n, d: d, q: QuantOf(d),
		s:     make([]int8, n),
		F:     make([]int32, n),
		t:     NewTable(n),
		gamma: [2]float64{1, 1},
		every: Every(n),
	}
	e.bias = e.biases.Get(e.q.S-1, 1, 1, saw.Logistic)
	if init == nil {
		init = make([]int8, n)
		for i := range init {
			init[i] = -1
		}
	}
	e.SetSpins(init)
	return e
}

// N is the number of spins.
func (e *Engine) N() int { return e.n }

// SetBiases sets gamma_L, gamma_H and the weight function. The classes are
// dense.Bias's at scale S-1: dE = 2 s f = s F 2^-(S-1).
func (e *Engine) SetBiases(gammaL, gammaH float64, w saw.Weight) {
	e.gamma = [2]float64{gammaL, gammaH}
	e.wf = w
	e.bias = e.biases.Get(e.q.S-1, gammaL, gammaH, w)
	e.stale = true
	e.rec.Invalidate()
}

// Energy is the current energy in the model's convention.
func (e *Engine) Energy() float64 { return e.e }

// Spins is the current state (read only).
func (e *Engine) Spins() []int8 { return e.s }

// SetSpins replaces the state. It panics if len(s) != N().
func (e *Engine) SetSpins(s []int8) {
	if len(s) != e.n {
		panic(fmt.Sprintf("denseising: SetSpins with %d spins (expected %d)", len(s), e.n))
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

// field is spin l's local field h_l + J_l . s in float64 (Dot's order).
func (e *Engine) field(l int) float64 { return Field(e.d, e.s, l) }

// Field is spin l's local field h_l + sum_j J_lj s_j in d, summed as
// Dot32 sums (a fixed order: every engine and chain gets the same bits).
func Field(d *model.Dense, s []int8, l int) float64 {
	n := d.N
	if d.J32 != nil {
		return d.H[l] + Dot32(d.J32[l*n:(l+1)*n], s)
	}
	return d.H[l] + Dot64(d.J64[l*n:(l+1)*n], s)
}

// AddRow adds c times row l of d's couplings to f (AddRow32 or AddRow64).
func AddRow(d *model.Dense, f []float64, l int, c float64) {
	n := d.N
	if d.J32 != nil {
		AddRow32(f, d.J32[l*n:(l+1)*n], c)
	} else {
		AddRow64(f, d.J64[l*n:(l+1)*n], c)
	}
}

// Energy is E(s) of d computed from its fields: Offset - sum_i s_i (f_i +
// h_i) / 2, f_i = Field(d, s, i), in index order.
func Energy(d *model.Dense, s []int8) float64 {
	x := 0.0
	for i := 0; i < d.N; i++ {
		x += float64(s[i]) * (Field(d, s, i) + d.H[i])
	}
	return d.Offset - x/2
}

// refresh recomputes the energy from scratch.
func (e *Engine) refresh() {
	e.e = Energy(e.d, e.s)
	e.since = 0
}

// prepare refreshes when due and brings the weights up to date.
func (e *Engine) prepare() {
	if e.since >= e.every {
		e.refresh()
	}
	if e.stale {
		e.t.Weigh(e.bias, e.s, e.F)
		e.t.Total()
		e.stale = false
	}
}

// row is spin l's fixed-point row.
func (e *Engine) row(l int) []int16 { return e.q.Q[l*e.n : (l+1)*e.n] }

// flipSpin flips spin l and updates the energy; it returns the new spin.
func (e *Engine) flipSpin(l int) int8 {
	sl := e.s[l]
	e.e += 2 * float64(sl) * e.field(l)
	e.s[l] = -sl
	e.since++
	return -sl
}

// flipWeighed flips spin l and updates every field, weight and sum in one
// pass over row l, which also gives l's field for the energy (Field's dot
// product, the same bits: J_ll = 0, so l's own spin adds a zero); the
// spins of walk (l included) are then taken.
func (e *Engine) flipWeighed(l int, walk []int32) {
	sl := e.s[l]
	e.s[l] = -sl
	n := e.n
	var dot float64
	if e.d.J32 != nil {
		dot = e.t.Update(e.bias, e.s, e.F, e.row(l), -2*int32(sl), e.d.J32[l*n:(l+1)*n])
	} else {
		e.t.Update(e.bias, e.s, e.F, e.row(l), -2*int32(sl), nil)
		dot = Dot64(e.d.J64[l*n:(l+1)*n], e.s)
	}
	e.e += 2 * float64(sl) * (e.d.H[l] + dot)
	e.since++
	e.t.TakeAll(walk)
	e.t.Total()
}

// flipFields flips spin l and updates the fixed-point fields only (the
// weights become stale).
func (e *Engine) flipFields(l int) {
	m := 2 * int32(e.flipSpin(l))
	AddQ(e.F, e.row(l), m)
	e.stale = true
}

// release makes the spins of path available again with their weights.
func (e *Engine) release(path []int32) {
	for _, l := range path {
		e.t.Set(int(l), e.bias.Pairs[e.bias.Class(e.s[l], e.F[l])])
	}
}

// logPick adds log w_l - log Z at both biases to lf.
func (e *Engine) logPick(lf *[2]float64, l int) {
	c := e.bias.Class(e.s[l], e.F[l])
	lf[0] += e.bias.Log[0][c] - math.Log(float64(e.t.Z[0]))
	lf[1] += e.bias.Log[1][c] - math.Log(float64(e.t.Z[1]))
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (e *Engine) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > e.n {
		panic(fmt.Sprintf("denseising: walk of length %d on %d spins", k, e.n))
	}
	e.prepare()
	start := len(path)
	e.rec.BeginPairs(start, e.e)
	e0 := e.e
	var lf [2]float64
	for range k {
		l := e.t.Draw(b, dense.Uniform(r, e.t.Z[b]))
		e.logPick(&lf, l)
		path = append(path, int32(l))
		e.flipWeighed(l, path[start:])
		e.rec.Add(e.t.Z[0], e.t.Z[1])
		e.rec.AddPairs(e.row(l), path[:len(path)-1])
	}
	e.release(path[start:])
	e.rec.End(len(path))
	return path, lf, e.e - e0
}

// Replay flips path as one SAW (see saw.Engine). It panics if path repeats
// a spin.
func (e *Engine) Replay(path []int32, backwards bool) ([2]float64, float64) {
	e.prepare()
	e0 := e.e
	if backwards {
		e.rec.Invalidate()
	} else {
		e.rec.BeginPairs(0, e.e)
	}
	var lf [2]float64
	for t := range path {
		if backwards {
			t = len(path) - 1 - t
		}
		l := int(path[t])
		if e.t.W[l] == 0 {
			panic(fmt.Sprintf("denseising: Replay path repeats spin %d", l))
		}
		e.logPick(&lf, l)
		if backwards {
			e.flipWeighed(l, path[t:])
		} else {
			e.flipWeighed(l, path[:t+1])
			e.rec.Add(e.t.Z[0], e.t.Z[1])
			e.rec.AddPairs(e.row(l), path[:t])
		}
	}
	e.release(path)
	e.rec.End(len(path))
	return lf, e.e - e0
}

// Flip flips the spins of path, with no probability bookkeeping.
func (e *Engine) Flip(path []int32) {
	if e.since >= e.every {
		e.refresh()
	}
	for _, l := range path {
		e.flipFields(int(l))
	}
	e.stale = true
	e.rec.Invalidate()
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Cost is the dense Ising engine's measured cost model on its N spins (saw.DenseIsingCost).
func (e *Engine) Cost() saw.Cost { return saw.DenseIsingCost(e.N()) }
