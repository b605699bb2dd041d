// The kept draws the statistics pool, and the exact means of every step.

package summary

import (
	"fmt"
	"math"

	"sardonics/draws"
)

// ThinSummary says which draws a sampler's statistics come from: the
// trials' kept draws after burn-in (package draws), each trial's thinned
// further to the largest interval among them so that every pooled chain
// is equally spaced, and the means over every step.
type ThinSummary struct {
	// Every is the steps between the pooled draws (1: every step).
	Every int `json:"every"`
	// TrialEvery is each trial's own interval, in the order of trial_ids.
	TrialEvery []int `json:"trial_every"`
	// Cap is the most draws a trial keeps of a phase (--trace-draws).
	Cap int `json:"cap,omitempty"`
	// KeptDraws is the pooled draws after burn-in, all trials together.
	KeptDraws int64 `json:"kept_draws"`
	// ESSPerKeptDraw is the energy's bulk ESS over KeptDraws (null: no
	// ESS).
	ESSPerKeptDraw *float64 `json:"ess_per_kept_draw"`
	// MeansFrom says what the means are over.
	MeansFrom string `json:"means_from"`
	// Note says, when the interval approaches tau_int, what that does to
	// the estimates.
	Note string `json:"note,omitempty"`
}

// pool is how a sampler's trials are pooled: each trial's kept draws
// after burn-in, taken one in sub[i] so that all are Every steps apart.
type pool struct {
	every   int
	sub     []int
	thinned bool // some trial dropped steps: the means come from the moments
}

func newPool(recs []*TrialRecord) pool {
	p := pool{every: 1, sub: make([]int, len(recs))}
	for _, r := range recs {
		p.every = max(p.every, r.every())
	}
	for i, r := range recs {
		p.sub[i] = p.every / r.every()
		p.thinned = p.thinned || r.every() > 1
	}
	return p
}

// pooledOf is trial i's pooled draws of x, a series of r's kept draws (its
// energies, magnetization or overlap).
func pooledOf[T any](p pool, i int, r *TrialRecord, burn int, x []T) []T {
	return draws.Subsample(x[min(r.burnDraws(burn), len(x)):], p.sub[i])
}

// energyMoments is each trial's moments of the energy after burn-in: the
// ones it recorded over every step, else (folders of versions before them,
// a budget trial stopped before its burn-in was known) those of its kept
// draws.
func energyMoments(recs []*TrialRecord, burn int) []*draws.Moments {
	out := make([]*draws.Moments, len(recs))
	for i, r := range recs {
		if r.Moments != nil {
			out[i] = &r.Moments.Energy
			continue
		}
		m := &draws.Moments{}
		for _, v := range r.kept(burn) {
			m.Add(v)
		}
		out[i] = m
	}
	return out
}

// magMoments is energyMoments for the sum of the spins.
func magMoments(recs []*TrialRecord, burn int) []*draws.IntMoments {
	out := make([]*draws.IntMoments, len(recs))
	for i, r := range recs {
		if r.Moments != nil {
			out[i] = &r.Moments.Magnetization
			continue
		}
		m := &draws.IntMoments{}
		for _, v := range r.Magnetization[r.burnDraws(burn):] {
			m.Add(int64(v))
		}
		out[i] = m
	}
	return out
}

// overlapMoments is energyMoments for q, |q| and q^2 (nil when a trial
// has no overlap).
func overlapMoments(recs []*TrialRecord, burn int) (q, abs, q2 []*draws.Moments) {
	for _, r := range recs {
		if r.Moments != nil && r.Moments.Overlap != nil {
			q, abs, q2 = append(q, r.Moments.Overlap), append(abs, r.Moments.AbsOverlap), append(q2, r.Moments.Overlap2)
			continue
		}
		if len(r.Overlap) != len(r.Energies) {
			return nil, nil, nil
		}
		a, b, c := &draws.Moments{}, &draws.Moments{}, &draws.Moments{}
		for _, v := range r.Overlap[r.burnDraws(burn):] {
			a.Add(v)
			b.Add(math.Abs(v))
			c.Add(v * v)
		}
		q, abs, q2 = append(q, a), append(abs, b), append(q2, c)
	}
	return q, abs, q2
}

// minNearlyIndependent is the least bulk ESS per kept draw at which the
// kept draws are called nearly independent: tau_int below 2 kept draws
// gives about 0.5 or more, and a much smaller ESS means the ranks see a
// slower drift than tau_int of the values does (trials that disagree, or
// a trend), which no thinning note should explain away.
const minNearlyIndependent = 0.25

// thinning sets res.Thinning from the pool and the energy's ESS and
// tau_int (in pooled draws, before it is scaled to steps).
func (res *Result) thinning(recs []*TrialRecord, p pool, kept [][]float64, tauKept float64) {
	t := &ThinSummary{Every: p.every, MeansFrom: "every step after burn-in: the kept draws are every step"}
	for _, r := range recs {
		t.TrialEvery = append(t.TrialEvery, r.every())
		if r.Trace != nil {
			t.Cap = r.Trace.BurnIn.Cap
		}
	}
	for _, x := range kept {
		t.KeptDraws += int64(len(x))
	}
	if e := res.ESS / float64(t.KeptDraws); isFinite(e) {
		t.ESSPerKeptDraw = &e
	}
	if p.thinned {
		t.MeansFrom = "every step after burn-in (exact sums); ESS, R-hat, tau_int, the standard errors and the ACF from the kept draws"
		switch {
		case !isFinite(tauKept):
			t.Note = fmt.Sprintf("the kept draws are %d steps apart and give no tau_int; ESS counts kept draws, not steps", p.every)
		case tauKept < 2 && t.ESSPerKeptDraw != nil && *t.ESSPerKeptDraw >= minNearlyIndependent:
			t.Note = fmt.Sprintf("the kept draws are %d steps apart, about tau_int or more (tau_int of the kept draws %.2g): they are nearly independent, so the ESS is about their number, a lower bound of the whole chain's; the standard errors overstate those of the means over every step, and tau_int in steps is only known to be below about %d; a larger --trace-draws keeps more draws",
				p.every, tauKept, 2*p.every)
		}
	}
	res.Thinning = t
}

// scaleToSteps puts tau_int and the ACF's lags, computed in pooled draws,
// in steps. A tau_int of fewer than 2 pooled draws is not resolved by
// them: it is then absent, with the bound it is known to be under.
func (res *Result) scaleToSteps(p pool) {
	res.ACFLagSteps = p.every
	if p.every == 1 || !isFinite(res.TauInt) {
		return
	}
	if res.TauInt < 2 {
		res.TauIntNote = fmt.Sprintf("below about %d steps: the kept draws, %d steps apart, do not resolve it (tau_int of the kept draws %.3g)", 2*p.every, p.every, res.TauInt)
		res.TauInt = math.NaN()
		return
	}
	res.TauInt *= float64(p.every)
}
