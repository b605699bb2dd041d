package baseline

import (
	"errors"
	"fmt"
	"math"

	"sardonics/internal/state"
	"sardonics/sampler"
)

// Every chain of this package saves its state (sampler.Stateful) and can be
// put at given spins (sampler.Resetter). A state starts with a tag naming
// the chain's kind, so that a state of another sampler is refused, then
// holds the spins and whatever else depends on the chain's history:
//
//   - single-site, table path: the counters (the energy is exact in
//     integer units, a function of the spins, recomputed and checked);
//   - single-site, float path: the counters, the step count (it times the
//     energy's refresh) and the incrementally updated energy;
//   - RBM single-site: the counters, the step count, the energy and both
//     layers' incrementally updated local fields;
//   - dense single-site: the counters, the step count, the energy and the
//     incrementally updated local fields;
//   - Swendsen-Wang and block Gibbs: only the spins (both recompute their
//     energy from the spins every step, by the same operations as their
//     constructors).
//
// RestoreState decodes and checks everything before changing the chain, so
// a refused state leaves the chain as it was.
var (
	_ sampler.Stateful = (*single)(nil)
	_ sampler.Resetter = (*single)(nil)
	_ sampler.Flipper  = (*single)(nil)
	_ sampler.Stateful = (*rbmSingle)(nil)
	_ sampler.Resetter = (*rbmSingle)(nil)
	_ sampler.Stateful = (*denseSingle)(nil)
	_ sampler.Resetter = (*denseSingle)(nil)
	_ sampler.Stateful = (*sw)(nil)
	_ sampler.Resetter = (*sw)(nil)
	_ sampler.Stateful = (*blockGibbs)(nil)
	_ sampler.Resetter = (*blockGibbs)(nil)
)

// State tags: "sdbl" + kind + version, little-endian.
const (
	tagGibbs      = 0x0131626c62647301 // sdbl, 1, gibbs
	tagMetropolis = 0x0131626c62647302
	tagRBMGibbs   = 0x0131626c62647303
	tagRBMMetro   = 0x0131626c62647304
	tagSW         = 0x0131626c62647305
	tagBlockGibbs = 0x0131626c62647306
	tagDenseGibbs = 0x0131626c62647307
	tagDenseMetro = 0x0131626c62647308
)

// counters is what every single-site chain counts.
type counters struct {
	steps, flips, proposed, accepted int64
}

// sweep counts a sweep of n proposals (or Gibbs updates), acc of them
// accepted by Metropolis.
func (k *counters) sweep(n, acc int64, metropolis bool) {
	k.flips += n
	if metropolis {
		k.proposed += n
		k.accepted += acc
	}
	k.steps++
}

func (k counters) write(w *state.Writer) {
	w.Int64(k.steps)
	w.Int64(k.flips)
	w.Int64(k.proposed)
	w.Int64(k.accepted)
}

func readCounters(r *state.Reader) counters {
	k := counters{r.Int64(), r.Int64(), r.Int64(), r.Int64()}
	if k.steps < 0 || k.flips < 0 || k.proposed < 0 || k.accepted < 0 || k.accepted > k.proposed {
		r.Fail(fmt.Errorf("baseline: state holds impossible counters %+v", k))
	}
	return k
}

// readTag checks the state's tag.
func readTag(r *state.Reader, want uint64) {
	if got := r.Uint64(); got != want {
		r.Fail(errors.New("baseline: state of another sampler or format"))
	}
}

// resetSpins copies spins into dst for Reset, which has no error to
// return: spins of the wrong length or not in {-1, +1} are a programming
// error and panic, before anything changes.
func resetSpins(dst, spins []int8) {
	if len(spins) != len(dst) {
		panic(fmt.Sprintf("baseline: Reset with %d spins (expected %d)", len(spins), len(dst)))
	}
	for i, v := range spins {
		if v != 1 && v != -1 {
			panic(fmt.Sprintf("baseline: Reset with spin %d = %d", i, v))
		}
	}
	copy(dst, spins)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (c *single) tag() uint64 {
	if c.metropolis {
		return tagMetropolis
	}
	return tagGibbs
}

// AppendState appends the chain's state (see sampler.Stateful).
func (c *single) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Uint64(c.tag())
	w.Int8s(c.s)
	c.counters.write(&w)
	if c.table {
		w.Int64(c.eInt)
	} else {
		w.Float64(c.e)
	}
	return w.B
}

// RestoreState restores a state AppendState wrote on a chain of the same
// model, beta and kind (see sampler.Stateful).
func (c *single) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	readTag(&r, c.tag())
	s := make([]int8, len(c.s))
	r.Spins(s)
	k := readCounters(&r)
	var eInt int64
	var e float64
	if c.table {
		eInt = r.Int64()
	} else if e = r.Float64(); !finite(e) {
		r.Fail(fmt.Errorf("baseline: state holds energy %v", e))
	}
	if err := r.Err(); err != nil {
		return err
	}
	if c.table {
		if x := c.exactInt(s); x != eInt {
			return fmt.Errorf("baseline: state's energy %d units does not match its spins (%d)", eInt, x)
		}
	}
	copy(c.s, s)
	c.counters = k
	c.eInt, c.e = eInt, e
	return nil
}

// Reset puts the chain at spins in O(N + edges), allocating nothing; the
// counters (and the float path's refresh phase) are kept.
func (c *single) Reset(spins []int8) {
	resetSpins(c.s, spins)
	if c.table {
		c.eInt = c.exactInt(c.s)
	} else {
		c.e = c.m.Energy(c.s)
	}
}

// FlipSites flips the spins at idx one after the other (see
// sampler.Flipper), adding each flip's energy change 2 s_i f_i: in integer
// units on the table path, so the energy stays exact; O(the sites'
// degrees), allocating nothing; the counters are kept.
func (c *single) FlipSites(idx []int32) {
	switch {
	case c.rows4 != nil:
		c.eInt += flip4(c.rows4, c.s16, idx)
	case c.rows6 != nil:
		c.eInt += flip6(c.rows6, c.s16, idx)
	case c.table:
		c.eInt += flipInt(c.s, c.start, c.nb, c.hInt, idx)
	default:
		c.e += flipFloat(c.s, c.start, c.nbF, c.m.H, idx)
	}
}

// FlipPair flips idx in c and in other (see sampler.PairFlipper): c's
// energy change d as in FlipSites, other's spins negated and its energy
// changed by -d (exact in integer units on the table path). Half the cost
// of two FlipSites, which each read every site's row.
func (c *single) FlipPair(other sampler.Chain, idx []int32) bool {
	o, ok := other.(*single)
	if !ok || o.m != c.m || o.table != c.table || (o.rows4 == nil) != (c.rows4 == nil) || (o.rows6 == nil) != (c.rows6 == nil) {
		return false
	}
	e0, f0 := c.eInt, c.e
	c.FlipSites(idx)
	o.eInt -= c.eInt - e0
	o.e -= c.e - f0
	s := o.s
	for _, l := range idx {
		s[l] = -s[l]
	}
	return true
}

// flip4 is flipInt on the fast sweeps' rows of degree 4 (lattices in 2D):
// the row unrolled, the spins read through the fixed-size buffer, about
// 2x faster than the CSR loop.
func flip4(rows []row4, sa *[fastSpan]int8, idx []int32) int64 {
	var d int64
	for _, l := range idx {
		r := &rows[l]
		f := r.h + r.w[0]*int32(sa[r.j[0]]) + r.w[1]*int32(sa[r.j[1]]) +
			r.w[2]*int32(sa[r.j[2]]) + r.w[3]*int32(sa[r.j[3]])
		sl := sa[uint16(l)]
		d += int64(sl) * int64(f)
		sa[uint16(l)] = -sl
	}
	return 2 * d
}

// flip6 is flip4 for degree 6 (3D lattices).
func flip6(rows []row6, sa *[fastSpan]int8, idx []int32) int64 {
	var d int64
	for _, l := range idx {
		r := &rows[l]
		f := r.h + r.w[0]*int32(sa[r.j[0]]) + r.w[1]*int32(sa[r.j[1]]) +
			r.w[2]*int32(sa[r.j[2]]) + r.w[3]*int32(sa[r.j[3]]) +
			r.w[4]*int32(sa[r.j[4]]) + r.w[5]*int32(sa[r.j[5]])
		sl := sa[uint16(l)]
		d += int64(sl) * int64(f)
		sa[uint16(l)] = -sl
	}
	return 2 * d
}

// flipInt flips the spins at idx one after the other and returns the
// energy change in units (FlipSites's table path; few live values, so
// that the loop keeps them in registers: with FlipSites's fields in the
// loop it spilled and ran 1.5x slower).
func flipInt(s []int8, start []int32, nb []nbr, h []int32, idx []int32) int64 {
	var d int64
	for _, l := range idx {
		f := h[l]
		for _, x := range nb[start[l]:start[l+1]] {
			f += x.w * int32(s[x.j])
		}
		sl := s[l]
		d += int64(sl) * int64(f)
		s[l] = -sl
	}
	return 2 * d
}

// flipFloat is flipInt with real couplings (FlipSites's float path).
func flipFloat(s []int8, start []int32, nb []nbrF, h []float64, idx []int32) float64 {
	d := 0.0
	for _, l := range idx {
		f := h[l]
		for _, x := range nb[start[l]:start[l+1]] {
			f += x.w * float64(s[x.j])
		}
		sl := s[l]
		d += float64(sl) * f
		s[l] = -sl
	}
	return 2 * d
}

func (c *rbmSingle) tag() uint64 {
	if c.metropolis {
		return tagRBMMetro
	}
	return tagRBMGibbs
}

// AppendState appends the chain's state (see sampler.Stateful).
func (c *rbmSingle) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Uint64(c.tag())
	w.Int8s(c.s)
	c.counters.write(&w)
	w.Float64(c.e)
	w.Float64s(c.a)
	w.Float64s(c.g)
	return w.B
}

// RestoreState restores a state AppendState wrote on a chain of the same
// model, beta and kind (see sampler.Stateful).
func (c *rbmSingle) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	readTag(&r, c.tag())
	s := make([]int8, len(c.s))
	r.Spins(s)
	k := readCounters(&r)
	e := r.Float64()
	a, g := make([]float64, len(c.a)), make([]float64, len(c.g))
	r.Float64s(a)
	r.Float64s(g)
	for _, x := range [][]float64{{e}, a, g} {
		for _, v := range x {
			if !finite(v) {
				r.Fail(fmt.Errorf("baseline: state holds a field or energy %v", v))
			}
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	copy(c.s, s)
	c.setBits()
	copy(c.a, a)
	copy(c.g, g)
	c.e = e
	c.counters = k
	return nil
}

// setBits sets x from s.
func (c *rbmSingle) setBits() {
	x := c.x[:len(c.s)]
	for i, v := range c.s {
		x[i] = float64((v + 1) / 2)
	}
}

// Reset puts the chain at spins in O(N + V H) (the fields are recomputed),
// allocating nothing; the counters and the refresh phase are kept.
func (c *rbmSingle) Reset(spins []int8) {
	resetSpins(c.s, spins)
	c.setBits()
	c.refresh()
}

// AppendState appends the chain's state, its spins (see sampler.Stateful).
func (c *sw) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Uint64(tagSW)
	w.Int8s(c.s[:c.n])
	return w.B
}

// RestoreState restores a state AppendState wrote on a chain of the same
// model and beta (see sampler.Stateful).
func (c *sw) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	readTag(&r, tagSW)
	s := make([]int8, c.n)
	r.Spins(s)
	if err := r.Err(); err != nil {
		return err
	}
	c.Reset(s)
	return nil
}

// Reset puts the chain at spins in O(N + edges), allocating nothing.
func (c *sw) Reset(spins []int8) {
	resetSpins(c.s[:c.n], spins)
	c.s[c.n] = 1
	c.setSpins()
	c.e = c.energy()
}

// AppendState appends the chain's state, its spins (see sampler.Stateful).
func (c *blockGibbs) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Uint64(tagBlockGibbs)
	w.Int8s(c.s)
	return w.B
}

// RestoreState restores a state AppendState wrote on a chain of the same
// model and beta (see sampler.Stateful).
func (c *blockGibbs) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	readTag(&r, tagBlockGibbs)
	s := make([]int8, len(c.s))
	r.Spins(s)
	if err := r.Err(); err != nil {
		return err
	}
	c.Reset(s)
	return nil
}

// Reset puts the chain at spins in O(V H) (one product for the energy),
// allocating nothing.
func (c *blockGibbs) Reset(spins []int8) {
	resetSpins(c.s, spins)
	c.setState()
}

func (c *denseSingle) tag() uint64 {
	if c.metropolis {
		return tagDenseMetro
	}
	return tagDenseGibbs
}

// AppendState appends the chain's state (see sampler.Stateful).
func (c *denseSingle) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Uint64(c.tag())
	w.Int8s(c.s)
	c.counters.write(&w)
	w.Float64(c.e)
	w.Float64s(c.f)
	return w.B
}

// RestoreState restores a state AppendState wrote on a chain of the same
// model, beta and kind (see sampler.Stateful).
func (c *denseSingle) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	readTag(&r, c.tag())
	s := make([]int8, len(c.s))
	r.Spins(s)
	k := readCounters(&r)
	e := r.Float64()
	f := make([]float64, len(c.f))
	r.Float64s(f)
	for _, v := range append(f, e) {
		if !finite(v) {
			r.Fail(fmt.Errorf("baseline: state holds a field or energy %v", v))
			break
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	copy(c.s, s)
	copy(c.f, f)
	c.e = e
	c.counters = k
	return nil
}

// Reset puts the chain at spins in O(N^2) (the fields are recomputed),
// allocating nothing; the counters and the refresh phase are kept.
func (c *denseSingle) Reset(spins []int8) {
	resetSpins(c.s, spins)
	c.refresh()
}
