package parallelsaw

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"sardonics/dense"
	"sardonics/model"
	"sardonics/sampler"
	"sardonics/saw"
)

// Both engines run sections on worker threads and account for them.
var (
	_ sampler.ThreadCPU = (*Engine)(nil)
	_ sampler.ThreadCPU = (*DenseEngine)(nil)
)

// RefreshEvery is the number of flips between recomputations of the float64
// fields and the energy from scratch (at the start of a Walk, Replay or
// Flip).
const RefreshEvery = 10000

// MaxP bounds the number of sections.
const MaxP = 256

type op int32

const (
	opNop op = iota
	opBias
	opRefresh
	opSet
	opFlip
	opStep
	opWalk
	opQuit
)

// command is written by the coordinator before it stores seq; workers read
// it after they load the new seq.
type command struct {
	_    [64]byte
	seq  atomic.Uint64
	op   op
	flip int32 // bit flipped by opStep, or -1
	d    int32 // its new spin (the change of x)
	draw bool
	b    int32
	r    [2]uint64   // opStep with draw: random words for the candidate
	bias *dense.Bias // opBias
	path []int32     // opFlip: bits; opStep: bits to make available again
	dx   []int32     // opFlip: change of x for each bit of path
	// opWalk, a lockstep walk (walkSteps): steps j0..wk, the first
	// flipping first (to firstD; -1: none); per step j < wk two random
	// words for the candidate, then (P > 1) the word of the pick; step
	// j's lines hold base + j. The coordinator writes picks and stop (the
	// step whose pick the sections could not make, -1 if none).
	j0, wk        int32
	first, firstD int32
	words         []uint64
	base          uint64
	picks         []walkPick
	stop          int32
	_             [64]byte
}

// result is written by whoever ran the section's command (its worker, or
// the coordinator) before the round ends.
type result struct {
	_ [64]byte
	handoff
	stepOut
	epart float64
	_     [64]byte
}

// stepOut is what a section reports after a step: its sums right after
// the flip and at the end, and its candidate.
type stepOut struct {
	zf    [2]uint64 // sums after the flip, before the release
	z     [2]uint64 // sums at the end
	cand  int32     // candidate (global bit), -1 if none, -2 if not drawn
	candF int32     // the candidate's fixed-point field
	candD int32     // the candidate's spin once flipped
	ns    int64     // the step's kernel time, when profiling (else 0)
}

// stepLine is a section's report of one step of a lockstep walk, on its
// own cache line: seq (the line's base + step, stored last) says which.
// Each section has two, for even and odd steps: a section writes step
// j + 2's line only after every section has published step j + 1, which
// each does after reading step j's lines.
type stepLine struct {
	_   [64]byte
	seq atomic.Uint64
	stepOut
	_ [64]byte
}

// walkPick is the record of one pick of a lockstep walk, kept by the
// coordinator: the bit, its fixed-point field and new spin, the sums Z
// it was drawn from, and the sums right after its flip.
type walkPick struct {
	l, F, d int32
	z, zf   [2]uint64
}

// section is one worker's share of the state.
type section struct {
	out result
	slot
	vlo, vhi int
	hlo, hhi int
	vp, hp   int
	q        *dense.Quant // scale only (no matrix; shared, read only)
	whq      []int32      // H x vp: W[vlo+i, j] at j*vp+i, in fixed point (dense.Quant.Fix)
	// A full section (below dense.CompactFrom) also has wvq and wh; a
	// compact one derives a visible flip's fixed-point couplings from the
	// model's float64 row (UpdateFix) and logs hidden flips for its
	// visible float64 fields (hflips), as dense.Engine does.
	wvq    []int32   // V x hp: W[i, hlo+j] at i*hp+j, in fixed point; nil if compact
	wh     []float64 // H x vp: whq in float64; nil if compact
	b, c   []float64
	bq, cq []int32
	sl     []int8    // spins of this section's bits (a copy): visible part, then hidden
	F      []int32   // fixed-point fields: visible part (vp), then hidden (hp)
	f      []float64 // float64 fields, the same layout; visible field i as of hflips[:upto[i]] if compact
	// hflips are a compact section's hidden flips since the last refresh
	// (dense.HiddenFlip), the same log in every section; visible field i
	// has added those of hflips[:upto[i]] and adds the rest when it is read
	// (fieldAt), with the same bits as an update at every flip.
	hflips []int32
	upto   []int32
	act    []int32 // scratch: the active hidden units, for refresh
	// walkf are the float64 fields, at their flips, of this section's
	// bits flipped in the current walk, in flip order; the coordinator
	// reads them at its end for the energy. A compact section's visible
	// fields are caught up only at the walk's end (lazy: per field its
	// index in walkf, local bit, log length at the flip and the length of
	// its catch-up, lazyLen ints each), not each by its owner within its
	// flip's step while the other sections wait: a step at a time, each
	// section catches up its own at the last step; a lockstep walk shares
	// them out between the sections (catchUpPhase).
	walkf   []float64
	lazy    []int32
	jobs    []catchUpJob // catchUpPhase's scratch
	loads   []int64
	catchNs int64        // catchUpPhase's time on this section, when profiling
	t       *dense.Table // pick weights: visible part, then hidden
	mask    []uint32     // all ones for an available bit
	bias    *dense.Bias
	stale   bool
	id      int         // the section's index
	lines   [2]stepLine // lockstep walks: even and odd steps
	wpath   []int32     // lockstep walks: the walk's bits so far
	_       [64]byte
}

// shared is what the workers see; the Engine wraps it so that a cleanup can
// stop the workers when the Engine becomes unreachable.
type shared struct {
	hub
	cmd           command
	secs          []*section
	s             []int8
	w             []float64 // the model's W (V x H, row-major; read only)
	nv, nh        int
	brokenLines   bool   // brokenLines when the engine was made (tests only)
	brokenCatchUp bool   // brokenCatchUp when the engine was made (tests only)
	apart         bool   // stepWalks when the engine was made
	base          uint64 // the next lockstep walk's line base
}

// Engine is the parallel RBM engine. The zero value is not usable; call New.
type Engine struct {
	sh     *shared
	q      *dense.Quant
	owner  []int32 // section of each bit
	avail  []bool
	gamma  [2]float64
	wf     saw.Weight
	bias   *dense.Bias
	biases dense.BiasCache
	e      float64
	since  int
	dx     []int32
	cur    []int // scratch: a cursor into each section's walkf
	rec    dense.Record
	rpath  []int32
}

var (
	_ saw.Engine       = (*Engine)(nil)
	_ saw.StateEngine  = (*Engine)(nil)
	_ saw.FastReverser = (*Engine)(nil)
	_ saw.Costed       = (*Engine)(nil)
)

// New returns an engine for r in state init (spins, visible then hidden; nil
// means all -1; copied) with P sections, 1 <= P <= min(MaxP, V+H). Worker
// p (1 <= p < P) is pinned to cpus[p] when p < len(cpus); section 0 runs on
// the caller's goroutine. Biases start at gamma_L = gamma_H = 1 with the
// logistic weight, as in saw.NewNaive.
func New(r *model.RBM, init []int8, P int, cpus []int) (*Engine, error) {
	n := r.V + r.H
	if P < 1 || P > min(MaxP, n) {
		return nil, fmt.Errorf("parallelsaw: %d sections for %d units (expected 1..%d)", P, n, min(MaxP, n))
	}
	if init != nil && len(init) != n {
		return nil, fmt.Errorf("parallelsaw: %d initial spins (expected %d)", len(init), n)
	}
	q := dense.NewQuantScale(r)
	// Lines start at sequence number 0, so the first walk's lines are 1 on.
	sh := &shared{nv: r.V, nh: r.H, s: make([]int8, n), w: r.W, brokenLines: brokenLines,
		brokenCatchUp: brokenCatchUp, apart: stepWalks, base: 1}
	e := &Engine{sh: sh, q: q, owner: make([]int32, n), avail: make([]bool, n), gamma: [2]float64{1, 1}}
	e.bias = e.biases.Get(q.S, 1, 1, saw.Logistic)
	for p := 0; p < P; p++ {
		sc := &section{
			vlo: p * r.V / P, vhi: (p + 1) * r.V / P,
			hlo: p * r.H / P, hhi: (p + 1) * r.H / P,
			bias: e.bias, id: p,
		}
		sc.ho, sc.do = &sc.out.handoff, func() { sc.exec(sh) }
		sc.vp, sc.hp = sc.vhi-sc.vlo, sc.hhi-sc.hlo
		for i := sc.vlo; i < sc.vhi; i++ {
			e.owner[i] = int32(p)
		}
		for j := sc.hlo; j < sc.hhi; j++ {
			e.owner[r.V+j] = int32(p)
		}
		sh.secs = append(sh.secs, sc)
	}
	for i := range e.avail {
		e.avail[i] = true
	}
	slots := make([]*slot, P)
	for p, sc := range sh.secs {
		slots[p] = &sc.slot
	}
	sh.init(&sh.cmd.seq, slots)
	sh.start(cpus, func(p int) { sh.secs[p].build(r, q) })
	runtime.AddCleanup(e, func(sh *shared) { sh.quit() }, sh)
	if init == nil {
		init = make([]int8, n)
		for i := range init {
			init[i] = -1
		}
	}
	e.SetSpins(init)
	return e, nil
}

// Close stops the workers. The engine must not be used afterwards.
func (e *Engine) Close() { e.sh.quit() }

// WorkerCPUSeconds is the CPU time so far of the worker threads (not the
// caller's, which runs section 0): read from each thread's CPU clock, so a
// trial's CPU can count all of its threads. Call it before Close.
func (e *Engine) WorkerCPUSeconds() float64 { return e.sh.workerCPUSeconds() }

// WaitCPUSeconds is the CPU time so far that the coordinator (the
// caller's thread) and the workers spent waiting for each other rather
// than running sections: spinning, parking and waking (see sync.go for
// how it is measured). It is part of the caller's thread CPU plus
// WorkerCPUSeconds. Call it before Close.
func (e *Engine) WaitCPUSeconds() float64 { return e.sh.waitCPUSeconds() }

// PinError reports the workers' pinning failures (nil if none).
func (e *Engine) PinError() error { return e.sh.pinError() }

// P is the number of sections.
func (e *Engine) P() int { return len(e.sh.secs) }

// N is V+H.
func (e *Engine) N() int { return len(e.sh.s) }

// Energy is E(v, h) of the current state.
func (e *Engine) Energy() float64 { return e.e }

// Spins is the current state (read only).
func (e *Engine) Spins() []int8 { return e.sh.s }

// SetBiases sets gamma_L, gamma_H and the weight function.
func (e *Engine) SetBiases(gammaL, gammaH float64, w saw.Weight) {
	e.gamma = [2]float64{gammaL, gammaH}
	e.wf = w
	e.bias = e.biases.Get(e.q.S, gammaL, gammaH, w)
	c := &e.sh.cmd
	c.op, c.bias = opBias, e.bias
	e.sh.run()
	e.rec.Invalidate()
}

// SetSpins replaces the state. It panics if len(s) != N().
func (e *Engine) SetSpins(s []int8) {
	if len(s) != e.N() {
		panic(fmt.Sprintf("parallelsaw: SetSpins with %d spins (expected %d)", len(s), e.N()))
	}
	for i, v := range s {
		if v > 0 {
			e.sh.s[i] = 1
		} else {
			e.sh.s[i] = -1
		}
	}
	e.sh.cmd.op = opSet
	e.sh.run()
	e.e = e.sh.energy()
	e.since = 0
	e.rec.Invalidate()
}

// refresh recomputes the float64 fields (which drift) and the energy.
func (e *Engine) refresh() {
	e.sh.cmd.op = opRefresh
	e.sh.run()
	e.e = e.sh.energy()
	e.since = 0
}

// Flip flips the bits of path, with no probability bookkeeping; the energy
// is recomputed from the updated fields.
func (e *Engine) Flip(path []int32) {
	if e.since >= RefreshEvery {
		e.refresh()
	}
	e.dx = e.dx[:0]
	for _, l := range path {
		s := -e.sh.s[l]
		e.sh.s[l] = s
		e.dx = append(e.dx, int32(s))
	}
	c := &e.sh.cmd
	c.op, c.path, c.dx = opFlip, path, e.dx
	e.sh.run()
	c.path, c.dx = nil, nil
	e.since += len(path)
	e.e = e.sh.energy()
	e.rec.Invalidate()
}

// local is bit l's section and index there.
func (e *Engine) local(l int) (*section, int) {
	sc := e.sh.secs[e.owner[l]]
	if l >= e.sh.nv {
		return sc, sc.vp + l - e.sh.nv - sc.hlo
	}
	return sc, l - sc.vlo
}

// fq is bit l's fixed-point field (valid between steps).
func (e *Engine) fq(l int32) int32 {
	sc, k := e.local(int(l))
	return sc.F[k]
}

// sums is Z at both biases: the section sums (exact integers).
func (e *Engine) sums() [2]uint64 {
	var z [2]uint64
	for _, sc := range e.sh.secs {
		z[0] += sc.out.z[0]
		z[1] += sc.out.z[1]
	}
	return z
}

// flipSums is Z at both biases right after the last step's flip.
func (e *Engine) flipSums() [2]uint64 {
	var z [2]uint64
	for _, sc := range e.sh.secs {
		z[0] += sc.out.zf[0]
		z[1] += sc.out.zf[1]
	}
	return z
}

// take records the pick of bit l with fixed-point field F:
// log-probabilities and spin (the energy changes at the walk's end:
// settle).
func (e *Engine) take(lf *[2]float64, l int, z [2]uint64, F int32) {
	c := e.bias.Class(e.sh.s[l], F)
	lf[0] += e.bias.Log[0][c] - math.Log(float64(z[0]))
	lf[1] += e.bias.Log[1][c] - math.Log(float64(z[1]))
	e.sh.s[l] = -e.sh.s[l]
	e.since++
}

// settle adds the energy changes of a walk's flips, path (reversed when
// backwards), in their order, from the fields their sections kept
// (walkf), the same additions as one flip at a time.
func (e *Engine) settle(path []int32, backwards bool) {
	if len(e.cur) != len(e.sh.secs) {
		e.cur = make([]int, len(e.sh.secs))
	}
	clear(e.cur)
	for t := range path {
		if backwards {
			t = len(path) - 1 - t
		}
		l := path[t]
		p := e.owner[l]
		e.e -= float64(e.sh.s[l]) * e.sh.secs[p].walkf[e.cur[p]]
		e.cur[p]++
	}
	for _, sc := range e.sh.secs {
		sc.walkf = sc.walkf[:0]
	}
}

// step publishes the flip of l (or -1), whether to draw candidates at bias
// b (with two random words from r), and the bits to release when restore
// != nil, and waits.
func (e *Engine) step(r *rand.PCG, l int, draw bool, b int, restore []int32) {
	c := &e.sh.cmd
	c.op, c.flip, c.draw, c.b, c.path = opStep, int32(l), draw, int32(b), restore
	if l >= 0 {
		c.d = int32(e.sh.s[l])
	}
	if draw {
		c.r = [2]uint64{r.Uint64(), r.Uint64()}
	}
	e.sh.run()
	c.path = nil
}

func (e *Engine) prepare() {
	if e.since >= RefreshEvery {
		e.refresh()
	}
}

// pick draws an available bit at bias b with probability w_l / Z_b exactly:
// section p with probability Z_p / Z_b, then its candidate, which it drew
// with probability w_l / Z_p. It returns the bit and its fixed-point
// field, which the section reported beside it (so that no line of the
// section's arrays crosses cores).
func (e *Engine) pick(r *rand.PCG, b int, z [2]uint64) (int, int32) {
	secs := e.sh.secs
	p := 0
	if len(secs) > 1 {
		p = sectionOf(len(secs), func(p int) uint64 { return secs[p].out.z[b] }, dense.Uniform(r, z[b]))
	}
	sc := secs[p]
	l := int(sc.out.cand)
	if l == -2 { // both random words rejected (probability about 2^-45)
		k := sc.t.Draw(b, dense.Uniform(r, sc.out.z[b]))
		return sc.global(e.sh, k), sc.F[k]
	}
	return l, sc.out.candF
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (e *Engine) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > e.N() {
		panic(fmt.Sprintf("parallelsaw: walk of length %d on %d bits", k, e.N()))
	}
	var lf [2]float64
	e.rec.Begin(len(path), e.e)
	if k == 0 {
		e.rec.End(len(path))
		return path, lf, 0
	}
	e.prepare()
	start, e0 := len(path), e.e
	if e.sh.apart {
		path = e.walkApart(r, k, b, &lf, path)
	} else {
		for _, pk := range e.walk(r, k, b) {
			e.take(&lf, int(pk.l), pk.z, pk.F)
			path = append(path, pk.l)
			e.rec.Add(pk.zf[0], pk.zf[1])
		}
	}
	e.settle(path[start:], false)
	e.rec.End(len(path))
	return path, lf, e.e - e0
}

// walkApart is Walk's flips a step at a time, each a round trip through
// the coordinator (the engines before lockstep walks; see stepWalks).
func (e *Engine) walkApart(r *rand.PCG, k, b int, lf *[2]float64, path []int32) []int32 {
	start := len(path)
	e.step(r, -1, true, b, nil)
	for t := 0; t < k; t++ {
		z := e.sums()
		l, F := e.pick(r, b, z)
		e.take(lf, l, z, F)
		path = append(path, int32(l))
		if t < k-1 {
			e.step(r, l, true, b, nil)
		} else {
			e.step(r, l, false, b, path[start:])
		}
		zf := e.flipSums()
		e.rec.Add(zf[0], zf[1])
	}
	return path
}

// Replay flips path as one SAW (see saw.Engine). It panics if path repeats
// a bit.
func (e *Engine) Replay(path []int32, backwards bool) ([2]float64, float64) {
	var lf [2]float64
	if backwards {
		e.rec.Invalidate()
	} else {
		e.rec.Begin(0, e.e)
	}
	if len(path) == 0 {
		e.rec.End(0)
		return lf, 0
	}
	e.prepare()
	e0 := e.e
	e.step(nil, -1, false, 0, nil)
	for t := range path {
		if backwards {
			t = len(path) - 1 - t
		}
		l := int(path[t])
		if !e.avail[l] {
			panic(fmt.Sprintf("parallelsaw: Replay path repeats bit %d", l))
		}
		e.avail[l] = false
		sc, k := e.local(l)
		e.take(&lf, l, e.sums(), sc.F[k])
		if t == len(path)-1 && !backwards || t == 0 && backwards {
			e.step(nil, l, false, 0, path)
		} else {
			e.step(nil, l, false, 0, nil)
		}
		zf := e.flipSums()
		e.rec.Add(zf[0], zf[1])
	}
	e.settle(path, backwards)
	for _, l := range path {
		e.avail[l] = true
	}
	e.rec.End(len(path))
	return lf, e.e - e0
}

// FastAcceptance is 0: the fast reverse always pays (see dense).
func (e *Engine) FastAcceptance() float64 { return 0 }

// ReverseLogProbs scores the reverse walks from the record of the forward
// ones, as dense.Engine does, with the same exact integer sums (see
// saw.FastReverser).
func (e *Engine) ReverseLogProbs(path []int32, bounds []int, rev [][2]float64) bool {
	return e.rec.Reverse(e.bias, e.q, path, bounds, e.fq, e.sh.s, rev)
}

// Undo flips the bits of path back in reverse order (see saw.FastReverser);
// the energy returns exactly to its value before the recorded walks.
func (e *Engine) Undo(path []int32) {
	e0, ok := e.rec.E0(len(path))
	e.rpath = append(e.rpath[:0], path...)
	for i, j := 0, len(e.rpath)-1; i < j; i, j = i+1, j-1 {
		e.rpath[i], e.rpath[j] = e.rpath[j], e.rpath[i]
	}
	e.Flip(e.rpath)
	if ok {
		e.e = e0
	}
}

// energy is the sum of the sections' energies (after opRefresh or opFlip).
func (sh *shared) energy() float64 {
	en := 0.0
	for _, sc := range sh.secs {
		en += sc.out.epart
	}
	return en
}

// exec runs the current command on this section.
func (sc *section) exec(sh *shared) {
	c := &sh.cmd
	switch c.op {
	case opBias:
		sc.bias, sc.stale = c.bias, true
	case opRefresh, opSet:
		sc.refresh(sh, c.op == opSet)
		sc.stale = true
		sc.out.epart = sc.energy(sh)
	case opFlip:
		for k, l := range c.path {
			if i, mine := sc.local(sh, int(l)); mine {
				sc.sl[i] = int8(c.dx[k])
			}
			sc.axpy(sh, int(l), c.dx[k])
		}
		sc.stale = true
		sc.out.epart = sc.energy(sh)
	case opStep:
		sc.doStep(sh, c)
	case opWalk:
		var own [1]int
		own[0] = sc.id
		sh.walkSteps(own[:], nil, &sc.waitNs)
	}
}

func (sc *section) doStep(sh *shared, c *command) {
	sc.stepOnce(sh, int(c.flip), c.d, c.path, false, c.draw, c.b, c.r, &sc.out.stepOut)
}

// stepOnce flips bit l (l >= 0) to d, releases the bits of release (when
// not nil: the walk's last step) and, when draw, draws a candidate at
// bias b with the words r, reporting in out.
func (sc *section) stepOnce(sh *shared, l int, d int32, release []int32, later, draw bool, b int32, r [2]uint64, out *stepOut) {
	if sc.stale {
		sc.reweigh(sh, 0)
		sc.reweigh(sh, 1)
		sc.stale = false
	}
	if l >= 0 {
		if k, mine := sc.local(sh, l); mine {
			sc.sl[k] = int8(d)
			sc.mask[k] = 0
			sc.t.Take(k)
			sc.update(sh, l, d)
			if k < sc.vp && sc.compact() && len(sh.secs) > 1 {
				n := int32(len(sc.hflips))
				sc.lazy = append(sc.lazy, int32(len(sc.walkf)), int32(k), n, n-sc.upto[k])
				sc.walkf = append(sc.walkf, 0)
			} else { // alone, it has just read the row: caught up at once
				sc.walkf = append(sc.walkf, sc.fieldAt(sh, k, len(sc.hflips)))
			}
		} else {
			sc.update(sh, l, d)
		}
	}
	out.zf = [2]uint64{sc.t.Z(0), sc.t.Z(1)}
	if release != nil { // the walk's last step
		if !later {
			for x := 0; x < len(sc.lazy); x += lazyLen {
				sc.catchUp(sh, x, sc.hflips)
			}
			sc.lazy = sc.lazy[:0]
		}
		tb := sc.bias
		for _, l := range release {
			if k, ok := sc.local(sh, int(l)); ok {
				sc.mask[k] = ^uint32(0)
				cl := tb.Class(sc.sl[k], sc.F[k])
				sc.t.Set(k, tb.W[0][cl], tb.W[1][cl])
			}
		}
	}
	out.z = [2]uint64{sc.t.Z(0), sc.t.Z(1)}
	if draw {
		out.cand = -1
		if n := out.z[b]; n > 0 {
			out.cand = -2
			for _, x := range r {
				if u, ok := bounded(x, n); ok {
					k := sc.t.Draw(int(b), u)
					out.cand = int32(sc.global(sh, k))
					out.candF = sc.F[k]
					out.candD = -int32(sc.sl[k])
					break
				}
			}
		}
	}
}

// bounded maps a uniform 64-bit word x to a uniform draw in [0, n)
// (Lemire's multiply-shift), or reports false for the few words that
// would bias it (the caller then tries another word).
func bounded(x, n uint64) (uint64, bool) {
	hi, lo := bits.Mul64(x, n)
	if lo < n && lo < -n%n {
		return 0, false
	}
	return hi, true
}

// wrow is W[i, hlo:hhi]: visible unit i's couplings to this section's
// hidden units, a slice of the model's row (not copied).
func (sc *section) wrow(sh *shared, i int) []float64 {
	return sh.w[i*sh.nh+sc.hlo : i*sh.nh+sc.hhi]
}

// build allocates and fills the section's matrices and state. Each worker
// builds its own section on its own (pinned) thread, so the sections are
// built at once and their pages first touched where they are used.
func (sc *section) build(r *model.RBM, q *dense.Quant) {
	sc.q = q
	sc.whq = make([]int32, r.H*sc.vp)
	q.FixT(sc.whq, r.W[sc.vlo*r.H:sc.vhi*r.H], sc.vp, r.H)
	if r.V*r.H >= dense.CompactFrom {
		sc.upto = make([]int32, sc.vp)
	} else {
		sc.wh = make([]float64, r.H*sc.vp)
		dense.Transpose(sc.wh, r.W[sc.vlo*r.H:sc.vhi*r.H], sc.vp, r.H)
		sc.wvq = make([]int32, r.V*sc.hp)
		for i := 0; i < r.V; i++ {
			dst := sc.wvq[i*sc.hp : (i+1)*sc.hp]
			for j, x := range r.W[i*r.H+sc.hlo : i*r.H+sc.hhi] {
				dst[j] = q.Fix(x)
			}
		}
	}
	sc.b = append([]float64(nil), r.B[sc.vlo:sc.vhi]...)
	sc.c = append([]float64(nil), r.C[sc.hlo:sc.hhi]...)
	sc.bq = append([]int32(nil), q.B[sc.vlo:sc.vhi]...)
	sc.cq = append([]int32(nil), q.C[sc.hlo:sc.hhi]...)
	m := sc.vp + sc.hp
	sc.F = make([]int32, m)
	sc.sl = make([]int8, m)
	sc.f = make([]float64, m)
	sc.t = dense.NewTable(sc.vp, sc.hp)
	sc.mask = make([]uint32, m)
	for i := range sc.mask {
		sc.mask[i] = ^uint32(0)
	}
}

// compact reports whether the section has the compact layout.
func (sc *section) compact() bool { return sc.wh == nil }

// local maps global bit l to this section's index.
func (sc *section) local(sh *shared, l int) (int, bool) {
	if l < sh.nv {
		return l - sc.vlo, l >= sc.vlo && l < sc.vhi
	}
	j := l - sh.nv
	return sc.vp + j - sc.hlo, j >= sc.hlo && j < sc.hhi
}

// global maps this section's index k to the global bit.
func (sc *section) global(sh *shared, k int) int {
	if k < sc.vp {
		return sc.vlo + k
	}
	return sh.nv + sc.hlo + k - sc.vp
}

// span is layer k's range of local indices.
func (sc *section) span(k int) (int, int) {
	if k == 0 {
		return 0, sc.vp
	}
	return sc.vp, sc.vp + sc.hp
}

// spins is this section's copy of the spins of its bits of layer k (the
// kernel never reads the coordinator's array, whose lines it writes).
func (sc *section) spins(k int) []int8 {
	if k == 0 {
		return sc.sl[:sc.vp]
	}
	return sc.sl[sc.vp:]
}

// hrow is hidden unit j's couplings to this section's visible units: in
// fixed point, and in float64 (nil if compact).
func (sc *section) hrow(j int) ([]int32, []float64) {
	if sc.compact() {
		return sc.whq[j*sc.vp : (j+1)*sc.vp], nil
	}
	return sc.whq[j*sc.vp : (j+1)*sc.vp], sc.wh[j*sc.vp : (j+1)*sc.vp]
}

// logHidden logs hidden unit j's flip (x changed by d) for a compact
// section's visible float64 fields.
func (sc *section) logHidden(j int, d int32) {
	if sc.compact() {
		sc.hflips = append(sc.hflips, dense.HiddenFlip(j, d))
	}
}

// update applies the flip of bit l, whose x changed by d, to this
// section's part of the other layer: fields, weights and sums.
func (sc *section) update(sh *shared, l int, d int32) {
	lo, hi := sc.span(0)
	if l < sh.nv {
		lo, hi = sc.span(1)
		F, f, mask := sc.F[lo:hi], sc.f[lo:hi], sc.mask[lo:hi]
		if sc.compact() {
			sc.t.UpdateFix(1, sc.bias, sc.spins(1), F, f, mask, sc.wrow(sh, l), sc.q.Scale, d)
		} else {
			sc.t.Update(1, sc.bias, sc.spins(1), F, f, mask, sc.wvq[l*sc.hp:(l+1)*sc.hp], sc.wrow(sh, l), d)
		}
		return
	}
	j := l - sh.nv
	rowq, row := sc.hrow(j)
	sc.t.Update(0, sc.bias, sc.spins(0), sc.F[lo:hi], sc.f[lo:hi], sc.mask[lo:hi], rowq, row, d)
	sc.logHidden(j, d)
}

// axpy applies a change d of x_l to the fields of the other layer in this
// section.
func (sc *section) axpy(sh *shared, l int, d int32) {
	if l < sh.nv {
		F, f := sc.F[sc.vp:], sc.f[sc.vp:]
		if sc.compact() {
			dense.AddRowFix(F, f, sc.wrow(sh, l), sc.q.Scale, d)
		} else {
			dense.AddRow(F, f, sc.wvq[l*sc.hp:(l+1)*sc.hp], sc.wrow(sh, l), d)
		}
		return
	}
	j := l - sh.nv
	rowq, row := sc.hrow(j)
	dense.AddRow(sc.F[:sc.vp], sc.f[:sc.vp], rowq, row, d)
	sc.logHidden(j, d)
}

// lazyLen is the length of an entry of section.lazy.
const lazyLen = 4

// catchUp catches up the lazy field of entry x (see section.walkf) from
// log, a section's hidden flips (every section's log is the same).
func (sc *section) catchUp(sh *shared, x int, log []int32) {
	z := sc.lazy[x : x+lazyLen]
	sc.walkf[z[0]] = sc.fieldFrom(sh, int(z[1]), int(z[2]), log)
}

// fieldAt is the float64 field of local bit k as of the first n logged
// hidden flips: a visible one of a compact section is first caught up
// with those from its row of W (n no less than those it has added).
func (sc *section) fieldAt(sh *shared, k, n int) float64 {
	return sc.fieldFrom(sh, k, n, sc.hflips)
}

// fieldFrom is fieldAt with the log of hidden flips hf (this section's,
// or another's: they are the same).
func (sc *section) fieldFrom(sh *shared, k, n int, hf []int32) float64 {
	if k < sc.vp && sc.compact() {
		if log := hf[sc.upto[k]:n]; len(log) > 0 {
			i := sc.vlo + k
			sc.f[k] = dense.CatchUp(sc.f[k], sh.w[i*sh.nh:(i+1)*sh.nh], log)
			sc.upto[k] = int32(n)
		}
	}
	return sc.f[k]
}

// fields brings every float64 field up to date and returns them all.
func (sc *section) fields(sh *shared) []float64 {
	for k := range sc.vp {
		sc.fieldAt(sh, k, len(sc.hflips))
	}
	return sc.f
}

func (sc *section) reweigh(sh *shared, k int) {
	lo, hi := sc.span(k)
	sc.t.Update(k, sc.bias, sc.spins(k), sc.F[lo:hi], nil, sc.mask[lo:hi], nil, nil, 0)
}

// refresh copies this section's spins from the coordinator's and
// recomputes its float64 fields from scratch (the bias plus the
// couplings of the active bits of the other layer, in index order), and
// with exact its fixed-point fields too (which never drift). The float64
// fields take one pass over the model's rows: this section's own rows are
// summed at the active hidden units, and the active visible units' rows
// (their parts for this section) are added to the hidden fields.
func (sc *section) refresh(sh *shared, exact bool) {
	nv, nh := sh.nv, sh.nh
	copy(sc.sl[:sc.vp], sh.s[sc.vlo:sc.vhi])
	copy(sc.sl[sc.vp:], sh.s[nv+sc.hlo:nv+sc.hhi])
	if exact {
		sc.exact(sh)
	}
	fv, fh := sc.f[:sc.vp], sc.f[sc.vp:]
	act := dense.Active(sc.act[:0], sh.s[nv:])
	sc.act = act
	copy(fh, sc.c)
	for i0 := 0; i0 < nv; {
		i1 := nv
		switch {
		case i0 < sc.vlo:
			i1 = sc.vlo
		case i0 < sc.vhi:
			i1 = min(i0+4, sc.vhi)
			dense.SumsAt(fv[i0-sc.vlo:i1-sc.vlo], sc.b[i0-sc.vlo:i1-sc.vlo], sh.w[i0*nh:i1*nh], nh, act)
		}
		for i := i0; i < i1; i++ {
			if sh.s[i] > 0 {
				for j, x := range sc.wrow(sh, i) {
					fh[j] += x
				}
			}
		}
		i0 = i1
	}
	sc.hflips = sc.hflips[:0]
	clear(sc.upto)
}

// exact recomputes the fixed-point fields from the spins.
func (sc *section) exact(sh *shared) {
	Fv, Fh := sc.F[:sc.vp], sc.F[sc.vp:]
	copy(Fv, sc.bq)
	copy(Fh, sc.cq)
	for j := 0; j < sh.nh; j++ {
		if sh.s[sh.nv+j] > 0 {
			rowq, _ := sc.hrow(j)
			for i, x := range rowq {
				Fv[i] += x
			}
		}
	}
	for i := 0; i < sh.nv; i++ {
		if sh.s[i] <= 0 {
			continue
		}
		if sc.compact() {
			dense.AddRowFix(Fh, nil, sc.wrow(sh, i), sc.q.Scale, 1)
		} else {
			for j, x := range sc.wvq[i*sc.hp : (i+1)*sc.hp] {
				Fh[j] += x
			}
		}
	}
}

// energy is this section's share of E: -sum b_i v_i - sum h_j field_j.
func (sc *section) energy(sh *shared) float64 {
	en := 0.0
	for i, s := range sc.spins(0) {
		if s > 0 {
			en -= sc.b[i]
		}
	}
	for j, s := range sc.spins(1) {
		if s > 0 {
			en -= sc.f[sc.vp+j]
		}
	}
	return en
}

// Cost is the serial RBM engine's (saw.CostDense): its flips cost the same CPU, spread over the sections.
func (e *Engine) Cost() saw.Cost { return saw.CostDense }
