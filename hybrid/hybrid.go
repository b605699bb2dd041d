package hybrid

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"sardonics/internal/state"
	"sardonics/model"
	"sardonics/sampler"
	"sardonics/saw"
)

// Options is the hybrid sampler's settings (its sampler.Kind.New opts).
// A = M = 0 asks for the default cycle (see DefaultCycle); negative values
// are refused.
type Options struct {
	A   int // Metropolis sweeps per step
	M   int // SARDONICS moves per step
	SAW any // the sardonics sampler's own opts, passed through (nil: its defaults)
}

// ThetaSource may be implemented by the SAW opts to say which thetas the
// sardonics chain will run, so that the default cycle counts their flips;
// without it the default theta's are counted (what the sardonics sampler
// runs with nil opts).
type ThetaSource interface {
	SAWThetas() []saw.Theta
}

// CycleSource may be implemented by opts that are not an Options (the
// runner's sardonics settings, which every sampler is handed) to give the
// cycle; (0, 0) asks for the default.
type CycleSource interface {
	HybridCycle() (a, m int)
}

// Components: index into Chain.parts, in the order a step runs them.
const (
	metro = iota
	sard
)

var kindNames = [2]string{metro: "metropolis", sard: "sardonics"}

// Chain is a hybrid chain (see the package comment). It is used by one
// goroutine at a time.
type Chain struct {
	a, m  int
	beta  float64
	parts [2]sampler.Tempered // nil: the component is not in the cycle
	rs    [2]sampler.Resetter
	flip  [2]func(idx []int32) // flips bits in place, where the component can
	rels  [2]func()            // release each component's resources
	diff  []int32              // scratch: the bits to flip
	spins []int8               // scratch: FlipSites's state for a Reset
	cur   int                  // the component whose spins are the chain's

	// What a component built later (SetCycles, RestoreState) needs.
	mdl     *model.Model
	sawOpts any
	r       *rand.PCG
	base    [2]int // the cycle the chain was built with

	// The cycle per inverse temperature (SetCycles); nil: none.
	tBetas []float64
	tCyc   [][2]int

	nFlip, nReset [2]int64 // switches to each component made by flipping bits, by a Reset (tests)
}

// flipFraction: a component that can flip bits in place is brought to
// the current spins by flipping those that differ when they are at most
// N/flipFraction, else by a Reset. A Reset recomputes everything from the
// model; per bit, flipping costs about what Reset costs per 2 to 3 bits
// (frustrated2d:L=60 and spinglass3d:L=9, tree and bucket engines: 135 to
// 145 and 83 to 88 ns per flipped bit against 65 to 68 and 30 ns per bit
// of Reset), so it pays up to N/3 or so; N/4 leaves a margin.
const flipFraction = 4

// flipperOf is how component ch flips bits in place: its own Flip method,
// or its SARDONICS engine's (saw.Engine.Flip keeps everything the engine
// derives from the spins right), or nil.
func flipperOf(ch sampler.Chain) func(idx []int32) {
	if e, ok := ch.(saw.EngineOwner); ok {
		return e.Engine().Flip
	}
	return nil
}

var (
	_ sampler.Tempered      = (*Chain)(nil)
	_ sampler.Stateful      = (*Chain)(nil)
	_ sampler.Resetter      = (*Chain)(nil)
	_ sampler.Flipper       = (*Chain)(nil)
	_ sampler.ThreadCPU     = (*Chain)(nil)
	_ sampler.MaybeStateful = (*Chain)(nil)
)

// DefaultCycle is the cycle used when none is given, on n bits with the
// sardonics chain running thetas (nil: saw.DefaultTheta): one Metropolis
// sweep and ceil(n / f) SARDONICS moves, f the mean number of bits a move
// flips, so both components propose about n flips per step (see the
// package comment for why).
func DefaultCycle(n int, thetas []saw.Theta) (a, m int) {
	f := MeanFlips(n, thetas)
	return 1, max(1, int(math.Ceil(float64(n)/f)))
}

// MeanFlips is the expected number of bits one SARDONICS move flips on n
// bits: 2N walks of lengths uniform on kl..ku (clamped to n), averaged
// over thetas, which a policy draws uniformly (nil: saw.DefaultTheta).
func MeanFlips(n int, thetas []saw.Theta) float64 {
	if len(thetas) == 0 {
		thetas = []saw.Theta{saw.DefaultTheta}
	}
	s := 0.0
	for _, t := range thetas {
		lo, hi := t.Lengths(n)
		s += float64(t.N) * float64(lo+hi) // 2N walks of mean length (lo+hi)/2
	}
	return max(1, s/float64(len(thetas)))
}

// resolve reads opts: nil or an Options with A = M = 0 is the default
// cycle; any other type is taken as the SAW opts with the default cycle
// (the runner hands every sampler its sardonics settings).
func resolve(opts any, n int) (Options, error) {
	var o Options
	switch x := opts.(type) {
	case nil:
	case Options:
		o = x
	case *Options:
		if x != nil {
			o = *x
		}
	default:
		o.SAW = opts
		if cs, ok := opts.(CycleSource); ok {
			o.A, o.M = cs.HybridCycle()
		}
	}
	if o.A < 0 || o.M < 0 {
		return o, fmt.Errorf("hybrid: cycle %d:%d (expected sweeps and moves >= 0, not both 0)", o.A, o.M)
	}
	if o.A == 0 && o.M == 0 {
		var th []saw.Theta
		if ts, ok := o.SAW.(ThetaSource); ok {
			th = ts.SAWThetas()
		}
		o.A, o.M = DefaultCycle(n, th)
	}
	return o, nil
}

// New builds a hybrid chain on m at inverse temperature beta from init
// (see sampler.Kind.New; opts: Options, nil, or the SAW opts alone). Both
// components start at init and share r. The returned function releases
// the components' resources, those SetCycles or RestoreState built later
// included.
func New(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (*Chain, func(), error) {
	nop := func() {}
	o, err := resolve(opts, len(init))
	if err != nil {
		return nil, nop, err
	}
	c := &Chain{a: o.A, m: o.M, beta: beta, cur: metro, mdl: m, sawOpts: o.SAW, r: r, base: [2]int{o.A, o.M}}
	if o.A == 0 {
		c.cur = sard
	}
	for k, n := range [2]int{metro: o.A, sard: o.M} {
		if n == 0 {
			continue
		}
		if err := c.build(k, init); err != nil {
			c.release()
			return nil, nop, err
		}
	}
	c.diff = make([]int32, 0, len(init)/flipFraction+1)
	return c, c.release, nil
}

// build makes component k at the chain's beta from spins, on the chain's
// stream.
func (c *Chain) build(k int, spins []int8) error {
	kind, ok := sampler.Lookup(kindNames[k])
	if !ok {
		return fmt.Errorf("hybrid: sampler %q is not registered (link package runner for sardonics, baseline for metropolis)", kindNames[k])
	}
	var kopts any
	if k == sard {
		kopts = c.sawOpts
	}
	ch, rel, err := kind.New(c.mdl, c.beta, kopts, c.r, spins)
	if err != nil {
		return fmt.Errorf("hybrid: %s: %w", kindNames[k], err)
	}
	t, ok1 := ch.(sampler.Tempered)
	rs, ok2 := ch.(sampler.Resetter)
	if !ok1 || !ok2 {
		rel()
		return fmt.Errorf("hybrid: the %s chain cannot change its temperature or be reset in place", kindNames[k])
	}
	c.parts[k], c.rs[k], c.flip[k], c.rels[k] = t, rs, flipperOf(ch), rel
	return nil
}

// buildLate builds component k at the current spins without moving the
// chain's stream: a builder that draws would otherwise shift everything
// after it, and RestoreState (whose caller restores the stream before or
// after, as replica exchange and the runner do) must not draw at all.
func (c *Chain) buildLate(k int) error {
	saved, err := c.r.MarshalBinary()
	if err != nil {
		return err
	}
	err = c.build(k, slices.Clone(c.Spins()))
	if e := c.r.UnmarshalBinary(saved); e != nil {
		panic("hybrid: cannot put back the stream: " + e.Error())
	}
	return err
}

// drop releases component k.
func (c *Chain) drop(k int) {
	if c.rels[k] != nil {
		c.rels[k]()
	}
	c.parts[k], c.rs[k], c.flip[k], c.rels[k] = nil, nil, nil, nil
}

func (c *Chain) release() {
	for k := range c.rels {
		if c.rels[k] != nil {
			c.rels[k]()
			c.rels[k] = nil
		}
	}
}

// SetCycles gives the chain a cycle per inverse temperature (issue 24,
// item 3): from now on SetBeta(betas[k]) also makes cycles[k] = {A, M} the
// chain's cycle, and a beta not in the table keeps the cycle the chain
// has. If the chain's beta is in the table, its cycle applies now. The
// cycle follows the temperature, not the chain, because replica exchange
// swaps temperatures: the kernel at each rung stays one fixed exact cycle
// whichever member holds it. Components a cycle needs and the chain lacks
// are built here (at the current spins, without moving the stream), so
// that SetBeta stays O(1). Empty betas clear the table (the cycle and the
// components stay). Betas must be distinct; the slices are copied.
func (c *Chain) SetCycles(betas []float64, cycles [][2]int) error {
	if len(betas) != len(cycles) {
		return fmt.Errorf("hybrid: %d betas and %d cycles", len(betas), len(cycles))
	}
	for k, cy := range cycles {
		if cy[0] < 0 || cy[1] < 0 || cy[0] == 0 && cy[1] == 0 {
			return fmt.Errorf("hybrid: cycle %d:%d (expected sweeps and moves >= 0, not both 0)", cy[0], cy[1])
		}
		if slices.Contains(betas[:k], betas[k]) {
			return fmt.Errorf("hybrid: beta %g twice in the cycle table", betas[k])
		}
	}
	for _, cy := range cycles {
		for k, n := range cy {
			if n > 0 && c.parts[k] == nil {
				if err := c.buildLate(k); err != nil {
					return err
				}
			}
		}
	}
	if len(betas) == 0 {
		c.tBetas, c.tCyc = nil, nil
		return nil
	}
	c.tBetas, c.tCyc = slices.Clone(betas), slices.Clone(cycles)
	c.pickCycle()
	return nil
}

// Cycles is the table SetCycles set (copies; nil when there is none).
func (c *Chain) Cycles() (betas []float64, cycles [][2]int) {
	return slices.Clone(c.tBetas), slices.Clone(c.tCyc)
}

// pickCycle makes the table's cycle for the chain's beta current, if the
// beta is in the table.
func (c *Chain) pickCycle() {
	if i := slices.Index(c.tBetas, c.beta); i >= 0 {
		c.a, c.m = c.tCyc[i][0], c.tCyc[i][1]
	}
}

// use makes component k current, first bringing it to the current spins:
// nothing when they already agree, flipping the bits that differ where it
// can and they are few, else a Reset.
func (c *Chain) use(k int) {
	if c.cur == k {
		return
	}
	src, dst := c.parts[c.cur].Spins(), c.parts[k].Spins()
	c.cur = k
	if f := c.flip[k]; f != nil {
		d, lim := c.diff[:0], len(src)/flipFraction
		for i, v := range src {
			if dst[i] != v {
				if len(d) == lim {
					c.rs[k].Reset(src)
					c.nReset[k]++
					return
				}
				d = append(d, int32(i))
			}
		}
		if len(d) > 0 {
			f(d)
			c.nFlip[k]++
		}
		c.diff = d
		return
	}
	if !slices.Equal(dst, src) {
		c.rs[k].Reset(src)
		c.nReset[k]++
	}
}

// Step runs one cycle: A Metropolis sweeps, then M SARDONICS moves.
func (c *Chain) Step() {
	if c.a > 0 {
		c.use(metro)
		p := c.parts[metro]
		for range c.a {
			p.Step()
		}
	}
	if c.m > 0 {
		c.use(sard)
		p := c.parts[sard]
		for range c.m {
			p.Step()
		}
	}
}

// SetBeta changes the inverse temperature of both components (see
// sampler.Tempered).
func (c *Chain) SetBeta(beta float64) {
	c.beta = beta
	if c.tBetas != nil {
		c.pickCycle()
	}
	for k, p := range c.parts {
		if p == nil || brokenBeta && k == metro {
			continue
		}
		p.SetBeta(beta)
	}
}

// Beta is the chain's inverse temperature.
func (c *Chain) Beta() float64 { return c.beta }

// Mix is the cycle: Metropolis sweeps and SARDONICS moves per step.
func (c *Chain) Mix() (a, m int) { return c.a, c.m }

// Energy is the current energy (the current component's, exact for the
// current spins).
func (c *Chain) Energy() float64 { return c.parts[c.cur].Energy() }

// Spins is the current state (read only; valid until the next Step).
func (c *Chain) Spins() []int8 { return c.parts[c.cur].Spins() }

// Stats sums the components' counters (see the package comment).
func (c *Chain) Stats() sampler.Stats {
	a, b := c.Parts()
	return sampler.Stats{Flips: a.Flips + b.Flips, Proposed: a.Proposed + b.Proposed, Accepted: a.Accepted + b.Accepted}
}

// Parts are the counters of the Metropolis and the SARDONICS components
// (zero for one not in the cycle).
func (c *Chain) Parts() (metropolis, sardonics sampler.Stats) {
	if p := c.parts[metro]; p != nil {
		metropolis = p.Stats()
	}
	if p := c.parts[sard]; p != nil {
		sardonics = p.Stats()
	}
	return metropolis, sardonics
}

// Sardonics is the SARDONICS component (a *saw.Chain for the runner's
// engines, whose thetas a tuner may set), or nil when M = 0. Its spins are
// the chain's only after a step that ran it.
func (c *Chain) Sardonics() sampler.Chain {
	if c.parts[sard] == nil {
		return nil
	}
	return c.parts[sard]
}

// Metropolis is the Metropolis component, or nil when A = 0.
func (c *Chain) Metropolis() sampler.Chain {
	if c.parts[metro] == nil {
		return nil
	}
	return c.parts[metro]
}

// Reset puts the chain at spins (see sampler.Resetter): the current
// component is reset, the other follows when it next runs.
func (c *Chain) Reset(spins []int8) { c.rs[c.cur].Reset(spins) }

// FlipSites flips the spins at idx (distinct sites; see sampler.Flipper)
// in the current component, which holds the chain's spins: through its own
// FlipSites, else its engine's Flip, else a Reset. The other component
// follows when it next runs, as after Reset.
func (c *Chain) FlipSites(idx []int32) {
	p := c.parts[c.cur]
	if f, ok := p.(sampler.Flipper); ok {
		f.FlipSites(idx)
		return
	}
	if f := c.flip[c.cur]; f != nil {
		f(idx)
		return
	}
	c.spins = append(c.spins[:0], p.Spins()...)
	for _, l := range idx {
		c.spins[l] = -c.spins[l]
	}
	c.rs[c.cur].Reset(c.spins)
}

// FlipPair flips idx in c and in other, a hybrid chain whose current
// component is of the kind of c's (see sampler.PairFlipper), through that
// component's FlipPair; false, nothing flipped, otherwise.
func (c *Chain) FlipPair(other sampler.Chain, idx []int32) bool {
	o, ok := other.(*Chain)
	if !ok {
		return false
	}
	p, ok := c.parts[c.cur].(sampler.PairFlipper)
	return ok && p.FlipPair(o.parts[o.cur], idx)
}

// WorkerCPUSeconds is the CPU time of the components' own threads (a
// parallel SARDONICS engine's), 0 for components without any.
func (c *Chain) WorkerCPUSeconds() float64 {
	t := 0.0
	for _, p := range c.parts {
		t += sampler.WorkerCPUSeconds(p)
	}
	return t
}

// WaitCPUSeconds is the CPU time the components' threads, the caller's
// included, spent waiting for each other (a parallel SARDONICS engine's),
// 0 for components without any.
func (c *Chain) WaitCPUSeconds() float64 {
	t := 0.0
	for _, p := range c.parts {
		t += sampler.WaitCPUSeconds(p)
	}
	return t
}

// CanSave reports whether both components can save their state
// (sampler.MaybeStateful).
func (c *Chain) CanSave() bool {
	for _, p := range c.parts {
		if p != nil && !sampler.CanSave(p) {
			return false
		}
	}
	return true
}

// tagHybrid: "hybr" + version 1, little-endian; tagHybrid2: version 2,
// for a chain with a cycle table or components its built cycle lacks.
const (
	tagHybrid  = 0x0000000172627968
	tagHybrid2 = 0x0000000272627968
)

// pristine reports whether the chain is as New built it but for its
// states: no cycle table, the built cycle, its components only. Such a
// chain saves the version 1 state, byte for byte what it saved before
// cycle tables existed.
func (c *Chain) pristine() bool {
	if c.tBetas != nil || c.a != c.base[0] || c.m != c.base[1] {
		return false
	}
	for k, p := range c.parts {
		if (p != nil) != (c.base[k] > 0) {
			return false
		}
	}
	return true
}

// AppendState appends the chain's state (see sampler.Stateful): the cycle,
// which component is current and both components' states (the other's is
// stale but is kept too, since whether the next switch resets it depends on
// its spins). A chain with a cycle table (SetCycles) also saves the cycle
// it was built with, which components it has, and the table (version 2).
// It panics if a component cannot save its state (check Stateful).
func (c *Chain) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	if c.pristine() {
		w.Uint64(tagHybrid)
	} else {
		w.Uint64(tagHybrid2)
		w.Int64(int64(c.base[0]))
		w.Int64(int64(c.base[1]))
	}
	w.Int64(int64(c.a))
	w.Int64(int64(c.m))
	w.Int64(int64(c.cur))
	if !c.pristine() {
		var have int64
		for k, p := range c.parts {
			if p != nil {
				have |= 1 << k
			}
		}
		w.Int64(have)
		w.Float64s(c.tBetas)
		flat := make([]int64, 0, 2*len(c.tCyc))
		for _, cy := range c.tCyc {
			flat = append(flat, int64(cy[0]), int64(cy[1]))
		}
		w.Int64s(flat)
	}
	for k, p := range c.parts {
		if p == nil {
			continue
		}
		st, ok := p.(sampler.Stateful)
		if !ok {
			panic("hybrid: the " + kindNames[k] + " chain cannot save its state")
		}
		// Length-prefixed in place, as state.Writer.Bytes would, without a
		// copy of the component's state.
		at := len(w.B)
		w.Uint64(0)
		w.B = st.AppendState(w.B)
		binary.LittleEndian.PutUint64(w.B[at:], uint64(len(w.B)-at-8))
	}
	return w.B
}

// maxTable bounds a saved cycle table's length (a corrupt state must not
// allocate without bound).
const maxTable = 1 << 20

// RestoreState restores a state AppendState wrote on a chain built for the
// same model and cycle (see sampler.Stateful), its cycle table included:
// components the state has and the chain lacks are built (without moving
// the stream), those the chain has and the state lacks are released, so
// that the chain is the one that saved the state. A refused state leaves
// the chain as it was.
func (c *Chain) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	tag := r.Uint64()
	if tag != tagHybrid && tag != tagHybrid2 && r.Err() == nil {
		return errors.New("hybrid: state of another sampler or format")
	}
	v2 := tag == tagHybrid2
	base := [2]int64{int64(c.base[0]), int64(c.base[1])}
	if v2 {
		base = [2]int64{r.Int64(), r.Int64()}
	}
	a, m, cur := r.Int64(), r.Int64(), r.Int64()
	var have int64
	var betas []float64
	var cycles [][2]int
	if v2 {
		have = r.Int64()
		peek := r
		n := peek.Uint64()
		if r.Bad() == nil && n > maxTable {
			return fmt.Errorf("hybrid: corrupt state (a table of %d cycles)", n)
		}
		betas = make([]float64, n)
		flat := make([]int64, 2*n)
		r.Float64s(betas)
		r.Int64s(flat)
		for i := range betas {
			cycles = append(cycles, [2]int{int(flat[2*i]), int(flat[2*i+1])})
		}
		if n == 0 {
			betas, cycles = nil, nil
		}
	} else {
		// Version 1: the chain had its built cycle's components only.
		for k, n := range [2]int64{a, m} {
			if n > 0 {
				have |= 1 << k
			}
		}
	}
	var bs [2][]byte
	for k := range c.parts {
		if have&(1<<k) != 0 {
			bs[k] = r.Bytes()
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	valid := func(a, m int64) bool { return a >= 0 && m >= 0 && a+m > 0 && a <= math.MaxInt32 && m <= math.MaxInt32 }
	switch {
	case base != [2]int64{int64(c.base[0]), int64(c.base[1])}:
		return fmt.Errorf("hybrid: state of a chain built for the cycle %d:%d (this chain: %d:%d)", base[0], base[1], c.base[0], c.base[1])
	case !v2 && (a != base[0] || m != base[1]):
		return fmt.Errorf("hybrid: state of the cycle %d:%d (this chain runs %d:%d)", a, m, c.base[0], c.base[1])
	case !valid(a, m) || a > 0 && have&(1<<metro) == 0 || m > 0 && have&(1<<sard) == 0:
		return fmt.Errorf("hybrid: corrupt state (cycle %d:%d, components %b)", a, m, have)
	case have&^3 != 0 || cur != metro && cur != sard || have&(1<<cur) == 0:
		return fmt.Errorf("hybrid: state's current component %d is not in the cycle", cur)
	}
	for i, cy := range cycles {
		if !valid(int64(cy[0]), int64(cy[1])) || cy[0] > 0 && have&(1<<metro) == 0 || cy[1] > 0 && have&(1<<sard) == 0 ||
			slices.Contains(betas[:i], betas[i]) {
			return fmt.Errorf("hybrid: corrupt state (cycle table entry %d: beta %g, %d:%d)", i, betas[i], cy[0], cy[1])
		}
	}
	for k, p := range c.parts {
		if p == nil || have&(1<<k) == 0 {
			continue
		}
		if _, ok := p.(sampler.Stateful); !ok {
			return fmt.Errorf("hybrid: the %s chain cannot restore a state", kindNames[k])
		}
	}
	// Build what the state has and the chain lacks; on a refusal below
	// they are released again.
	var built [2]bool
	fail := func(err error) error {
		for k, b := range built {
			if b {
				c.drop(k)
			}
		}
		return err
	}
	for k := range c.parts {
		if have&(1<<k) != 0 && c.parts[k] == nil {
			if err := c.buildLate(k); err != nil {
				return fail(err)
			}
			built[k] = true
			if _, ok := c.parts[k].(sampler.Stateful); !ok {
				return fail(fmt.Errorf("hybrid: the %s chain cannot restore a state", kindNames[k]))
			}
		}
	}
	// Restore in order; a component already there that was restored
	// before one that refuses its state is put back, so that a refused
	// state changes nothing.
	var undo [2][]byte
	for k := range c.parts {
		if have&(1<<k) == 0 {
			continue
		}
		st := c.parts[k].(sampler.Stateful)
		if !built[k] && k == metro && have&(1<<sard) != 0 {
			undo[k] = st.AppendState(nil)
		}
		if err := st.RestoreState(bs[k]); err != nil {
			for j := range k {
				if undo[j] != nil {
					if e := c.parts[j].(sampler.Stateful).RestoreState(undo[j]); e != nil {
						panic("hybrid: cannot put back the " + kindNames[j] + " state: " + e.Error())
					}
				}
			}
			return fail(fmt.Errorf("hybrid: %s: %w", kindNames[k], err))
		}
	}
	for k, p := range c.parts {
		if p != nil && have&(1<<k) == 0 {
			c.drop(k)
		}
	}
	c.a, c.m, c.cur = int(a), int(m), int(cur)
	c.tBetas, c.tCyc = betas, cycles
	return nil
}
