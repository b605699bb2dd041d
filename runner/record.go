package runner

import (
	"math"

	"sardonics/draws"
	"sardonics/model"
	"sardonics/summary"
)

// The trial's recording, apart from the chain: a recorder takes each
// step's observables (an observation, read only as far as the step's
// records need) and keeps the lowest energy and states, the kept draws of
// each phase as their thinning keeps them, the exact moments after the
// burn-in, the saved states and marginals, and the full trace. It holds
// no chain, so it is tested on made-up streams (record_test.go).

// observation is one step's observables, read lazily: a thinned-out
// burn-in step reads only the energy (for the lowest energy).
type observation interface {
	Energy() float64
	Magnetization() int // M = sum_i s_i
	Overlap() float64   // read only when the recorder records overlaps
	Spins() []int8      // read to save a state, for the marginals and --save-best
}

// recorder is a trial's records and what it needs to keep them.
type recorder struct {
	rec        *summary.TrialRecord
	traceCap   int  // the most kept draws of a phase (Config.traceCap)
	saveEvery  int  // one saved state (and measured marginal) in saveEvery steps after the burn-in
	saveStates bool // --save-states
	overlaps   bool // record q (replica exchange with two sets)
	marg       *summary.MarginalsAcc
	full       *fullTrace // every step's observables, with SaveTrace
	fullErr    error      // the first error writing them
}

// observe records step rec.Steps+1, whose observables o gives, of a trial
// whose first burn steps are its burn-in.
func (r *recorder) observe(o observation, burn int) {
	r.rec.Steps++
	n := r.rec.Steps
	e := o.Energy() // read once: the lowest energy and the records share it
	if l := r.rec.Lowest; e < l.Energy || l.Step == 0 || r.rec.Best != nil {
		r.offerLowest(o, e)
	}
	if n > burn {
		r.record(o, e, &r.rec.Trace.Kept, true, burn)
	} else {
		r.record(o, e, &r.rec.Trace.BurnIn, false, burn)
	}
	if n := n - burn; n > 0 && n%r.saveEvery == 0 {
		if r.saveStates {
			s := o.Spins()
			x := make([]uint8, len(s))
			model.SpinsToBits(s, x)
			r.rec.States = append(r.rec.States, x)
			r.rec.StateEnergies = append(r.rec.StateEnergies, e)
		}
		if r.marg != nil {
			r.marg.Add(o.Spins())
		}
	}
}

// offerLowest counts energy e of step rec.Steps for the lowest energy
// and, with --save-best, the lowest states.
func (r *recorder) offerLowest(o observation, e float64) {
	r.rec.Lowest.Offer(e, r.rec.Steps)
	if b := r.rec.Best; b != nil && !b.Full(e) {
		b.Offer(e, r.rec.Steps, r.rec.Trial, o.Spins())
	}
}

// record keeps the observables after step rec.Steps (its energy e) if th, the thinning
// of its phase, keeps it, and after the burn-in (kept) adds them to the
// exact moments. The kept draws of the burn-in come first in the
// record's series: after the burn-in it no longer grows.
func (r *recorder) record(o observation, e float64, th *draws.Thinning, kept bool, burn int) {
	rec := r.rec
	if kept && th.Every == 0 { // the first step after the burn-in
		*th = draws.New(burn, r.traceCap)
		rec.Moments = &summary.Moments{}
		if r.overlaps {
			rec.Moments.Overlap, rec.Moments.AbsOverlap, rec.Moments.Overlap2 = &draws.Moments{}, &draws.Moments{}, &draws.Moments{}
		}
	}
	keep, halve := th.Next(rec.Steps)
	if halve {
		b := 0
		if kept {
			b = rec.Trace.BurnIn.Kept
		}
		rec.Energies = draws.HalveFrom(rec.Energies, b)
		rec.Magnetization = draws.HalveFrom(rec.Magnetization, b)
		if r.overlaps {
			rec.Overlap = draws.HalveFrom(rec.Overlap, b)
		}
	}
	if !kept && !keep && r.full == nil {
		return // a thinned-out burn-in step: nothing reads its values
	}
	m := o.Magnetization()
	q := 0.0
	if r.overlaps {
		q = o.Overlap()
	}
	if r.full != nil && r.fullErr == nil {
		r.fullErr = r.full.add(e, int32(m), q)
	}
	if kept {
		mo := rec.Moments
		mo.Energy.Add(e)
		mo.Magnetization.Add(int64(m))
		if mo.Overlap != nil {
			mo.Overlap.Add(q)
			mo.AbsOverlap.Add(math.Abs(q))
			mo.Overlap2.Add(q * q)
		}
	}
	if keep {
		rec.Energies = append(rec.Energies, e)
		rec.Magnetization = append(rec.Magnetization, int32(m))
		if r.overlaps {
			rec.Overlap = append(rec.Overlap, q)
		}
	}
}

// A trial is its chain's observation.
func (t *trial) Energy() float64    { return t.ch.Energy() }
func (t *trial) Magnetization() int { return t.mag() }
func (t *trial) Overlap() float64   { return t.overlap() }
func (t *trial) Spins() []int8      { return t.ch.Spins() }

// step advances the chain one step and records it, with every rung at the
// end of a swap round after the burn-in, and reports it to the progress
// board.
func (t *trial) step() {
	t.ch.Step()
	t.observe(t, t.burn)
	n := t.rec.Steps
	if n > t.burn && t.ladder != nil && t.ladder.RoundEnd() {
		t.recordRungs()
	}
	// The progress counter is shared by trials on other CPUs: adding to
	// it every step would bounce its cache line between them. The first
	// steps report one by one, so that a slow model's step time is known
	// before the stall check needs it.
	if t.pending++; t.pending == reportEvery || n < reportEvery {
		t.flushDone()
	}
}

// recordRungs adds every rung's energy and, with two sets, overlap at the
// end of the round that ended at this step to rec.Rungs.
func (t *trial) recordRungs() {
	t.rungE = t.ladder.RungEnergies(t.rungE[:0])
	t.rungQ = t.ladder.RungOverlaps(t.rungQ[:0])
	t.rec.Rungs.Add(t.rec.Steps, t.rungE, t.rungQ)
}
