// Statistics of a sampler's trials: the phases of Summarize and their pooled helpers.

package summary

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"sardonics/diag"
	"sardonics/draws"
	"sardonics/internal/fsum"
)

// MaxACFLag is the last lag (in pooled draws) of the ACF in summaries and
// plots, unless a trial's tau_int exceeds MaxACFLag/acfLagsPerTau draws:
// the ACF then goes on until it is about 0 (acfLags).
const MaxACFLag = 500

// acfLagsPerTau is the tau_int (of the slowest trial) that the ACF spans
// beyond MaxACFLag: about where Sokal's window stops (diag.SokalC), where
// an exponential ACF, whose tau_int is twice its decay time, is e^-10.
const acfLagsPerTau = diag.SokalC

// minTauDraws is the fewest kept draws of a trial for a tau_int: as many as
// the pooled diagnostics need (two split chains of diag.MinSplitDraws).
const minTauDraws = 2 * diag.MinSplitDraws

// energy sets the mean energy, the pooled diagnostics (bulk and tail ESS,
// split-R-hat), the standard error and the spread between the trials'
// means, from the kept draws of each trial.
func (res *Result) energy(recs []*TrialRecord, p pool, kept [][]float64) {
	var means []float64
	var ms []*draws.Moments
	if p.thinned {
		ms = energyMoments(recs, res.BurnIn)
	}
	for i, x := range kept {
		switch {
		case len(x) == 0:
		case p.thinned:
			means = append(means, draws.PooledMean(ms[i:i+1]))
		default:
			means = append(means, pooledMean([][]float64{x}))
		}
	}
	res.EnergyMean = pooledMean(kept)
	if p.thinned {
		res.EnergyMean = draws.PooledMean(ms)
	}
	switch {
	case len(means) == 0:
		res.EnergyMeanNote = fmt.Sprintf("no draws after burn-in (%d steps, burn-in %d)", res.Steps, res.BurnIn)
		if res.Budget != nil {
			res.EnergyMeanNote = fmt.Sprintf("no draws after burn-in (trials of %v steps, burn-in %v)", res.Budget.TrialSteps, res.Budget.TrialBurnIn)
		}
	case !isFinite(res.EnergyMean):
		res.EnergyMeanNote = "non-finite energies"
	}
	d := diag.Diagnose(kept)
	res.ESS, res.ESSNote = d.BulkESS, d.BulkNote
	res.TrialESS = diag.TrialSpread(kept)
	res.ESSTail, res.ESSTailNote = d.TailESS, d.TailNote
	if isFinite(d.Rhat) {
		rh := d.Rhat
		res.Rhat = &rh
	} else {
		res.RhatNote = d.RhatNote
	}
	res.EnergyStderr, res.EnergyStderrNote = stderrOf(kept, res.ESS, res.ESSNote)
	res.BetweenTrialSD = math.NaN()
	switch len(means) {
	case 0:
		res.BetweenTrialSDNote = "no draws after burn-in"
	case 1:
		res.BetweenTrialSDNote = "one trial with draws: no spread between trials"
	default:
		res.BetweenTrialSD = math.Sqrt(diag.SampleVariance(means))
	}
}

// trend sets each trial's drift, res.Trend.
func (res *Result) trend(kept [][]float64) {
	res.Trend = make([]*float64, len(kept))
	for i, x := range kept {
		if z := diag.TrendZ(x); isFinite(z) {
			res.Trend[i] = &z
		}
	}
}

// drifting says whether every trial of r drifts the same way by more than
// maxTrendZ standard errors, and which way.
func drifting(r *Result) (bool, string) {
	up, down := 0, 0
	for _, z := range r.Trend {
		switch {
		case z == nil:
		case *z > maxTrendZ:
			up++
		case *z < -maxTrendZ:
			down++
		}
	}
	switch n := len(r.Trend); {
	case n > 0 && down == n:
		return true, "falling"
	case n > 0 && up == n:
		return true, "rising"
	}
	return false, ""
}

// maxTrendZ is the drift, in standard errors, beyond which a trial is
// still relaxing: a stationary chain exceeds 6 with probability about
// 2e-9 (in every trial at once, far less).
const maxTrendZ = 6

// autocorrelation sets tau_int and the plotted ACF, each averaged over
// the trials that have one, and says why the others have none. The ACF
// has lags 0..MaxACFLag (a trial of fewer draws adds to its first lags
// only) and, for a slow sampler, the lags on to acfLags, from a second
// transform of each trial (an ACF of MaxACFLag lags, as summaries before
// had, is bit for bit its first lags).
func (res *Result) autocorrelation(recs []*TrialRecord, kept [][]float64) {
	acfSum := []float64{}
	var taus []float64
	var used [][]float64 // the kept draws of the trials with a tau_int
	// Trials without a tau_int: too few draws, constant, Sokal's window not
	// reached, tau not positive.
	var few, flat, short, bad []int
	for i, x := range kept {
		tr := recs[i].Trial
		if len(x) < minTauDraws {
			few = append(few, tr)
			continue
		}
		if slices.Min(x) == slices.Max(x) {
			flat = append(flat, tr)
			continue
		}
		tau, w, rho := diag.TauACF(x, MaxACFLag) // one transform for tau and the plotted ACF
		if 10*w > len(x) {
			// Sokal's relative error of tau, sqrt(2(2W+1)/n), exceeds
			// 60%: tau(W) of such a trace says little (a ramp of 30
			// draws gives 3.9). tau(n-1) is about 0 for any series.
			short = append(short, tr)
			continue
		}
		if !isFinite(tau) || tau <= 0 {
			bad = append(bad, tr)
			continue
		}
		taus = append(taus, tau)
		used = append(used, x)
		if len(acfSum) < len(rho) {
			acfSum = append(acfSum, make([]float64, len(rho)-len(acfSum))...)
		}
		for i, v := range rho {
			acfSum[i] += v
		}
	}
	res.TauInt = math.NaN()
	if len(taus) > 0 {
		res.TauInt = 0
		for _, v := range taus {
			res.TauInt += v / float64(len(taus))
		}
		if lags := acfLags(taus, used); lags > MaxACFLag && len(acfSum) == MaxACFLag+1 {
			acfSum = append(acfSum, make([]float64, lags-MaxACFLag)...)
			for _, x := range used {
				_, _, rho := diag.TauACF(x, lags)
				for i := MaxACFLag + 1; i <= lags; i++ {
					acfSum[i] += rho[i]
				}
			}
		}
		for i := range acfSum {
			acfSum[i] /= float64(len(taus))
		}
	}
	var why []string
	if len(flat) > 0 {
		why = append(why, fmt.Sprintf("constant energy after burn-in in trial(s) %s", joinInts(flat)))
	}
	if len(short) > 0 {
		why = append(why, fmt.Sprintf("trace shorter than 10 Sokal windows (%d tau_int) in trial(s) %s", 10*diag.SokalC, joinInts(short)))
	}
	if len(bad) > 0 {
		why = append(why, fmt.Sprintf("no positive tau_int in trial(s) %s", joinInts(bad)))
	}
	if len(few) > 0 {
		why = append(why, fmt.Sprintf("fewer than %d draws after burn-in in trial(s) %s", minTauDraws, joinInts(few)))
	}
	switch {
	case len(taus) == 0 && len(why) == 0:
		why = append(why, "no trials")
	case len(taus) > 0 && len(why) > 0:
		why = append(why, fmt.Sprintf("mean of the other %d trial(s)", len(taus)))
	}
	res.TauIntNote = strings.Join(why, "; ")
	res.ACF = acfSum
}

// acfLags is the last lag of the ACF of trials with tau_int taus (in
// pooled draws) and kept draws x: acfLagsPerTau times the largest tau, so
// that the curve reaches about 0, at least MaxACFLag, and at most a tenth
// of the fewest draws if that is more than MaxACFLag (each trial's tau_int
// has Sokal's window within it, so the cap binds only where trials'
// lengths differ), so that every trial adds to every lag beyond
// MaxACFLag.
func acfLags(taus []float64, x [][]float64) int {
	lags := MaxACFLag
	if len(taus) == 0 {
		return lags
	}
	fewest := len(x[0])
	for _, v := range x {
		fewest = min(fewest, len(v))
	}
	want := math.Ceil(acfLagsPerTau * slices.Max(taus))
	return max(lags, int(math.Min(want, float64(fewest/10))))
}

// work sets what the trials cost and did: CPU and wall time (wall: the
// sampler's wall time in this process, 0 to sum the trials'), ESS per
// CPU-second, acceptance, flips, the settings and the best tuning reward.
func (res *Result) work(recs []*TrialRecord, wall float64) {
	var cpu, twall, wait float64
	var flips, prop, acc int64
	flipsOK := true
	for _, r := range recs {
		cpu += r.CPUSeconds
		wait += r.WaitCPUSeconds
		twall += r.WallSeconds
		flipsOK = flipsOK && r.Flips >= 0
		flips += r.Flips
		prop += r.Proposed
		acc += r.Accepted
		if r.Tune != nil && len(r.Tune.Rewards) > 0 {
			b := slices.Max(r.Tune.Rewards)
			if res.BestTuningReward == nil || b > *res.BestTuningReward {
				res.BestTuningReward = &b
			}
		}
	}
	res.CPUSeconds = cpu
	res.WaitCPUSeconds = wait
	res.WallSeconds = wall
	if wall == 0 {
		res.WallSeconds = twall
	}
	res.ESSPerCPUSecond = math.NaN()
	switch {
	case !isFinite(res.ESS):
		res.ESSPerCPUSecondNote = "no ESS: " + res.ESSNote
	case !(cpu > 0):
		res.ESSPerCPUSecondNote = "no CPU time recorded"
	default:
		res.ESSPerCPUSecond = res.ESS / cpu
	}
	if prop > 0 {
		a := float64(acc) / float64(prop)
		res.AcceptanceRate = &a
	}
	res.sweeps(recs, flipsOK, flips)
	if flipsOK && len(recs) > 0 {
		res.Flips = &flips
		fps := float64(flips) / float64(res.TotalSteps)
		res.FlipsPerStep = &fps
		switch {
		case flips == 0:
			res.NsPerFlipNote = "no flips"
		case !(cpu > 0):
			res.NsPerFlipNote = "no CPU time recorded"
		default:
			ns := cpu * 1e9 / float64(flips)
			res.NsPerFlip = &ns
		}
	}
	if len(recs) > 0 && recs[0].Params != "" {
		p := recs[0].Params
		res.Params = &p
	}
}

// sweeps sets res.Sweeps, the work of the trials recs in sweep-equivalents
// (see Result.Sweeps); flips is their flips, when every trial counts them
// (flipsOK).
func (res *Result) sweeps(recs []*TrialRecord, flipsOK bool, flips int64) {
	res.Sweeps = math.NaN()
	if len(recs) == 0 {
		res.SweepsNote = "no trials"
		return
	}
	n := 0
	for _, r := range recs {
		if r.Observables == nil || n != 0 && r.Observables.Spins != n {
			res.SweepsNote = "the trials do not record their model's number of spins (folders written before sardonics recorded it)"
			return
		}
		n = r.Observables.Spins
	}
	if flipsOK {
		res.Sweeps = float64(flips) / float64(n)
		return
	}
	// Each step resamples every spin of every chain.
	chains := 0.0
	for _, r := range recs {
		c := 1
		if r.Replica != nil {
			c = len(r.Replica.Ladder) * max(1, r.Replica.Sets)
		}
		chains += float64(c) * float64(r.StepsMade())
	}
	res.Sweeps = chains
	res.SweepsNote = "no flips counted: each step resamples every spin, so a step of every chain (every replica) is one sweep"
}

// pooledSD is the standard deviation (denominator N-1) of all kept rows
// about their pooled mean; NaN for fewer than 2 rows.
func pooledSD(kept [][]float64) float64 {
	mu := pooledMean(kept)
	ss, n := 0.0, 0
	for _, x := range kept {
		for _, v := range x {
			ss += (v - mu) * (v - mu)
			n++
		}
	}
	if n < 2 {
		return math.NaN()
	}
	return math.Sqrt(ss / float64(n-1))
}

// pooledMean is the mean of all kept rows, summed in a fixed order.
func pooledMean(kept [][]float64) float64 {
	var s meanSum
	for _, x := range kept {
		for _, v := range x {
			s.add(v)
		}
	}
	return s.mean()
}

// meanSum is a mean summed in a fixed order by Neumaier's summation, which
// keeps it exact to rounding.
type meanSum struct {
	s fsum.Neumaier
	n int
}

func (a *meanSum) add(v float64) { a.s.Add(v); a.n++ }

// mean is the mean of the values added, NaN for none.
func (a *meanSum) mean() float64 {
	if a.n == 0 {
		return math.NaN()
	}
	return a.s.Sum() / float64(a.n)
}

// rows is an array of rows as long as kept's, back to back in one
// allocation.
func rows(kept [][]float64) [][]float64 {
	n := 0
	for _, x := range kept {
		n += len(x)
	}
	all := make([]float64, n)
	out := make([][]float64, len(kept))
	for i, x := range kept {
		out[i], all = all[:len(x)], all[len(x):]
	}
	return out
}
