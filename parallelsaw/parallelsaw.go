package parallelsaw

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"sardonics/dense"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
	"sardonics/topology"
)

// RefreshEvery is the number of flips between recomputations of the fields
// and the energy from scratch (at the start of a Walk, Replay or Flip).
const RefreshEvery = 10000

// MaxP bounds the number of sections.
const MaxP = 256

type op int32

const (
	opNop op = iota
	opBias
	opRefresh
	opFlip
	opStep
	opQuit
)

// command is written by the coordinator before it stores seq; workers read
// it after they load the new seq.
type command struct {
	_     [64]byte
	seq   atomic.Uint64
	op    op
	flip  int32 // bit flipped by opStep, or -1
	draw  bool
	b     int32
	u     float64
	gamma [2]float64
	wf    saw.Weight
	path  []int32   // opFlip: bits; opStep: bits to make available again
	dx    []float64 // opFlip: change of x for each bit of path
	_     [64]byte
}

// result is written by a worker before it stores done.
type result struct {
	_        [64]byte
	done     atomic.Uint64
	sleeping atomic.Int32
	z        [2]float64
	cand     int32
	epart    float64
	_        [64]byte
}

// waitFlag marks a parked waiter, on its own cache line.
type waitFlag struct {
	_    [64]byte
	flag atomic.Int32
	wake chan struct{}
	_    [64]byte
}

// section is one worker's share of the state.
type section struct {
	out      result
	wake     chan struct{}
	pinErr   error
	vlo, vhi int
	hlo, hhi int
	vp, hp   int
	wv       []float64 // V x hp: W[i, hlo+j] at i*hp+j
	wh       []float64 // H x vp: W[vlo+i, j] at j*vp+i
	b, c     []float64
	f        []float64    // fields: visible part (vp), then hidden (hp)
	t        *dense.Table // pick weights: visible part, then hidden
	av       []bool
	g        [2]float64
	wf       saw.Weight
	stale    bool
	_        [64]byte
}

// shared is what the workers see; the Engine wraps it so that a cleanup can
// stop the workers when the Engine becomes unreachable.
type shared struct {
	cmd    command
	parked waitFlag // the coordinator is parked waiting for a section
	secs   []*section
	s      []int8
	nv, nh int
	seq    uint64
	wg     sync.WaitGroup
	closed bool
}

// Engine is the parallel RBM engine. The zero value is not usable; call New.
type Engine struct {
	sh    *shared
	owner []int32 // section of each bit
	avail []bool
	gamma [2]float64
	wf    saw.Weight
	e     float64
	since int
	dx    []float64
}

var _ saw.Engine = (*Engine)(nil)

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
	sh := &shared{nv: r.V, nh: r.H, s: make([]int8, n)}
	sh.parked.wake = make(chan struct{}, 1)
	e := &Engine{sh: sh, owner: make([]int32, n), avail: make([]bool, n), gamma: [2]float64{1, 1}}
	for p := 0; p < P; p++ {
		sc := &section{
			vlo: p * r.V / P, vhi: (p + 1) * r.V / P,
			hlo: p * r.H / P, hhi: (p + 1) * r.H / P,
			wake: make(chan struct{}, 1),
			g:    e.gamma,
		}
		sc.vp, sc.hp = sc.vhi-sc.vlo, sc.hhi-sc.hlo
		sc.wv = make([]float64, r.V*sc.hp)
		for i := 0; i < r.V; i++ {
			copy(sc.wv[i*sc.hp:(i+1)*sc.hp], r.W[i*r.H+sc.hlo:i*r.H+sc.hhi])
		}
		sc.wh = make([]float64, r.H*sc.vp)
		for j := 0; j < r.H; j++ {
			for i := 0; i < sc.vp; i++ {
				sc.wh[j*sc.vp+i] = r.W[(sc.vlo+i)*r.H+j]
			}
		}
		sc.b = append([]float64(nil), r.B[sc.vlo:sc.vhi]...)
		sc.c = append([]float64(nil), r.C[sc.hlo:sc.hhi]...)
		m := sc.vp + sc.hp
		sc.f = make([]float64, m)
		sc.t = dense.NewTable(sc.vp, sc.hp)
		sc.av = make([]bool, m)
		for i := range sc.av {
			sc.av[i] = true
		}
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
	for p := 1; p < P; p++ {
		cpu := -1
		if p < len(cpus) {
			cpu = cpus[p]
		}
		sh.wg.Add(1)
		go sh.worker(p, cpu)
	}
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

// PinError reports the workers' pinning failures (nil if none).
func (e *Engine) PinError() error {
	var errs []error
	for _, sc := range e.sh.secs {
		errs = append(errs, sc.pinErr)
	}
	return errors.Join(errs...)
}

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
	c := &e.sh.cmd
	c.op, c.gamma, c.wf = opBias, e.gamma, w
	e.sh.run()
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
	e.refresh()
}

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
		e.dx = append(e.dx, float64(s))
	}
	c := &e.sh.cmd
	c.op, c.path, c.dx = opFlip, path, e.dx
	e.sh.run()
	c.path, c.dx = nil, nil
	e.since += len(path)
	e.e = e.sh.energy()
}

// dE is the energy change of flipping bit l now (valid between steps).
func (e *Engine) dE(l int) float64 {
	sc := e.sh.secs[e.owner[l]]
	k := l - sc.vlo
	if l >= e.sh.nv {
		k = sc.vp + l - e.sh.nv - sc.hlo
	}
	return float64(e.sh.s[l]) * sc.f[k]
}

// sums is Z at both biases: the section sums added in section order.
func (e *Engine) sums() [2]float64 {
	var z [2]float64
	for _, sc := range e.sh.secs {
		z[0] += sc.out.z[0]
		z[1] += sc.out.z[1]
	}
	return z
}

// take records the pick of bit l: log-probabilities, energy and spin.
func (e *Engine) take(lf *[2]float64, l int, z [2]float64) {
	dE := e.dE(l)
	for b := 0; b < 2; b++ {
		lf[b] += dense.LogWeight(e.wf, e.gamma[b], dE) - math.Log(z[b])
	}
	e.e += dE
	e.sh.s[l] = -e.sh.s[l]
	e.since++
}

// step publishes the flip of l (or -1), the next candidate uniform when
// draw, and the bits to release when restore != nil, and waits.
func (e *Engine) step(l int, draw bool, b int, u float64, restore []int32) {
	c := &e.sh.cmd
	c.op, c.flip, c.draw, c.b, c.u, c.path = opStep, int32(l), draw, int32(b), u, restore
	e.sh.run()
	c.path = nil
}

func (e *Engine) prepare() {
	if e.since >= RefreshEvery {
		e.refresh()
	}
}

// Walk draws a SAW of length k at bias index b (see saw.Engine).
func (e *Engine) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > e.N() {
		panic(fmt.Sprintf("parallelsaw: walk of length %d on %d bits", k, e.N()))
	}
	var lf [2]float64
	if k == 0 {
		return path, lf, 0
	}
	e.prepare()
	start, e0 := len(path), e.e
	e.step(-1, true, b, rng.Float64(r), nil)
	for t := 0; t < k; t++ {
		z := e.sums()
		u := rng.Float64(r) * z[b]
		pick, c := -1, 0.0
		for p, sc := range e.sh.secs {
			if w := sc.out.z[b]; w > 0 {
				c += w
				pick = p
				if c > u {
					break
				}
			}
		}
		l := int(e.sh.secs[pick].out.cand)
		e.take(&lf, l, z)
		path = append(path, int32(l))
		if t < k-1 {
			e.step(l, true, b, rng.Float64(r), nil)
		} else {
			e.step(l, false, b, 0, path[start:])
		}
	}
	return path, lf, e.e - e0
}

// Replay flips path as one SAW (see saw.Engine). It panics if path repeats
// a bit.
func (e *Engine) Replay(path []int32, backwards bool) ([2]float64, float64) {
	var lf [2]float64
	if len(path) == 0 {
		return lf, 0
	}
	e.prepare()
	e0 := e.e
	e.step(-1, false, 0, 0, nil)
	for t := range path {
		if backwards {
			t = len(path) - 1 - t
		}
		l := int(path[t])
		if !e.avail[l] {
			panic(fmt.Sprintf("parallelsaw: Replay path repeats bit %d", l))
		}
		e.avail[l] = false
		e.take(&lf, l, e.sums())
		if t == len(path)-1 && !backwards || t == 0 && backwards {
			e.step(l, false, 0, 0, path)
		} else {
			e.step(l, false, 0, 0, nil)
		}
	}
	for _, l := range path {
		e.avail[l] = true
	}
	return lf, e.e - e0
}

// energy is the sum of the sections' energies (after opRefresh or opFlip).
func (sh *shared) energy() float64 {
	en := 0.0
	for _, sc := range sh.secs {
		en += sc.out.epart
	}
	return en
}

// run publishes the command, runs section 0 and waits for the others.
func (sh *shared) run() {
	if sh.closed {
		panic("parallelsaw: engine used after Close")
	}
	sh.seq++
	seq := sh.seq
	sh.cmd.seq.Store(seq)
	for _, sc := range sh.secs[1:] {
		if sc.out.sleeping.Load() != 0 && sc.out.sleeping.CompareAndSwap(1, 0) {
			sc.wake <- struct{}{}
		}
	}
	sh.secs[0].exec(sh)
	var w backoff
	for _, sc := range sh.secs[1:] {
		for sc.out.done.Load() != seq {
			if !w.wait() {
				continue
			}
			// Park; any worker that finishes wakes us, and we recheck.
			sh.parked.flag.Store(1)
			if sc.out.done.Load() == seq && sh.parked.flag.CompareAndSwap(1, 0) {
				break
			}
			<-sh.parked.wake // a worker cleared the flag and sends once
			w = backoff{}
		}
	}
}

// quit stops the workers (idempotent).
func (sh *shared) quit() {
	if sh.closed {
		return
	}
	sh.closed = true
	sh.seq++
	sh.cmd.op = opQuit
	sh.cmd.seq.Store(sh.seq)
	for _, sc := range sh.secs[1:] {
		if sc.out.sleeping.Load() != 0 && sc.out.sleeping.CompareAndSwap(1, 0) {
			sc.wake <- struct{}{}
		}
	}
	sh.wg.Wait()
}

func (sh *shared) worker(p, cpu int) {
	defer sh.wg.Done()
	sc := sh.secs[p]
	if cpu >= 0 {
		sc.pinErr = topology.Pin(cpu) // locks the thread even on failure
	} else {
		runtime.LockOSThread()
	}
	var last uint64
	for {
		last = sc.await(&sh.cmd.seq, last)
		if sh.cmd.op == opQuit {
			return
		}
		sc.exec(sh)
		sc.out.done.Store(last)
		if sh.parked.flag.Load() != 0 && sh.parked.flag.CompareAndSwap(1, 0) {
			sh.parked.wake <- struct{}{}
		}
	}
}

// await waits until seq differs from last and returns it: spinning, then
// yielding, then parked until the coordinator wakes it.
func (sc *section) await(seq *atomic.Uint64, last uint64) uint64 {
	var w backoff
	for {
		if s := seq.Load(); s != last {
			return s
		}
		if !w.wait() {
			continue
		}
		sc.out.sleeping.Store(1)
		if seq.Load() != last && sc.out.sleeping.CompareAndSwap(1, 0) {
			continue
		}
		<-sc.wake // the coordinator cleared sleeping and sends once
		w = backoff{}
	}
}

// backoff paces a wait loop: spin for spinFor, then yield for yieldFor,
// then tell the caller to park. The clock is read once every 256 checks.
type backoff struct {
	n     uint32
	start time.Time
}

// wait is called after each failed check; it reports whether to park.
func (w *backoff) wait() bool {
	w.n++
	if w.n&255 != 0 {
		return false
	}
	now := time.Now()
	if w.start.IsZero() {
		w.start = now
		return false
	}
	switch d := now.Sub(w.start); {
	case d < spinFor:
		return false
	case d < spinFor+yieldFor:
		runtime.Gosched()
		return false
	}
	return true
}

// exec runs the current command on this section.
func (sc *section) exec(sh *shared) {
	c := &sh.cmd
	switch c.op {
	case opBias:
		sc.g, sc.wf, sc.stale = c.gamma, c.wf, true
	case opRefresh:
		sc.refresh(sh)
		sc.stale = true
		sc.out.epart = sc.energy(sh)
	case opFlip:
		for k, l := range c.path {
			sc.axpy(sh, int(l), c.dx[k])
		}
		sc.stale = true
		sc.out.epart = sc.energy(sh)
	case opStep:
		sc.doStep(sh, c)
	}
}

func (sc *section) doStep(sh *shared, c *command) {
	if sc.stale {
		sc.reweigh(sh, 0)
		sc.reweigh(sh, 1)
		sc.stale = false
	}
	if l := int(c.flip); l >= 0 {
		if k, mine := sc.local(sh, l); mine {
			sc.av[k] = false
			sc.t.Take(k)
		}
		sc.reweigh(sh, sc.axpy(sh, l, float64(sh.s[l])))
	}
	if c.path != nil {
		for _, l := range c.path {
			if k, ok := sc.local(sh, int(l)); ok {
				sc.av[k] = true
				dE := float64(sh.s[l]) * sc.f[k]
				sc.t.Set(k, dense.Weight(sc.wf, sc.g[0], dE), dense.Weight(sc.wf, sc.g[1], dE))
			}
		}
		sc.t.SumLayers()
	}
	sc.out.z = [2]float64{sc.t.Z(0), sc.t.Z(1)}
	if c.draw {
		sc.out.cand = -1
		if k := sc.t.Draw(int(c.b), c.u*sc.out.z[c.b]); k >= 0 {
			sc.out.cand = int32(sc.global(sh, k))
		}
	}
}

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

// spins is the slice of global spins of layer k in this section.
func (sc *section) spins(sh *shared, k int) []int8 {
	if k == 0 {
		return sh.s[sc.vlo:sc.vhi]
	}
	return sh.s[sh.nv+sc.hlo : sh.nv+sc.hhi]
}

// axpy applies a change d of x_l to the fields of the other layer in this
// section and returns that layer.
func (sc *section) axpy(sh *shared, l int, d float64) int {
	if l < sh.nv {
		row := sc.wv[l*sc.hp : (l+1)*sc.hp]
		f := sc.f[sc.vp:]
		for j, x := range row {
			f[j] += d * x
		}
		return 1
	}
	j := l - sh.nv
	row := sc.wh[j*sc.vp : (j+1)*sc.vp]
	f := sc.f[:sc.vp]
	for i, x := range row {
		f[i] += d * x
	}
	return 0
}

func (sc *section) reweigh(sh *shared, k int) {
	lo, hi := sc.span(k)
	sc.t.Reweigh(k, sc.wf, sc.g[0], sc.g[1], sc.spins(sh, k), sc.f[lo:hi], sc.av[lo:hi])
}

// refresh recomputes this section's fields from scratch.
func (sc *section) refresh(sh *shared) {
	fv, fh := sc.f[:sc.vp], sc.f[sc.vp:]
	copy(fv, sc.b)
	copy(fh, sc.c)
	for j := 0; j < sh.nh; j++ {
		if sh.s[sh.nv+j] > 0 {
			for i, x := range sc.wh[j*sc.vp : (j+1)*sc.vp] {
				fv[i] += x
			}
		}
	}
	for i := 0; i < sh.nv; i++ {
		if sh.s[i] > 0 {
			for j, x := range sc.wv[i*sc.hp : (i+1)*sc.hp] {
				fh[j] += x
			}
		}
	}
}

// energy is this section's share of E: -sum b_i v_i - sum h_j field_j.
func (sc *section) energy(sh *shared) float64 {
	en := 0.0
	for i, s := range sc.spins(sh, 0) {
		if s > 0 {
			en -= sc.b[i]
		}
	}
	for j, s := range sc.spins(sh, 1) {
		if s > 0 {
			en -= sc.f[sc.vp+j]
		}
	}
	return en
}
