// The printed text: the results table, the --budget note and their formatting helpers.

package summary

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

func joinInts(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// Table renders results as a fixed-width text table; a value that cannot be
// estimated shows as n/a. The last columns are the work of all trials
// together: steps, flips per step and sweep-equivalents (Result.Sweeps),
// so that samplers given equal CPU (--budget) show what each did with it.
func Table(results []*Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %12s %10s %9s %10s %10s %7s %9s %11s %7s %10s %10s %10s\n", "sampler", "E mean", "stderr", "tau_int", "ESS bulk", "ESS tail", "R-hat", "cpu s", "ESS/cpu-s", "accept", "steps", "flips/step", "sweeps")
	for _, r := range results {
		rh, acc, fps := "n/a", "-", "-"
		if r.Rhat != nil {
			rh = fmt.Sprintf("%.3f", *r.Rhat)
		}
		if r.AcceptanceRate != nil {
			acc = fmt.Sprintf("%.3f", *r.AcceptanceRate)
		}
		if r.FlipsPerStep != nil {
			fps = fmt.Sprintf("%.1f", *r.FlipsPerStep)
		}
		fmt.Fprintf(&b, "%-11s %12s %10s %9s %10s %10s %7s %9.3g %11s %7s %10s %10s %10s\n", r.Sampler, meanText(r.EnergyMean, r.EnergyStderr), num("%.3g", r.EnergyStderr),
			num("%.3g", r.TauInt), num("%.4g", r.ESS), num("%.4g", r.ESSTail), rh, r.CPUSeconds, num("%.4g", r.ESSPerCPUSecond), acc, count(r.TotalSteps), fps, num("%.4g", r.Sweeps))
	}
	// Thinned samplers: where the ESS, R-hat and tau_int come from.
	for _, r := range results {
		t := r.Thinning
		if t == nil || t.Every <= 1 {
			continue
		}
		fmt.Fprintf(&b, "%s: means over every step; ESS, R-hat, tau_int and errors from %d kept draws, %d steps apart (ESS %s a kept draw)",
			r.Sampler, t.KeptDraws, t.Every, perDraw(t.ESSPerKeptDraw))
		if t.Note != "" {
			b.WriteString(": about tau_int or more apart, so the ESS is a lower bound and tau_int is not resolved (--trace-draws keeps more)")
		}
		b.WriteString("\n")
	}
	for _, r := range results {
		if r.EnergyLevelsNote != "" {
			fmt.Fprintf(&b, "%s: %s\n", r.Sampler, r.EnergyLevelsNote)
		}
		if l := r.Lowest; l != nil {
			fmt.Fprintf(&b, "%s: lowest energy %s, first at step %d of trial %d; reached by %d of %d trials\n",
				r.Sampler, strconv.FormatFloat(l.Energy, 'g', -1, 64), l.Step, l.Trial, l.Reached, l.Trials)
		}
	}
	return b.String()
}

func perDraw(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2g", *x)
}

// count is n in full below ten million, else to 3 significant digits.
func count(n int64) string {
	if n < 1e7 {
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprintf("%.3g", float64(n))
}

// num formats x, or "n/a" when it is NaN or infinite.
// meanText is the mean energy to the second significant digit of its
// standard error (so that at |E| ~ 1e12 a difference of units shows), or
// to 5 significant digits without one.
func meanText(mean, se float64) string {
	if !isFinite(mean) {
		return "n/a"
	}
	if !isFinite(se) || se <= 0 {
		return fmt.Sprintf("%.5g", mean)
	}
	dec := min(12, max(0, 1-int(math.Floor(math.Log10(se)))))
	return strconv.FormatFloat(mean, 'f', dec, 64)
}

func num(format string, x float64) string {
	if !isFinite(x) {
		return "n/a"
	}
	return fmt.Sprintf(format, x)
}

// SortedTrials returns records sorted by trial id.
func SortedTrials(rs []*TrialRecord) []*TrialRecord {
	out := append([]*TrialRecord(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Trial < out[j].Trial })
	return out
}

// BudgetNote is what sample and report print after the tables of a
// --budget run: each sampler's trials' steps, burn-in and CPU, and that
// the run repeats exactly only with --steps and --burn; "" for a run of
// --steps.
func BudgetNote(results []*Result) string {
	var b strings.Builder
	for _, r := range results {
		bs := r.Budget
		if bs == nil {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "\n--budget: %.4g s of thread CPU per trial, burn-in the steps of its first %g%%; per trial:\n", bs.CPUSecondsPerTrial, 100*bs.BurnFraction)
		}
		cpu := make([]string, len(bs.TrialCPUSeconds))
		for i, c := range bs.TrialCPUSeconds {
			cpu[i] = fmt.Sprintf("%.4g", c)
		}
		fmt.Fprintf(&b, "%-11s steps %s; burn-in %s; cpu s %s\n", r.Sampler, joinInts(bs.TrialSteps), joinInts(bs.TrialBurnIn), strings.Join(cpu, ", "))
		if len(bs.StepCapped) > 0 {
			fmt.Fprintf(&b, "%-11s trial(s) %s stopped at the step bound before their budget (see their stats.json)\n", r.Sampler, joinInts(bs.StepCapped))
		}
	}
	if b.Len() > 0 {
		b.WriteString("A --budget run is not repeatable bit for bit (a step's CPU differs between machines and runs); summary.json's budget.reproduce gives the --steps and --burn that repeat each sampler's chains exactly.\n")
	}
	return b.String()
}
