package parallelsaw

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"

	"sardonics/dense"
	"sardonics/denseising"
	"sardonics/model"
	"sardonics/saw"
)

// The dense engine: package denseising's engine with its spins split into
// P contiguous sections (see the package doc, "Dense models").

// Commands of the dense engine (dcmd.op).
const (
	dopStep   op = iota + 1 // flip one spin: fields, weights, takes, pairs, release
	dopWeigh                // every weight from the fixed-point fields
	dopFlip                 // flip path: fields only, and each row's partial dot
	dopUndo                 // flip path: fields only
	dopFields               // fixed-point fields from the coordinator's spins
	dopEnergy               // each own spin's float64 field, from scratch
)

// dcmd is the dense engine's command, on the line of its sequence number.
type dcmd struct {
	_       [64]byte
	seq     atomic.Uint64
	op      op
	flip    int32 // dopStep: the spin flipped
	m       int32 // dopStep: its change (2 s', s' the new spin)
	exact   bool  // dopStep: the flipped row's dot comes from the sections
	bias    *dense.Bias
	walk    []int32 // dopStep: the spins the walk has taken (flip included)
	pairs   []int32 // dopStep: where Q between flip and earlier[j] goes, at j (nil: not kept)
	earlier []int32 // dopStep: the path's earlier spins
	release []int32 // dopStep: spins made available after the flip
	path    []int32 // dopFlip, dopUndo
	dx      []int8  // dopFlip, dopUndo: the new spin of each flip of path
	_       [64]byte
}

// dresult is written by whoever ran the section's command.
type dresult struct {
	_ [64]byte
	handoff
	zf  [2]uint64 // dopStep: sums after the flip and takes, before the release
	z   [2]uint64 // dopStep, dopWeigh: sums at the end
	dot float64   // dopStep: the section's part of the flipped row's dot (section 0: all of it for an inexact row)
	_   [64]byte
}

// dsection is one section of the dense engine: spins [lo, hi), n of them.
type dsection struct {
	out    dresult
	slot   // the hand-off
	lo, hi int
	n      int
	q      []int16 // N x n: Q[l, lo+j] at l*n+j, from the model's rows (its own copy)
	s      []int8  // its spins (a copy of the coordinator's)
	F      []int32 // fixed-point fields of its spins (exact)
	t      *denseising.Table
	fields []float64 // dopEnergy: float64 fields of its spins
	dots   []float64 // dopFlip: partial dot of each path row
	qexp   []int32   // built: per row, the exponent of the finest power of 2 dividing its part's couplings
	abs    []float64 // built: per row, the sum of the absolute values of its part's couplings
	_      [64]byte
}

// dshared is what the dense engine's workers see.
type dshared struct {
	hub
	cmd   dcmd
	secs  []*dsection
	d     *model.Dense
	S     int     // fixed-point scale (denseising.Scale)
	hq    []int32 // fixed-point fields of the model's h
	s     []int8  // the spins: written by the coordinator between commands
	exact []bool  // per row: its dot is the same in any order (see rowExact)
}

// DenseEngine is the partitioned parallel SARDONICS engine for dense
// Ising models: denseising.Engine's chain, bit for bit, with each flip's
// pass over a row split between P sections. The zero value is not usable;
// call NewDense.
type DenseEngine struct {
	sh     *dshared
	n      int
	owner  []uint8 // section of each spin
	avail  []bool  // Replay: spins not yet replayed
	gamma  [2]float64
	wf     saw.Weight
	bias   *dense.Bias
	biases dense.BiasCache
	e      float64
	stale  bool // weights and sums must be recomputed
	since  int
	every  int
	rec    denseising.Record
	z      [2]uint64 // the sums at both biases, as of the last command
	dx     []int8
}

var (
	_ saw.Engine       = (*DenseEngine)(nil)
	_ saw.StateEngine  = (*DenseEngine)(nil)
	_ saw.FastReverser = (*DenseEngine)(nil)
	_ saw.Costed       = (*DenseEngine)(nil)
)

// sectionAlign is the granule of the sections' bounds: 64 spins, a cache
// line of spins, 4 of fields and a block of the weight table (so no line
// of the model's rows is split between sections), when every section can
// have one.
const sectionAlign = 64

// denseBounds returns the P+1 bounds of the sections of n spins: the
// nearest multiples of sectionAlign to p n / P (when n >= sectionAlign P;
// else p n / P), so that sections are as equal as alignment allows.
func denseBounds(n, P int) []int {
	b := make([]int, P+1)
	for p := range b {
		x := p * n / P
		if n >= sectionAlign*P {
			x = (p*n + P*sectionAlign/2) / (P * sectionAlign) * sectionAlign
		}
		b[p] = min(x, n)
	}
	b[P] = n
	return b
}

// NewDense returns the dense engine for d in state init (spins; nil means
// all -1; copied) with P sections, 1 <= P <= min(MaxP, N). Worker p (1 <=
// p < P) is pinned to cpus[p] when p < len(cpus); section 0 runs on the
// caller's goroutine. Each section builds its own copy of its columns of
// the fixed-point matrix (N x its spins, int16), on its own thread, so the
// engine holds what denseising.Engine holds (the model's matrix and one
// int16 matrix). Biases start at gamma_L = gamma_H = 1 with the logistic
// weight.
func NewDense(d *model.Dense, init []int8, P int, cpus []int) (*DenseEngine, error) {
	n := d.N
	if P < 1 || P > min(MaxP, n) {
		return nil, fmt.Errorf("parallelsaw: %d sections for %d spins (expected 1..%d)", P, n, min(MaxP, n))
	}
	if init != nil && len(init) != n {
		return nil, fmt.Errorf("parallelsaw: %d initial spins (expected %d)", len(init), n)
	}
	S := denseising.Scale(d)
	sh := &dshared{d: d, S: S, hq: denseising.FixFields(d, S), s: make([]int8, n), exact: make([]bool, n)}
	e := &DenseEngine{sh: sh, n: n, owner: make([]uint8, n), avail: make([]bool, n), gamma: [2]float64{1, 1}, every: denseising.Every(n)}
	e.bias = e.biases.Get(S-1, 1, 1, saw.Logistic)
	bounds := denseBounds(n, P)
	slots := make([]*slot, P)
	for p := 0; p < P; p++ {
		sc := &dsection{lo: bounds[p], hi: bounds[p+1]}
		sc.n = sc.hi - sc.lo
		sc.ho, sc.do = &sc.out.handoff, func() { sc.exec(sh, p) }
		for i := sc.lo; i < sc.hi; i++ {
			e.owner[i] = uint8(p)
		}
		sh.secs = append(sh.secs, sc)
		slots[p] = &sc.slot
	}
	for i := range e.avail {
		e.avail[i] = true
	}
	sh.init(&sh.cmd.seq, slots)
	sh.start(cpus, func(p int) { sh.secs[p].build(sh) })
	runtime.AddCleanup(e, func(sh *dshared) { sh.quit() }, sh)
	sh.rowsExact()
	if init == nil {
		init = make([]int8, n)
		for i := range init {
			init[i] = -1
		}
	}
	e.SetSpins(init)
	return e, nil
}

// build allocates and fills the section: its columns of the fixed-point
// matrix (read from the model's rows: Q is symmetric, so column j of row l
// is row j's coupling to l), with each row part's finest power of 2 and
// sum of absolute values.
func (sc *dsection) build(sh *dshared) {
	d, N, n := sh.d, sh.d.N, sc.n
	sc.q = make([]int16, N*n)
	sc.qexp, sc.abs = make([]int32, N), make([]float64, N)
	for l := 0; l < N; l++ {
		dst, a, b := sc.q[l*n:(l+1)*n], l*N+sc.lo, l*N+sc.hi
		if d.J32 != nil {
			denseising.FixRow(dst, d.J32[a:b], sh.S)
			sc.qexp[l], sc.abs[l] = quanta(d.J32[a:b])
		} else {
			denseising.FixRow(dst, d.J64[a:b], sh.S)
			sc.qexp[l], sc.abs[l] = quanta(d.J64[a:b])
		}
	}
	sc.s, sc.F = make([]int8, n), make([]int32, n)
	sc.t = denseising.NewTable(n)
	sc.fields = make([]float64, n)
}

// quanta returns the exponent of the largest power of 2 that divides
// every coupling of row (MaxInt32 for a row of zeros) and the sum of
// their absolute values.
func quanta[R denseising.Row](row []R) (int32, float64) {
	ex, ab := int32(math.MaxInt32), 0.0
	for _, x := range row {
		y := float64(x) // exact
		ab += math.Abs(y)
		b := math.Float64bits(y) &^ (1 << 63)
		if b == 0 {
			continue
		}
		e, m := int32(b>>52), b&(1<<52-1)
		if e == 0 {
			e = 1 // subnormal: m 2^-1074
		} else {
			m |= 1 << 52
		}
		ex = min(ex, e-1075+int32(bits.TrailingZeros64(m)))
	}
	return ex, ab
}

// rowsExact decides, for each row, whether its dot with any spins is the
// same float64 in any order of summation (rowExact), from the sections'
// parts, which they measured as they built them.
func (sh *dshared) rowsExact() {
	for l := range sh.exact {
		ex, ab := int32(math.MaxInt32), 0.0
		for _, sc := range sh.secs {
			ex, ab = min(ex, sc.qexp[l]), ab+sc.abs[l]
		}
		sh.exact[l] = rowExact(ex, ab)
	}
	for _, sc := range sh.secs {
		sc.qexp, sc.abs = nil, nil
	}
}

// rowExact: a row whose couplings are multiples of 2^ex with absolute
// values summing to ab (computed in float64, so within a relative 2^-40 of
// the true sum for N <= 8192) has every partial sum of +-couplings an
// integer multiple of 2^ex of magnitude at most ab: when that multiple is
// below 2^53 it is a float64, so every addition of its dot with spins is
// exact and the dot is the same float64 in every order (the serial
// kernel's lanes, a section's part, the sum of the parts). A row of
// float32 couplings of a few decades (an SK matrix) mostly is; a row of
// arbitrary float64 couplings mostly is not, and its dot is computed
// whole, in the serial engine's order.
func rowExact(ex int32, ab float64) bool {
	if ab == 0 {
		return true
	}
	return math.Ldexp(ab*(1+0x1p-30), -int(ex)) < 0x1p53
}

// Close stops the workers. The engine must not be used afterwards.
func (e *DenseEngine) Close() { e.sh.quit() }

// WorkerCPUSeconds is the CPU time so far of the worker threads (see
// Engine.WorkerCPUSeconds).
func (e *DenseEngine) WorkerCPUSeconds() float64 { return e.sh.workerCPUSeconds() }

// WaitCPUSeconds is the CPU time so far that the coordinator and the
// workers spent waiting for each other (see Engine.WaitCPUSeconds).
func (e *DenseEngine) WaitCPUSeconds() float64 { return e.sh.waitCPUSeconds() }

// PinError reports the workers' pinning failures (nil if none).
func (e *DenseEngine) PinError() error { return e.sh.pinError() }

// P is the number of sections.
func (e *DenseEngine) P() int { return len(e.sh.secs) }

// N is the number of spins.
func (e *DenseEngine) N() int { return e.n }

// Energy is the current energy in the model's convention.
func (e *DenseEngine) Energy() float64 { return e.e }

// Spins is the current state (read only).
func (e *DenseEngine) Spins() []int8 { return e.sh.s }

// SetBiases sets gamma_L, gamma_H and the weight function (as
// denseising.Engine.SetBiases).
func (e *DenseEngine) SetBiases(gammaL, gammaH float64, w saw.Weight) {
	e.gamma = [2]float64{gammaL, gammaH}
	e.wf = w
	e.bias = e.biases.Get(e.sh.S-1, gammaL, gammaH, w)
	e.stale = true
	e.rec.Invalidate()
}

// SetSpins replaces the state. It panics if len(s) != N().
func (e *DenseEngine) SetSpins(s []int8) {
	if len(s) != e.n {
		panic(fmt.Sprintf("parallelsaw: SetSpins with %d spins (expected %d)", len(s), e.n))
	}
	for i, v := range s {
		if v > 0 {
			e.sh.s[i] = 1
		} else {
			e.sh.s[i] = -1
		}
	}
	e.command(dopFields)
	e.refresh()
	e.stale = true
	e.rec.Invalidate()
}

// AppendState appends the engine's state in denseising.Engine's format
// (the same chain: either engine restores it).
func (e *DenseEngine) AppendState(b []byte) []byte {
	return denseising.AppendState(b, e.sh.s, e.e, e.since)
}

// RestoreState restores a state AppendState (this engine's or
// denseising.Engine's) wrote for the same model. On an error the engine
// is unchanged.
func (e *DenseEngine) RestoreState(b []byte) error {
	s, en, since, err := denseising.ReadState(b, e.n)
	if err != nil {
		return err
	}
	copy(e.sh.s, s)
	e.command(dopFields)
	e.e, e.since = en, since
	e.stale = true
	e.rec.Invalidate()
	return nil
}

// command runs a command with no arguments on every section.
func (e *DenseEngine) command(o op) {
	e.sh.cmd.op = o
	e.sh.run()
}

// refresh recomputes the energy from scratch: each section computes its
// spins' fields (denseising.Field), summed here in index order as
// denseising.Energy sums them.
func (e *DenseEngine) refresh() {
	e.command(dopEnergy)
	d, x := e.sh.d, 0.0
	for _, sc := range e.sh.secs {
		for k, f := range sc.fields {
			i := sc.lo + k
			x += float64(e.sh.s[i]) * (f + d.H[i])
		}
	}
	e.e = d.Offset - x/2
	e.since = 0
}

// prepare refreshes the energy when due and brings the weights up to date.
func (e *DenseEngine) prepare() {
	if e.since >= e.every {
		e.refresh()
	}
	if e.stale {
		e.sh.cmd.bias = e.bias
		e.command(dopWeigh)
		e.z = e.sums(false)
		e.stale = false
	}
}

// sums is Z at both biases, the sum of the sections' (after the flip, with
// zf): exact integers, equal to the serial engine's.
func (e *DenseEngine) sums(zf bool) [2]uint64 {
	var z [2]uint64
	for _, sc := range e.sh.secs {
		x := &sc.out.z
		if zf && !brokenSums {
			x = &sc.out.zf
		}
		z[0] += x[0]
		z[1] += x[1]
	}
	return z
}

// local is spin l's section and index there.
func (e *DenseEngine) local(l int) (*dsection, int) {
	sc := e.sh.secs[e.owner[l]]
	return sc, l - sc.lo
}

// FixedField is spin l's fixed-point field (denseising.Fixed).
func (e *DenseEngine) FixedField(l int32) int32 {
	sc, k := e.local(int(l))
	return sc.F[k]
}

// FixedCoupling is Q_ab (denseising.Fixed).
func (e *DenseEngine) FixedCoupling(a, b int32) int32 {
	sc, k := e.local(int(b))
	return int32(sc.q[int(a)*sc.n+k])
}

// draw picks an available spin at bias b with probability w_l / Z_b, from
// u uniform in [0, Z_b): the spin at which the running sum of the weights
// in index order first exceeds u, as the serial engine's table.Draw (the
// same u gives the same spin): the section by the sections' sums, then the
// spin by the section's table.
func (e *DenseEngine) draw(r *rand.PCG, b int) int {
	u := dense.Uniform(r, e.z[b])
	for _, sc := range e.sh.secs {
		if z := sc.out.z[b]; u >= z {
			u -= z
			continue
		}
		return sc.lo + sc.t.Draw(b, u)
	}
	panic("parallelsaw: draw past the sums")
}

// logPick adds log w_l - log Z at both biases to lf.
func (e *DenseEngine) logPick(lf *[2]float64, l int) {
	c := e.bias.Class(e.sh.s[l], e.FixedField(int32(l)))
	lf[0] += e.bias.Log[0][c] - math.Log(float64(e.z[0]))
	lf[1] += e.bias.Log[1][c] - math.Log(float64(e.z[1]))
}

// flipWeighed flips spin l on every section (fields, weights, the takes of
// walk, the couplings to earlier into pairs when not nil, the release of
// release when not nil) and updates the energy by the row's dot, as
// denseising.Engine.flipWeighed does. It returns the sums right after the
// flip.
func (e *DenseEngine) flipWeighed(l int, walk, earlier, pairs, release []int32) [2]uint64 {
	sh := e.sh
	sl := sh.s[l]
	sh.s[l] = -sl
	c := &sh.cmd
	c.op, c.flip, c.m, c.exact, c.bias = dopStep, int32(l), -2*int32(sl), sh.exact[l], e.bias
	c.walk, c.earlier, c.pairs, c.release = walk, earlier, pairs, release
	sh.run()
	c.walk, c.earlier, c.pairs, c.release = nil, nil, nil, nil
	dot := sh.secs[0].out.dot
	if c.exact {
		for _, sc := range sh.secs[1:] {
			dot += sc.out.dot
		}
	}
	e.e += 2 * float64(sl) * (sh.d.H[l] + dot)
	e.since++
	e.z = e.sums(false)
	return e.sums(true)
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (e *DenseEngine) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > e.n {
		panic(fmt.Sprintf("parallelsaw: walk of length %d on %d spins", k, e.n))
	}
	e.prepare()
	start := len(path)
	e.rec.BeginPairs(start, e.e)
	e0 := e.e
	var lf [2]float64
	for t := range k {
		l := e.draw(r, b)
		e.logPick(&lf, l)
		path = append(path, int32(l))
		i := len(path) - 1
		pairs, _ := e.rec.PairSlots(i)
		var release []int32
		if t == k-1 {
			release = path[start:]
		}
		zf := e.flipWeighed(l, path[start:], path[:i], pairs, release)
		e.rec.Add(zf[0], zf[1])
	}
	e.rec.End(len(path))
	return path, lf, e.e - e0
}

// Replay flips path as one SAW (see saw.Engine). It panics if path repeats
// a spin.
func (e *DenseEngine) Replay(path []int32, backwards bool) ([2]float64, float64) {
	e.prepare()
	e0 := e.e
	if backwards {
		e.rec.Invalidate()
	} else {
		e.rec.BeginPairs(0, e.e)
	}
	var lf [2]float64
	defer func() {
		for _, l := range path {
			e.avail[l] = true
		}
	}()
	for t := range path {
		if backwards {
			t = len(path) - 1 - t
		}
		l := int(path[t])
		if !e.avail[l] {
			panic(fmt.Sprintf("parallelsaw: Replay path repeats spin %d", l))
		}
		e.avail[l] = false
		e.logPick(&lf, l)
		last := t == 0 && backwards || t == len(path)-1 && !backwards
		var release []int32
		if last {
			release = path
		}
		if backwards {
			e.flipWeighed(l, path[t:], nil, nil, release)
		} else {
			pairs, _ := e.rec.PairSlots(t)
			zf := e.flipWeighed(l, path[:t+1], path[:t], pairs, release)
			e.rec.Add(zf[0], zf[1])
		}
	}
	e.rec.End(len(path))
	return lf, e.e - e0
}

// Flip flips the spins of path, with no probability bookkeeping (as
// denseising.Engine.Flip: the energy by each row's dot in turn).
func (e *DenseEngine) Flip(path []int32) {
	if e.since >= e.every {
		e.refresh()
	}
	sh := e.sh
	sh.cmd.op = dopFlip
	e.flipsOut(path)
	for k, l := range path {
		var dot float64
		if sh.exact[l] {
			dot = sh.secs[0].dots[k]
			for _, sc := range sh.secs[1:] {
				dot += sc.dots[k]
			}
		} else {
			dot = rowDot(sh.d, int(l), 0, sh.d.N, sh.s)
		}
		sl := sh.s[l]
		e.e += 2 * float64(sl) * (sh.d.H[l] + dot)
		sh.s[l] = -sl
		e.since++
	}
	e.stale = true
	e.rec.Invalidate()
}

// flipsOut runs the command (dopFlip or dopUndo) on the flips of path,
// each with its new spin; the coordinator's spins are left as they were.
func (e *DenseEngine) flipsOut(path []int32) {
	sh := e.sh
	e.dx = e.dx[:0]
	for _, l := range path {
		sh.s[l] = -sh.s[l]
		e.dx = append(e.dx, sh.s[l])
	}
	for _, l := range path { // back: a spin flipped twice is flipped back twice
		sh.s[l] = -sh.s[l]
	}
	sh.cmd.path, sh.cmd.dx = path, e.dx
	sh.run()
	sh.cmd.path, sh.cmd.dx = nil, nil
}

// rowDot is the dot of row l's couplings [lo, hi) with s (s indexed from
// lo), in Dot32's (Dot64's) order.
func rowDot(d *model.Dense, l, lo, hi int, s []int8) float64 {
	n := d.N
	if d.J32 != nil {
		return denseising.Dot32(d.J32[l*n+lo:l*n+hi], s)
	}
	return denseising.Dot64(d.J64[l*n+lo:l*n+hi], s)
}

// FastAcceptance is 0: the fast reverse always pays (see denseising).
func (e *DenseEngine) FastAcceptance() float64 { return 0 }

// ReverseLogProbs scores the reverse walks from the record of the forward
// ones, as denseising.Engine does (see saw.FastReverser).
func (e *DenseEngine) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	return e.rec.Reverse(e.bias, path, bounds, e, e.sh.s, rev)
}

// Undo flips the spins of path back (see saw.FastReverser); the energy
// returns exactly to its value before the recorded walks.
func (e *DenseEngine) Undo(path []int32) {
	sh := e.sh
	sh.cmd.op = dopUndo
	e.flipsOut(path)
	for _, l := range path {
		sh.s[l] = -sh.s[l]
	}
	e.since += len(path)
	if e0, ok := e.rec.E0(len(path)); ok {
		e.e = e0
	} else {
		e.refresh()
	}
	e.stale = true
	e.rec.Invalidate()
}

// exec runs the current command on section p.
func (sc *dsection) exec(sh *dshared, p int) {
	c := &sh.cmd
	switch c.op {
	case dopStep:
		sc.step(sh, c, p)
	case dopWeigh:
		sc.t.Weigh(c.bias, sc.s, sc.F)
		sc.t.Total()
		sc.out.z = sc.t.Z
	case dopFlip:
		sc.dots = slices.Grow(sc.dots[:0], len(c.path))[:len(c.path)]
		for k, l := range c.path {
			if sh.exact[l] {
				sc.dots[k] = rowDot(sh.d, int(l), sc.lo, sc.hi, sc.s)
			}
			sc.flipFields(int(l), c.dx[k])
		}
	case dopUndo:
		for k, l := range c.path {
			sc.flipFields(int(l), c.dx[k])
		}
	case dopFields:
		copy(sc.s, sh.s[sc.lo:sc.hi])
		copy(sc.F, sh.hq[sc.lo:sc.hi])
		for l := range sh.d.N {
			denseising.AddQ(sc.F, sc.row(l), int32(sh.s[l]))
		}
	case dopEnergy:
		for k := range sc.n {
			sc.fields[k] = denseising.Field(sh.d, sh.s, sc.lo+k)
		}
	}
}

// row is spin l's fixed-point couplings to this section's spins.
func (sc *dsection) row(l int) []int16 { return sc.q[l*sc.n : (l+1)*sc.n] }

// flipFields sets spin l to x (in this section's copy when it holds it)
// and adds the change to the fixed-point fields.
func (sc *dsection) flipFields(l int, x int8) {
	if k := l - sc.lo; k >= 0 && k < sc.n {
		sc.s[k] = x
	}
	denseising.AddQ(sc.F, sc.row(l), 2*int32(x))
}

// step is dopStep on this section (p its index).
func (sc *dsection) step(sh *dshared, c *dcmd, p int) {
	l, lo := int(c.flip), sc.lo
	if k := l - lo; k >= 0 && k < sc.n {
		sc.s[k] = int8(c.m / 2)
	}
	row, dot := sc.row(l), 0.0
	d, N := sh.d, sh.d.N
	switch {
	case c.exact && d.J32 != nil:
		dot = sc.t.Update(c.bias, sc.s, sc.F, row, c.m, d.J32[l*N+lo:l*N+sc.hi])
	case c.exact:
		sc.t.Update(c.bias, sc.s, sc.F, row, c.m, nil)
		dot = denseising.Dot64(d.J64[l*N+lo:l*N+sc.hi], sc.s)
	default:
		sc.t.Update(c.bias, sc.s, sc.F, row, c.m, nil)
		if p == 0 { // the coordinator: the whole row, in the serial order
			dot = rowDot(d, l, 0, N, sh.s)
		}
	}
	for _, u := range c.walk {
		if k := int(u) - lo; k >= 0 && k < sc.n {
			sc.t.Take(k)
		}
	}
	sc.t.Total()
	sc.out.zf = sc.t.Z
	if c.pairs != nil {
		for j, u := range c.earlier {
			if k := int(u) - lo; k >= 0 && k < sc.n {
				c.pairs[j] = int32(row[k])
			}
		}
	}
	if c.release != nil {
		tb := c.bias
		for _, u := range c.release {
			if k := int(u) - lo; k >= 0 && k < sc.n {
				sc.t.Set(k, tb.Pairs[tb.Class(sc.s[k], sc.F[k])])
			}
		}
	}
	sc.out.z = sc.t.Z
	sc.out.dot = dot
}

// Cost is the serial dense Ising engine's (saw.DenseIsingCost): its flips cost the same CPU, spread over the sections.
func (e *DenseEngine) Cost() saw.Cost { return saw.DenseIsingCost(e.N()) }
