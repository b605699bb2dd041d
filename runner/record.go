package runner

import (
	"math"

	"sardonics/draws"
	"sardonics/model"
	"sardonics/summary"
)

// The trial's recording: after every step the lowest energy and the
// observables (into the kept draws as their thinning keeps them, and into
// the exact moments after the burn-in), the saved states and marginals,
// the rungs at a round's end, and the progress counter.

// step advances the chain one step and records it.
func (t *trial) step() {
	t.ch.Step()
	t.rec.Steps++
	n := t.rec.Steps
	if e, l := t.ch.Energy(), t.rec.Lowest; e < l.Energy || l.Step == 0 || t.rec.Best != nil {
		t.offerLowest(e)
	}
	if n > t.burn {
		t.record(&t.rec.Trace.Kept, true)
		if t.ladder != nil && t.ladder.RoundEnd() {
			t.recordRungs()
		}
	} else {
		t.record(&t.rec.Trace.BurnIn, false)
	}
	if n := n - t.burn; n > 0 && n%t.cfg.saveEvery() == 0 {
		if t.cfg.SaveStates {
			s := t.ch.Spins()
			x := make([]uint8, len(s))
			model.SpinsToBits(s, x)
			t.rec.States = append(t.rec.States, x)
			t.rec.StateEnergies = append(t.rec.StateEnergies, t.ch.Energy())
		}
		if t.marg != nil {
			t.marg.Add(t.ch.Spins())
		}
	}
	// The progress counter is shared by trials on other CPUs: adding to
	// it every step would bounce its cache line between them. The first
	// steps report one by one, so that a slow model's step time is known
	// before the stall check needs it.
	if t.pending++; t.pending == reportEvery || n < reportEvery {
		t.flushDone()
	}
}

// offerLowest counts energy e of step rec.Steps for the lowest energy
// and, with --save-best, the lowest states.
func (t *trial) offerLowest(e float64) {
	t.rec.Lowest.Offer(e, t.rec.Steps)
	if b := t.rec.Best; b != nil && !b.Full(e) {
		b.Offer(e, t.rec.Steps, t.rec.Trial, t.ch.Spins())
	}
}

// record keeps the observables after step rec.Steps if th, the thinning
// of its phase, keeps it, and after the burn-in (kept) adds them to the
// exact moments. The kept draws of the burn-in come first in the
// record's series: after the burn-in it no longer grows.
func (t *trial) record(th *draws.Thinning, kept bool) {
	r := t.rec
	if kept && th.Every == 0 { // the first step after the burn-in
		*th = draws.New(t.burn, t.cfg.traceCap())
		r.Moments = &summary.Moments{}
		if t.overlap != nil {
			r.Moments.Overlap, r.Moments.AbsOverlap, r.Moments.Overlap2 = &draws.Moments{}, &draws.Moments{}, &draws.Moments{}
		}
	}
	keep, halve := th.Next(r.Steps)
	if halve {
		b := 0
		if kept {
			b = r.Trace.BurnIn.Kept
		}
		r.Energies = draws.HalveFrom(r.Energies, b)
		r.Magnetization = draws.HalveFrom(r.Magnetization, b)
		if t.overlap != nil {
			r.Overlap = draws.HalveFrom(r.Overlap, b)
		}
	}
	if !kept && !keep && t.full == nil {
		return // a thinned-out burn-in step: nothing reads its values
	}
	e := t.ch.Energy()
	m := t.mag()
	q := 0.0
	if t.overlap != nil {
		q = t.overlap()
	}
	if t.full != nil && t.fullErr == nil {
		t.fullErr = t.full.add(e, int32(m), q)
	}
	if kept {
		mo := r.Moments
		mo.Energy.Add(e)
		mo.Magnetization.Add(int64(m))
		if mo.Overlap != nil {
			mo.Overlap.Add(q)
			mo.AbsOverlap.Add(math.Abs(q))
			mo.Overlap2.Add(q * q)
		}
	}
	if keep {
		r.Energies = append(r.Energies, e)
		r.Magnetization = append(r.Magnetization, int32(m))
		if t.overlap != nil {
			r.Overlap = append(r.Overlap, q)
		}
	}
}

// recordRungs adds every rung's energy and, with two sets, overlap at the
// end of the round that ended at this step to rec.Rungs.
func (t *trial) recordRungs() {
	t.rungE = t.ladder.RungEnergies(t.rungE[:0])
	t.rungQ = t.ladder.RungOverlaps(t.rungQ[:0])
	t.rec.Rungs.Add(t.rec.Steps, t.rungE, t.rungQ)
}
