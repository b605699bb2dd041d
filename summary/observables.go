package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"sardonics/diag"
	"sardonics/draws"
)

// The observables besides the energy, per trial (stats.json) and pooled
// over a sampler's trials (summary.json, the second printed table). With
// N the number of spins (+-1 variables of the model's Ising form: for an
// RBM, visible and hidden units together) and M = sum_i s_i after a step:
//
//   - m = M / N, the magnetization per spin, and |m|;
//   - C = beta^2 Var(E) / N, the specific heat per spin;
//   - chi = beta N Var(x), the susceptibility per spin, where x is |m| when
//     every field h_i of the Ising form is zero (E(s) = E(-s), so <m> = 0 by
//     symmetry and Var(m) = <m^2> would only measure how often the chain
//     crosses between the two signs) and m otherwise.
//
// Var(X) is the mean of Y = (X - Xbar)^2 over the kept draws of all trials,
// Xbar their pooled mean. The standard error, bulk ESS and R-hat of C and
// chi are those of the mean of Y, computed by diag.Diagnose from the
// trials' Y series as the energy's are from theirs (the delta method: the
// error of Xbar adds only O(1/n)). Geyer's initial monotone sequence picks
// the summation window from the data, so no batch length has to be chosen
// against tau_int (batch means, a blocked jackknife), and the error has
// many more degrees of freedom than the spread of 2 to 10 per-trial
// estimates would give; trials that disagree raise the R-hat of Y as they
// do the energy's.

// TrialObservables is what the summary needs to know of a trial's model to
// compute the observables (N, beta, whether the fields vanish) and the
// trial's own estimates over its kept steps (stats.json "observables").
type TrialObservables struct {
	Spins     int     `json:"spins"`      // N
	Beta      float64 `json:"beta"`       // the target inverse temperature
	ZeroField bool    `json:"zero_field"` // every h_i is 0: chi is of |m|
	BurnIn    int     `json:"burn_in"`    // the estimates are over the steps after it
	// The trial's estimates over its kept steps (null: no kept steps).
	EnergyMean       float64 `json:"energy_mean"`
	Magnetization    float64 `json:"magnetization"`     // <m>
	AbsMagnetization float64 `json:"abs_magnetization"` // <|m|>
	SpecificHeat     float64 `json:"specific_heat"`     // beta^2 Var(E) / N
	Susceptibility   float64 `json:"susceptibility"`    // beta N Var(m or |m|)
	SusceptibilityOf string  `json:"susceptibility_of"` // "m" or "|m|"
}

// MarshalJSON writes NaN estimates as null (see marshalNotes).
func (o TrialObservables) MarshalJSON() ([]byte, error) {
	return marshalNotes(reflect.ValueOf(o), "trial observables")
}

// UnmarshalJSON reads null estimates as NaN.
func (o *TrialObservables) UnmarshalJSON(data []byte) error {
	type plain TrialObservables
	p := plain{}
	setNaN(reflect.ValueOf(&p).Elem())
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*o = TrialObservables(p)
	return nil
}

// susceptibilityOf names the quantity chi is the variance of.
func susceptibilityOf(zeroField bool) string {
	if zeroField {
		return "|m|"
	}
	return "m"
}

// ModelInfo is what the observables need of the model and run.
type ModelInfo struct {
	Spins     int     // N
	Beta      float64 // the target inverse temperature
	ZeroField bool    // every field of the Ising form is zero
}

// NewTrialObservables computes a finished trial's estimates over its steps
// after burn (NaN where it kept none or recorded no magnetization). It
// runs while the trial's model and chain are still held, so it reads the
// traces without copying them.
func NewTrialObservables(r *TrialRecord, mi ModelInfo, burn int) *TrialObservables {
	o := &TrialObservables{Spins: mi.Spins, Beta: mi.Beta, ZeroField: mi.ZeroField, BurnIn: burn,
		SusceptibilityOf: susceptibilityOf(mi.ZeroField)}
	if r.Moments != nil && r.every() > 1 { // thinned: the exact sums
		mr := []*TrialRecord{r}
		em := energyMoments(mr, burn)
		n := float64(mi.Spins)
		o.EnergyMean = draws.PooledMean(em)
		o.SpecificHeat = mi.Beta * mi.Beta / n * draws.PooledVariance(em)
		m, a, vm, va := draws.PooledInt(magMoments(mr, burn), n)
		o.Magnetization, o.AbsMagnetization, o.Susceptibility = m, a, mi.Beta*n*vm
		if mi.ZeroField {
			o.Susceptibility = mi.Beta * n * va
		}
		return o
	}
	e := r.Energies[r.burnDraws(burn):]
	o.EnergyMean = pooledMean([][]float64{e})
	o.SpecificHeat = mi.Beta * mi.Beta / float64(mi.Spins) * meanSquaredDeviation(len(e), func(t int) float64 { return e[t] })
	o.Magnetization, o.AbsMagnetization, o.Susceptibility = math.NaN(), math.NaN(), math.NaN()
	if len(r.Magnetization) == len(r.Energies) {
		mag := r.Magnetization[r.burnDraws(burn):]
		m := func(t int) float64 { return magnetization(mag[t], mi.Spins, false) }
		a := func(t int) float64 { return magnetization(mag[t], mi.Spins, true) }
		o.Magnetization, o.AbsMagnetization = meanOf(len(mag), m), meanOf(len(mag), a)
		x := m
		if mi.ZeroField {
			x = a
		}
		o.Susceptibility = mi.Beta * float64(mi.Spins) * meanSquaredDeviation(len(mag), x)
	}
	return o
}

// meanSquaredDeviation is the mean of (x_t - xbar)^2 over the n draws x(t),
// xbar their mean: the variance with denominator n (NaN for no draws),
// pooledMean(squaredDeviations(...)) bit for bit.
func meanSquaredDeviation(n int, x func(t int) float64) float64 {
	mu := meanOf(n, x)
	return meanOf(n, func(t int) float64 { return (x(t) - mu) * (x(t) - mu) })
}

// meanOf is pooledMean of the n draws x(t).
func meanOf(n int, x func(t int) float64) float64 {
	var s meanSum
	for t := range n {
		s.add(x(t))
	}
	return s.mean()
}

// squaredDeviations sets Y = (X - mu)^2 of every draw, mu the pooled
// mean, into dst (rows as long as kept's; it may be kept itself) and
// returns it.
func squaredDeviations(dst, kept [][]float64, mu float64) [][]float64 {
	for i, x := range kept {
		for t, v := range x {
			dst[i][t] = (v - mu) * (v - mu)
		}
	}
	return dst
}

// magnetization is m = M/N, or |m| if abs.
func magnetization(v int32, n int, abs bool) float64 {
	m := float64(v) / float64(n)
	if abs {
		m = math.Abs(m)
	}
	return m
}

// magnetizations sets m = M/N (|m| if abs) of each pooled draw past the
// burn-in (each trial's own in a --budget run, else burn) into dst, a row
// per trial as long as its pooled draws, and returns it.
func magnetizations(dst [][]float64, p pool, recs []*TrialRecord, n, burn int, abs bool) [][]float64 {
	for i, r := range recs {
		for t, v := range pooledOf(p, i, r, burn, r.Magnetization) {
			dst[i][t] = magnetization(v, n, abs)
		}
	}
	return dst
}

// Estimate is one observable pooled over a sampler's trials: its mean over
// the kept draws, the standard error, the pooled bulk ESS and the
// split-R-hat of the draws it averages (null with a note where they cannot
// be estimated).
type Estimate struct {
	Mean       float64 `json:"mean"`
	MeanNote   string  `json:"mean_note,omitempty"`
	Stderr     float64 `json:"stderr"`
	StderrNote string  `json:"stderr_note,omitempty"`
	ESS        float64 `json:"ess"`
	ESSNote    string  `json:"ess_note,omitempty"`
	Rhat       float64 `json:"rhat"`
	RhatNote   string  `json:"rhat_note,omitempty"`
	// TrialESS is the ESS that the spread of the trials' means implies,
	// with its 90% interval (diag.TrialSpread; 4 trials or more): where
	// its top is below ESS, the bulk ESS missed a slow tail.
	TrialESS *diag.Spread `json:"ess_from_trial_means,omitempty"`
}

// MarshalJSON writes NaN values as null with a note (see marshalNotes).
func (e Estimate) MarshalJSON() ([]byte, error) {
	return marshalNotes(reflect.ValueOf(e), "estimate")
}

// UnmarshalJSON reads null values as NaN.
func (e *Estimate) UnmarshalJSON(data []byte) error {
	type plain Estimate
	p := plain{}
	setNaN(reflect.ValueOf(&p).Elem())
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*e = Estimate(p)
	return nil
}

// meanEstimate is the mean of the kept draws with the energy's error: the
// pooled standard deviation over sqrt(bulk ESS) (diag.Diagnose).
func meanEstimate(kept [][]float64) Estimate {
	e := Estimate{Mean: pooledMean(kept)}
	n := 0
	for _, x := range kept {
		n += len(x)
	}
	switch {
	case n == 0:
		e.MeanNote = "no draws after burn-in"
	case !isFinite(e.Mean):
		e.MeanNote = "non-finite draws"
	}
	d := diag.DiagnoseBulk(kept) // the tail ESS is not reported
	e.ESS, e.ESSNote = d.BulkESS, d.BulkNote
	e.TrialESS = diag.TrialSpread(kept)
	e.Rhat, e.RhatNote = d.Rhat, d.RhatNote
	e.Stderr, e.StderrNote = stderrOf(kept, e.ESS, e.ESSNote)
	return e
}

// stderrOf is the standard error of the mean of the kept draws, their
// pooled standard deviation over sqrt(ess), with a note where it is not
// finite.
func stderrOf(kept [][]float64, ess float64, essNote string) (float64, string) {
	se := pooledSD(kept) / math.Sqrt(ess)
	switch {
	case isFinite(se):
		return se, ""
	case !isFinite(ess):
		return se, "no ESS: " + essNote
	}
	return se, "fewer than 2 draws"
}

// varianceEstimate is scale * Var(X) over the kept draws, its error, ESS
// and R-hat those of the mean of Y = (X - Xbar)^2 (see the comment at the
// top of this file), Y computed into dst (which may be kept). With exact
// (not nil: the trials were thinned) Xbar and Var(X) are exact's, the
// mean and variance over every step.
func varianceEstimate(dst, kept [][]float64, scale float64, exact *[2]float64) Estimate {
	mu := 0.0
	if exact != nil {
		mu = exact[0]
	} else {
		mu = pooledMean(kept)
	}
	e := meanEstimate(squaredDeviations(dst, kept, mu))
	if exact != nil && isFinite(e.Mean) {
		e.Mean = exact[1]
	}
	if scale == 0 && isFinite(e.Mean) {
		e.Stderr, e.StderrNote = 0, ""
	}
	e.Mean *= scale
	e.Stderr *= scale
	return e
}

// Observables is a sampler's observables besides the energy in
// summary.json (see the comment at the top of this file).
type Observables struct {
	Spins int `json:"spins"` // N: m = (1/N) sum_i s_i
	// SusceptibilityOf is the quantity chi is the variance of: "|m|" for a
	// model without fields, "m" otherwise.
	SusceptibilityOf string   `json:"susceptibility_of"`
	Magnetization    Estimate `json:"magnetization"`     // m
	AbsMagnetization Estimate `json:"abs_magnetization"` // |m|
	SpecificHeat     Estimate `json:"specific_heat"`     // beta^2 Var(E) / N
	Susceptibility   Estimate `json:"susceptibility"`    // beta N Var(m or |m|)
}

// observables sets res.Observables from the trials' magnetization traces
// and kept energies, or says in res.ObservablesNote why it cannot.
func (res *Result) observables(recs []*TrialRecord, p pool, kept [][]float64) {
	if len(recs) == 0 {
		res.ObservablesNote = "no trials"
		return
	}
	var old []int
	for _, r := range recs {
		if r.Observables == nil || len(r.Magnetization) != len(r.Energies) {
			old = append(old, r.Trial)
		}
	}
	if len(old) > 0 {
		res.ObservablesNote = fmt.Sprintf("trial(s) %s recorded no magnetization (folders written before sardonics recorded it: no magnetization.csv or no \"observables\" in stats.json); run them again for the observables", joinInts(old))
		return
	}
	mi := recs[0].Observables
	for _, r := range recs[1:] {
		o := r.Observables
		if o.Spins != mi.Spins || o.Beta != mi.Beta || o.ZeroField != mi.ZeroField {
			res.ObservablesNote = fmt.Sprintf("trials %d and %d disagree on the model (spins %d and %d, beta %g and %g, zero field %v and %v)",
				recs[0].Trial, r.Trial, mi.Spins, o.Spins, mi.Beta, o.Beta, mi.ZeroField, o.ZeroField)
			return
		}
	}
	n := float64(mi.Spins)
	o := &Observables{Spins: mi.Spins, SusceptibilityOf: susceptibilityOf(mi.ZeroField)}
	// One array of the kept draws serves each series in turn (Y of the
	// energy, m, |m| and then Y of one of them in place): the summary's
	// memory is bounded per kept draw (cli's summaryBytes), and its rows
	// back to back let diag use it without a copy.
	// Thinned trials: the means and variances over every step.
	var eExact, mExact, aExact *[2]float64
	if p.thinned {
		em := energyMoments(recs, res.BurnIn)
		m, a, vm, va := draws.PooledInt(magMoments(recs, res.BurnIn), n)
		eExact = &[2]float64{draws.PooledMean(em), draws.PooledVariance(em)}
		mExact, aExact = &[2]float64{m, vm}, &[2]float64{a, va}
	}
	x := rows(kept)
	o.SpecificHeat = varianceEstimate(x, kept, mi.Beta*mi.Beta/n, eExact)
	for _, abs := range []bool{false, true} {
		magnetizations(x, p, recs, mi.Spins, res.BurnIn, abs)
		exact := mExact
		if abs {
			exact = aExact
		}
		e := meanEstimate(x)
		if exact != nil && isFinite(e.Mean) {
			e.Mean = exact[0]
		}
		if abs {
			o.AbsMagnetization = e
		} else {
			o.Magnetization = e
		}
		if abs == mi.ZeroField {
			o.Susceptibility = varianceEstimate(x, x, mi.Beta*n, exact)
		}
	}
	res.Observables = o
}

// ObservablesTable renders the observables of results as a second table
// of one row per sampler and observable, with a legend of what they are;
// a result without them has one row saying why.
func ObservablesTable(results []*Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %-10s %12s %10s %10s %7s\n", "sampler", "observable", "mean", "stderr", "ESS bulk", "R-hat")
	var n int
	of := ""
	for _, r := range results {
		o := r.Observables
		if o == nil {
			fmt.Fprintf(&b, "%-11s n/a: %s\n", r.Sampler, r.ObservablesNote)
			continue
		}
		n, of = o.Spins, o.SusceptibilityOf
		for _, row := range []struct {
			name string
			e    Estimate
		}{{"m", o.Magnetization}, {"|m|", o.AbsMagnetization}, {"C", o.SpecificHeat}, {"chi", o.Susceptibility}} {
			rh := num("%.3f", row.e.Rhat)
			fmt.Fprintf(&b, "%-11s %-10s %12s %10s %10s %7s\n", r.Sampler, row.name, num("%.5g", row.e.Mean), num("%.3g", row.e.Stderr), num("%.4g", row.e.ESS), rh)
		}
	}
	if of != "" {
		why := "the model has fields"
		if of == "|m|" {
			why = "no fields, so <m> = 0 by symmetry"
		}
		fmt.Fprintf(&b, "m = (1/N) sum_i s_i over the N = %d spins (an RBM's visible and hidden units as +-1); C = beta^2 Var(E)/N; chi = beta N Var(%s) (%s)\n", n, of, why)
	}
	for _, r := range results {
		switch {
		case r.Marginals != nil && r.Marginals.Pooled != nil:
			p := r.Marginals.Pooled
			fmt.Fprintf(&b, "%-11s marginals: <s_i> of %d spins in %s, <s_i s_j> of %d pairs in %s (batch means, %d batches)\n",
				r.Sampler, p.Spins, r.Marginals.SpinsFile, p.PairCount, r.Marginals.PairsFile, r.Marginals.Batches)
		case r.MarginalsNote != "":
			fmt.Fprintf(&b, "%-11s marginals: n/a: %s\n", r.Sampler, r.MarginalsNote)
		}
	}
	return b.String()
}
