package replica

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"sardonics/diag"
)

// The cycle tuner's choice and scores: which assignment of cycles wins
// (by bounds on the scores), batch means of the slow observable and the
// energy per segment, and the checks of a restored tuner's state.

// choose compares the assignments run (see the comment above tuneControl):
// the cheap cycle everywhere first, then each in turn replaces the one
// chosen so far where better says it is better.
func (c *Chain) choose(ended string) *Tuning {
	t := c.tn
	s := &t.st
	R := len(c.betas)
	res := &Tuning{Candidates: slices.Clone(t.cfg.Candidates), Observable: c.observable(), Costs: t.cfg.Costs, From: s.From, End: c.done,
		Ended: ended, BudgetSeconds: s.Budget * 1e-9, ModelledSeconds: s.Total * 1e-9, Assignments: slices.Clone(s.Done), Chosen: -1,
		DecidedBy: "nothing was measured: the cheap cycle at every rung"}
	as := res.Assignments
	if len(as) > 0 {
		res.Chosen, res.DecidedBy = 0, "only the cheap cycle ran: kept"
		as[0].VsCheap = "the cheap cycle"
		var by string
		for i := 1; i < len(as); i++ {
			v, how := better(as[i], as[0])
			as[i].VsCheap = verdict(v, how)
			if v, how := better(as[i], as[res.Chosen]); v > 0 {
				res.Chosen, by = i, how
			}
		}
		switch {
		case res.Chosen > 0:
			res.DecidedBy = fmt.Sprintf("%s beat the cheap cycle and the others by %s", as[res.Chosen].Label, by)
		case len(as) > 1:
			res.DecidedBy = "no assignment was shown to beat the cheap cycle at every rung: kept"
		}
	}
	if len(as) > 0 && !slices.ContainsFunc(as, func(a Assignment) bool { return a.TripsKnown }) {
		res.Note = fmt.Sprintf("no assignment's window saw %d traversals of the ladder: modes slower than the windows (a replica's journey through the ladder among them) are not in these scores; a longer burn-in gives longer windows", MinTraversals)
	}
	per := c.perRung()
	nc := min(len(t.cfg.Candidates), len(s.RungScore))
	for k := range R {
		rc := RungChoice{Beta: c.betas[k], Cycle: t.cfg.Candidates[0], PerRung: per[k]}
		if res.Chosen >= 0 {
			rc.Cycle = as[res.Chosen].Cycles[k]
		}
		for i := range nc {
			rc.Tried = append(rc.Tried, s.RungScore[i][k])
		}
		res.Rungs = append(res.Rungs, rc)
	}
	return res
}

// better compares two assignments: +1 where x is better than y, -1 where
// worse, 0 where it cannot tell, and what told (see the comment above
// tuneControl): the target's slow observable per CPU-second, else round
// trips per CPU-second.
func better(x, y Assignment) (int, string) {
	sx, sy := x.Slow, y.Slow
	if brokenScore == 1 {
		sx, sy = x.Energy, y.Energy
	}
	if v := cmpScore(sx, sy); v != 0 {
		if brokenScore == 2 {
			v = -v
		}
		return v, "the slow observable's ESS per CPU-second"
	}
	if v := cmpBounds(x.tripBounds(), y.tripBounds()); v != 0 {
		return v, "round trips per CPU-second"
	}
	return 0, ""
}

// verdict describes better's answer for the report.
func verdict(v int, how string) string {
	switch {
	case v > 0:
		return "better (" + how + ")"
	case v < 0:
		return "worse (" + how + ")"
	}
	return "cannot tell (neither the slow observable nor round trips resolved): not chosen over it"
}

// cmpScore compares two scores per CPU-second by their bounds.
func cmpScore(x, y Score) int { return cmpBounds(x.bounds(), y.bounds()) }

// cmpBounds is +1 where x's lower bound is above y's upper bound, -1 the
// other way round, else 0 (a resolved value is both bounds).
func cmpBounds(x, y [2]float64) int {
	switch {
	case x[0] > y[1]:
		return 1
	case y[0] > x[1]:
		return -1
	}
	return 0
}

// bounds are the score's ESS per CPU-second as the interval it is taken
// to lie in: within tau's standard error where resolved (RelErr, capped
// at 0.9), from 0 to its upper bound where not, anything where nothing was
// measured.
func (s Score) bounds() [2]float64 {
	switch {
	case s.Resolved:
		e := min(s.RelErr, 0.9)
		return [2]float64{s.PerCPUSecond / (1 + e), s.PerCPUSecond / (1 - e)}
	case s.PerCPUSecond > 0:
		return [2]float64{0, s.PerCPUSecond}
	}
	return [2]float64{0, math.Inf(1)}
}

// tripBounds are the round trips per CPU-second as bounds (see bounds).
func (a Assignment) tripBounds() [2]float64 {
	switch {
	case a.ModelledSeconds <= 0:
		return [2]float64{0, math.Inf(1)}
	case a.TripsKnown:
		return [2]float64{a.RoundTripsPerCPUSecond, a.RoundTripsPerCPUSecond}
	}
	return [2]float64{0, a.RoundTripsPerCPUSecond}
}

// label names an assignment: "A:M" where every rung has the same cycle,
// else "per-rung".
func label(cycles [][2]int) string {
	for _, cy := range cycles {
		if cy != cycles[0] {
			return "per-rung"
		}
	}
	return fmt.Sprintf("%d:%d", cycles[0][0], cycles[0][1])
}

// batchAcc is a trace of one value per round held as batch means (at
// most 2 batchCap of them).
type batchAcc = diag.BatchMeans

// batchScore is the trace a's ESS per CPU-second of ns modelled nanoseconds.
// From batch means of b values: the variance of the grand mean is
// var_b tau_b / n_b (var_b, tau_b the batch means' variance and
// integrated autocorrelation time, n_b their number), so the ESS, the
// values' variance over it, is var n_b / (var_b tau_b) (n / tau when
// b = 1; batch means as in Flegal & Jones 2010, Ann. Statist. 38, 1034).
// tau_b is Sokal's (diag.TauInt), whose relative standard error is
// sqrt(2 (2W + 1) / n_b) for a window of W batches (Madras & Sokal 1988,
// J. Stat. Phys. 50, 109): RelErr. Resolved is false, with ESS an upper
// bound, where the window reaches the last batch, where the trace never
// changed (ESS 1), has fewer than MinTuneRounds values (ESS the count) or
// fewer than MinTuneESS effective samples: a trace not much longer than
// its slowest mode still passes Sokal's window (a random walk's sample
// autocorrelations fall to 0 within it), with a tau that is too small,
// so a small ESS is only an upper bound. ESS is at most twice the values
// (tau >= 0.5, as tauOf).
func batchScore(a *batchAcc, ns float64) Score {
	n := float64(a.N)
	s := Score{Why: "not measured"}
	if a.N == 0 {
		return s
	}
	var v float64
	s.Mean, v = a.Moments()
	switch {
	case a.N < MinTuneRounds:
		s.ESS, s.Why = n, fmt.Sprintf("%d values (fewer than %d)", a.N, MinTuneRounds)
	case v <= 1e-12*max(1, s.Mean*s.Mean):
		s.ESS, s.Why = 1, "never changed"
	default:
		nb := float64(len(a.Means))
		_, vb := a.MeansMoments()
		tau, w := diag.TauInt(a.Means)
		fits := w < len(a.Means)-1 && !math.IsNaN(tau)
		if !fits {
			tau = max(tau, (nb-1)/diag.SokalC)
		}
		s.ESS = 2 * n
		if vb > 0 && tau > 0 {
			s.ESS = min(2*n, v*nb/(vb*tau))
		}
		s.SE = math.Sqrt(v / s.ESS)
		s.RelErr = math.Sqrt(2 * float64(2*w+1) / nb)
		switch {
		case !fits:
			s.Why = "tau beyond Sokal's window: the trace is shorter than about 5 tau"
		case s.ESS < MinTuneESS:
			s.Why = fmt.Sprintf("%.3g effective samples (fewer than %d): tau may be far too small", s.ESS, MinTuneESS)
		default:
			s.Resolved, s.Why = true, ""
		}
	}
	s.Tau = n / s.ESS
	if ns > 0 {
		s.PerCPUSecond = s.ESS / (ns * 1e-9)
	}
	return s
}

// check says what is wrong with a restored tuner state for R rungs and
// sets sets, if anything.
func (s *tunerState) check(tc *CycleTuner, R, sets int) error {
	nc := len(tc.Candidates)
	bad := s.Phase < tuneCheap || s.Phase > tuneDone || len(s.Plan) < nc || len(s.Plan) > nc+1 || s.Seg < 0 || s.Seg >= len(s.Plan) ||
		len(s.RungNs) != R || len(s.Slow) != R || len(s.Energy) != R || len(s.Ends) != sets || len(s.Done) != len(s.RungScore) ||
		len(s.Done) > len(s.Plan) || s.Phase == tuneDone && s.Res == nil
	for i := 0; !bad && i < len(s.Plan); i++ {
		bad = len(s.Plan[i]) != R || i < nc && !slices.Equal(s.Plan[i], uniform(tc.Candidates[i], R))
		for _, cy := range s.Plan[i] {
			bad = bad || !slices.Contains(tc.Candidates, cy)
		}
	}
	for i := 0; !bad && i < sets; i++ {
		bad = len(s.Ends[i]) != R
	}
	for i := 0; !bad && i < R; i++ {
		for _, a := range []*batchAcc{&s.Slow[i], &s.Energy[i]} {
			bad = bad || !a.Valid(batchCap)
		}
	}
	for i := 0; !bad && i < len(s.RungScore); i++ {
		bad = len(s.RungScore[i]) != R
	}
	if bad {
		return errors.New("replica: corrupt state (cycle tuner)")
	}
	return nil
}
