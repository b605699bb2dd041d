// What a tempering user reads: the overlap's statistics at the target and
// every rung's, with errors, ESS and R-hat, and their printed table.

package summary

import (
	"fmt"
	"math"
	"strings"

	"sardonics/draws"
)

// The overlap of two replica sets (--overlap): q = (1/N) sum_i s_i s'_i of
// the two sets' replicas at one rung, N the spins. summary.json's replica
// block gives, at the target rung over every step after the burn-in,
//
//   - <q^2> and <|q|>, means estimated as the energy's is (the pooled
//     bulk ESS and split-R-hat of the trials' q^2 and |q| series, the
//     standard error sd / sqrt(ESS));
//   - chi_SG = N <q^2>, the spin-glass susceptibility: <q^2>'s estimate
//     times N;
//   - the Binder ratio g = (3 - b/a^2)/2, a = <q^2>, b = <q^4>, 0 for a
//     Gaussian q (no order) and 1 for q = +-c (one pair of states). Its
//     error is the delta method's: to first order g(a + da, b + db) - g =
//     (b/a^3) da - db/(2a^2), the mean of the linearized series
//     Z_t = (b/a^3)(q_t^2 - a) - (q_t^4 - b)/(2a^2), whose standard error,
//     ESS and R-hat diag computes from the trials' Z series as the
//     energy's from theirs (the chains' autocorrelation and disagreement
//     included, no batch length to choose).
//
// When the trials' draws are thinned (package draws), a and b are the
// exact ones over every step (the moments of q^2: b = Var(q^2) + a^2) and
// the series are the kept draws'. Every rung's q^2 and g (per_rung) are the
// same over the rounds' ends (rungStats).

// overlapStats sets s's q^2, |q|, g and chi_SG from the trials' kept
// overlap draws (pooled as the energy's: p) into buffers shaped like kept;
// it leaves them absent when a trial has no overlap.
func (s *ReplicaSummary) overlapStats(recs []*TrialRecord, p pool, burn int, kept [][]float64) {
	for _, r := range recs {
		if len(r.Overlap) == 0 || len(r.Overlap) != len(r.Energies) {
			return
		}
	}
	var q2Exact, absExact *[2]float64
	if p.thinned {
		_, abs, q2 := overlapMoments(recs, burn)
		if len(q2) != len(recs) {
			return
		}
		a := draws.PooledMean(q2)
		q2Exact = &[2]float64{a, draws.PooledVariance(q2) + a*a}
		absExact = &[2]float64{draws.PooledMean(abs)}
	}
	x := rows(kept)
	fill := func(f func(q float64) float64) {
		for i, r := range recs {
			for t, v := range pooledOf(p, i, r, burn, r.Overlap) {
				x[i][t] = f(v)
			}
		}
	}
	fill(math.Abs)
	abs := meanEstimate(x)
	if absExact != nil && isFinite(abs.Mean) {
		abs.Mean = absExact[0]
	}
	fill(func(q float64) float64 { return q * q })
	q2 := meanEstimate(x)
	if q2Exact != nil && isFinite(q2.Mean) {
		q2.Mean = q2Exact[0]
	}
	g := binderEstimate(x, x, q2Exact)
	s.Q2, s.AbsQ, s.Binder = &q2, &abs, &g
	if o := recs[0].Observables; o != nil && o.Spins > 0 {
		n := float64(o.Spins)
		chi := q2
		chi.Mean *= n
		chi.Stderr *= n
		s.ChiSG, s.Spins = &chi, o.Spins
	}
}

// binderEstimate is the Binder ratio g = (3 - b/a^2)/2 of the q^2 draws
// q2 (a row per trial), a = <q^2> and b = <q^4> their means or, with exact
// not nil, exact's; its standard error, ESS and R-hat are those of the
// mean of Z_t = (b/a^3)(q_t^2 - a) - (q_t^4 - b)/(2a^2) (the delta method,
// see the comment above overlapStats), Z computed into dst (which may be
// q2).
func binderEstimate(dst, q2 [][]float64, exact *[2]float64) Estimate {
	var a, b float64
	if exact != nil {
		a, b = exact[0], exact[1]
	} else {
		var s2, s4 meanSum
		for _, x := range q2 {
			for _, v := range x {
				s2.add(v)
				s4.add(v * v)
			}
		}
		a, b = s2.mean(), s4.mean()
	}
	da, db := b/(a*a*a), -1/(2*a*a)
	for i, x := range q2 {
		for t, v := range x {
			dst[i][t] = da*(v-a) + db*(v*v-b)
		}
	}
	e := meanEstimate(dst)
	switch {
	case !isFinite(e.Mean): // no draws: its note says so
	case !(a > 0):
		e = Estimate{Mean: math.NaN(), MeanNote: "<q^2> = 0: every overlap was 0", Stderr: math.NaN(), StderrNote: "no Binder ratio",
			ESS: math.NaN(), ESSNote: "no Binder ratio", Rhat: math.NaN(), RhatNote: "no Binder ratio"}
	default:
		e.Mean = (3 - b/(a*a)) / 2
	}
	return e
}

// RungSummary is one rung's statistics over the ends of the swap rounds
// after the burn-in, pooled over the trials.
type RungSummary struct {
	// Beta is the first trial's inverse temperature at this rung.
	Beta   float64  `json:"beta"`
	Energy Estimate `json:"energy"`
	// Q2 and Binder are <q^2> and g of the two sets' replicas at this
	// rung (--overlap).
	Q2     *Estimate `json:"q2,omitempty"`
	Binder *Estimate `json:"binder,omitempty"`
}

// rungStats sets s.PerRung from the trials' records of every rung
// (TrialRecord.Rungs), or says in s.PerRungNote why it cannot: each
// rung's energy, q^2 and g estimated as the target's energy, q^2 and g are,
// from each trial's kept rounds (thinned to the largest interval among
// the trials, so that the pooled series are equally spaced) and, when
// some trial dropped rounds, with the exact means of every round.
func (s *ReplicaSummary) rungStats(recs []*TrialRecord) {
	var old []int
	for _, r := range recs {
		if r.Rungs == nil {
			old = append(old, r.Trial)
		}
	}
	if len(old) > 0 {
		s.PerRungNote = fmt.Sprintf("trial(s) %s recorded no rungs (folders written before sardonics recorded them: no rungs.csv); run them again for every rung's statistics", joinInts(old))
		return
	}
	r0 := recs[0].Rungs
	if r0.Rungs != len(s.Ladder) {
		s.PerRungNote = fmt.Sprintf("trial %d recorded %d rungs of a ladder of %d", recs[0].Trial, r0.Rungs, len(s.Ladder))
		return
	}
	every := 1
	for _, r := range recs {
		rt := r.Rungs
		if rt.Rungs != r0.Rungs || (rt.Overlap2 != nil) != (r0.Overlap2 != nil) {
			s.PerRungNote = fmt.Sprintf("trials %d and %d recorded different ladders (%d and %d rungs, overlap %v and %v)",
				recs[0].Trial, r.Trial, r0.Rungs, rt.Rungs, r0.Overlap2 != nil, rt.Overlap2 != nil)
			return
		}
		every = max(every, rt.Thinning.Every)
	}
	thinned := every > 1
	// series is rung k's pooled draws of of, f applied, in a new array.
	series := func(k int, of func(rt *RungTrace) [][]float64, f func(float64) float64) [][]float64 {
		out := make([][]float64, len(recs))
		for i, r := range recs {
			x := draws.Subsample(of(r.Rungs)[k], every/r.Rungs.Thinning.Every)
			out[i] = make([]float64, len(x))
			for t, v := range x {
				out[i][t] = f(v)
			}
		}
		return out
	}
	moments := func(k int, of func(rt *RungTrace) []draws.Moments) []*draws.Moments {
		out := make([]*draws.Moments, len(recs))
		for i, r := range recs {
			out[i] = &of(r.Rungs)[k]
		}
		return out
	}
	s.PerRung = make([]RungSummary, r0.Rungs)
	for k := range s.PerRung {
		rs := &s.PerRung[k]
		rs.Beta = s.Ladder[k]
		rs.Energy = meanEstimate(series(k, func(rt *RungTrace) [][]float64 { return rt.E }, func(e float64) float64 { return e }))
		if thinned && isFinite(rs.Energy.Mean) {
			rs.Energy.Mean = draws.PooledMean(moments(k, func(rt *RungTrace) []draws.Moments { return rt.Energy }))
		}
		if r0.Overlap2 == nil {
			continue
		}
		x := series(k, func(rt *RungTrace) [][]float64 { return rt.Q }, func(q float64) float64 { return q * q })
		var exact *[2]float64
		if thinned {
			m := moments(k, func(rt *RungTrace) []draws.Moments { return rt.Overlap2 })
			a := draws.PooledMean(m)
			exact = &[2]float64{a, draws.PooledVariance(m) + a*a}
		}
		q2 := meanEstimate(x)
		if exact != nil && isFinite(q2.Mean) {
			q2.Mean = exact[0]
		}
		g := binderEstimate(x, x, exact)
		rs.Q2, rs.Binder = &q2, &g
	}
}

// ReplicaTable renders, for the results of replica exchange, the overlap's
// statistics at the target (with --overlap) and every rung's energy (and
// q^2 and g) as text tables with a legend; "" when no result has replicas.
func ReplicaTable(results []*Result) string {
	var b strings.Builder
	row := "%-11s %-10s %12s %10s %10s %7s\n"
	n := 0
	for _, r := range results {
		rp := r.Replica
		if rp == nil || rp.Q2 == nil {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, row, "sampler", "overlap", "mean", "stderr", "ESS bulk", "R-hat")
		}
		for _, x := range []struct {
			name string
			e    *Estimate
		}{{"q^2", rp.Q2}, {"|q|", rp.AbsQ}, {"g Binder", rp.Binder}, {"chi_SG", rp.ChiSG}} {
			if x.e != nil {
				fmt.Fprintf(&b, row, r.Sampler, x.name, num("%.5g", x.e.Mean), num("%.3g", x.e.Stderr), num("%.4g", x.e.ESS), num("%.3f", x.e.Rhat))
			}
		}
		n = rp.Spins
	}
	if b.Len() > 0 {
		spins := ""
		if n > 0 {
			spins = fmt.Sprintf(" (N = %d)", n)
		}
		fmt.Fprintf(&b, "q = (1/N) sum_i s_i s'_i of the two replica sets at the target, every step after burn-in%s; g = (3 - <q^4>/<q^2>^2)/2 (delta-method error); chi_SG = N <q^2>\n", spins)
	}
	tabled := false
	for _, r := range results {
		rp := r.Replica
		if rp == nil {
			continue
		}
		if rp.PerRung == nil {
			if rp.PerRungNote != "" {
				fmt.Fprintf(&b, "\n%-11s rungs: n/a: %s\n", r.Sampler, rp.PerRungNote)
			}
			continue
		}
		q := rp.PerRung[0].Q2 != nil
		if !tabled || q {
			fmt.Fprintf(&b, "\n%-11s %4s %8s %12s %9s %9s %7s", "sampler", "rung", "beta", "E mean", "stderr", "ESS bulk", "R-hat")
			if q {
				fmt.Fprintf(&b, " %9s %9s %9s %7s %8s %8s", "<q^2>", "stderr", "ESS bulk", "R-hat", "g", "stderr")
			}
			b.WriteString("\n")
		}
		tabled = true
		for k, x := range rp.PerRung {
			e := x.Energy
			fmt.Fprintf(&b, "%-11s %4d %8s %12s %9s %9s %7s", r.Sampler, k, num("%.4f", x.Beta), meanText(e.Mean, e.Stderr), num("%.3g", e.Stderr), num("%.4g", e.ESS), num("%.3f", e.Rhat))
			if x.Q2 != nil {
				fmt.Fprintf(&b, " %9s %9s %9s %7s %8s %8s", num("%.4g", x.Q2.Mean), num("%.3g", x.Q2.Stderr), num("%.4g", x.Q2.ESS), num("%.3f", x.Q2.Rhat),
					num("%.4f", x.Binder.Mean), num("%.3g", x.Binder.Stderr))
			}
			b.WriteString("\n")
		}
		if rp.LadderNote != "" {
			fmt.Fprintf(&b, "%-11s %s\n", r.Sampler, rp.LadderNote)
		}
	}
	if tabled {
		b.WriteString("rungs hottest first (the last is the target), at the end of every swap round after burn-in, pooled over the trials\n")
	}
	return b.String()
}
