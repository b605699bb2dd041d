// A run's figures: acf.png, trace.png, the replicas' (replica.go) and rewards.png.

package summary

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sardonics/figure"
)

// DrawFigures draws acf.png, trace.png and, after tuning, rewards.png and
// tuning.csv from a run's results and trial records.
func DrawFigures(dir string, meta Meta, results []*Result, recs map[string][]*TrialRecord) error {
	title := fmt.Sprintf("%s, beta = %.4g", meta.Spec, meta.Beta)
	acfs, xlabel := acfSeries(results)
	if err := figure.PlotACF(filepath.Join(dir, "acf.png"), "Energy autocorrelation: "+title, xlabel, acfs); err != nil {
		return err
	}
	// The kept steps only, as the paper's figures: the burn-in transient
	// would flatten the stationary fluctuations.
	var traces []figure.Series
	var apart []int // the steps between each trace's points
	for _, r := range results {
		if rs := recs[r.Sampler]; len(rs) > 0 {
			x, y, every := tracePoints(rs[0], meta.BurnIn)
			traces = append(traces, figure.Series{Name: fmt.Sprintf("%s (trial %d", r.Sampler, rs[0].Trial), X: x, Y: y})
			apart = append(apart, every)
		}
	}
	// The points' spacing in the title where it is the same for all,
	// else in each panel's.
	what := "Energy traces after burn-in"
	same := len(apart) > 0 && slices.Min(apart) == slices.Max(apart)
	if same {
		what += fmt.Sprintf(" (every %s step)", ordinal(apart[0]))
	}
	for i := range traces {
		if !same {
			traces[i].Name += fmt.Sprintf(", every %s step", ordinal(apart[i]))
		}
		traces[i].Name += ")"
	}
	if err := figure.PlotTraces(filepath.Join(dir, "trace.png"), what+": "+title, traces); err != nil {
		return err
	}
	if err := drawReplicaFigures(dir, title, meta.BurnIn, results, recs); err != nil {
		return err
	}
	for _, rs := range recs {
		for _, r := range rs {
			if r.Tune != nil && len(r.Tune.Rewards) > 0 {
				if err := figure.PlotRewards(filepath.Join(dir, "rewards.png"), fmt.Sprintf("Tuning rewards (trial %d): %s", r.Trial, title), r.Tune.Rewards); err != nil {
					return err
				}
				if err := WriteTuningCSV(filepath.Join(dir, "tuning.csv"), rs); err != nil {
					return err
				}
				return nil
			}
		}
	}
	return nil
}

// traceStep is the fewest steps between the points of trace.png: a point
// every 5 steps where every step is kept, every kept draw where they are
// 5 or more steps apart. gonum draws no faster for fewer points (report
// bands long traces), but a trace of every step looks denser than the
// paper's.
const traceStep = 5

// tracePoints is r's energy trace after burn-in for trace.png, against
// the step of each point (not its index among the kept draws), and the
// steps between the points.
func tracePoints(r *TrialRecord, burn int) (x, y []float64, apart int) {
	stride := max(1, traceStep/r.every())
	// Without draws after burn-in, the last draw, as a point.
	for i := min(r.burnDraws(burn), len(r.Energies)-1); i >= 0 && i < len(r.Energies); i += stride {
		x = append(x, float64(r.stepOf(i)))
		y = append(y, r.Energies[i])
	}
	return x, y, stride * r.every()
}

// ordinal is n as "1st", "2nd", "3rd", "4th", ..., "11th", "21st".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// acfSeries is each sampler's ACF against its lag in CPU milliseconds (a
// step's CPU time: the trials' CPU over their steps; ACF's lags are
// ACFLagSteps steps apart), so that samplers whose steps cost differently
// compare, the step's cost in the legend; in steps when a sampler has no
// CPU time recorded.
func acfSeries(results []*Result) ([]figure.Series, string) {
	perStep := make([]float64, len(results))
	for i, r := range results {
		if n := float64(r.TotalSteps); r.CPUSeconds > 0 && n > 0 {
			perStep[i] = 1e3 * r.CPUSeconds / n
		} else {
			perStep = nil
			break
		}
	}
	var out []figure.Series
	for i, r := range results {
		lag := float64(max(1, r.ACFLagSteps)) // 0 in a summary.json before ACFLagSteps
		s := figure.Series{Name: r.Sampler, X: make([]float64, len(r.ACF)), Y: r.ACF}
		var about []string
		if perStep != nil {
			lag *= perStep[i]
			about = append(about, fmt.Sprintf("a step: %.3g ms", perStep[i]))
		}
		for k := range s.X {
			s.X[k] = float64(k) * lag
		}
		if r.ACFLagSteps > 1 {
			about = append(about, fmt.Sprintf("lags %d steps apart", r.ACFLagSteps))
		}
		if len(about) > 0 {
			s.Name += " (" + strings.Join(about, ", ") + ")"
		}
		out = append(out, s)
	}
	if perStep == nil {
		return out, "lag (steps)"
	}
	return out, "lag (CPU milliseconds of one trial)"
}
