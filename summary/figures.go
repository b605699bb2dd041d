// A run's figures: acf.png, trace.png, the replicas' (replica.go) and rewards.png.

package summary

import (
	"fmt"
	"path/filepath"

	"sardonics/report"
)

// DrawFigures draws acf.png, trace.png and, after tuning, rewards.png and
// tuning.csv from a run's results and trial records.
func DrawFigures(dir string, meta Meta, results []*Result, recs map[string][]*TrialRecord) error {
	title := fmt.Sprintf("%s, beta = %.4g", meta.Spec, meta.Beta)
	var traces []report.Series
	acfs, xlabel := acfSeries(results)
	for _, r := range results {
		if rs := recs[r.Sampler]; len(rs) > 0 {
			var x, y []float64
			// The kept steps only, as the paper's figures: the burn-in
			// transient would flatten the stationary fluctuations.
			r0 := rs[0]
			for i := min(r0.burnDraws(meta.BurnIn), len(r0.Energies)-1); i >= 0 && i < len(r0.Energies); i += 5 {
				x = append(x, float64(r0.stepOf(i)))
				y = append(y, r0.Energies[i])
			}
			traces = append(traces, report.Series{Name: fmt.Sprintf("%s (trial %d)", r.Sampler, rs[0].Trial), X: x, Y: y})
		}
	}
	if err := report.PlotACF(filepath.Join(dir, "acf.png"), "Energy autocorrelation: "+title, xlabel, acfs); err != nil {
		return err
	}
	if err := report.PlotTraces(filepath.Join(dir, "trace.png"), fmt.Sprintf("Energy traces after burn-in (every 5th step): %s", title), traces); err != nil {
		return err
	}
	if err := drawReplicaFigures(dir, title, meta.BurnIn, results, recs); err != nil {
		return err
	}
	for _, rs := range recs {
		for _, r := range rs {
			if r.Tune != nil && len(r.Tune.Rewards) > 0 {
				if err := report.PlotRewards(filepath.Join(dir, "rewards.png"), fmt.Sprintf("Tuning rewards (trial %d): %s", r.Trial, title), r.Tune.Rewards); err != nil {
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

// acfSeries is each sampler's ACF against its lag in CPU milliseconds (a
// step's CPU time: the trials' CPU over their steps), so that samplers
// whose steps cost differently compare, the step's cost in the legend; in
// steps when a sampler has no CPU time recorded.
func acfSeries(results []*Result) ([]report.Series, string) {
	perStep := make([]float64, len(results))
	for i, r := range results {
		if n := float64(r.TotalSteps); r.CPUSeconds > 0 && n > 0 {
			perStep[i] = 1e3 * r.CPUSeconds / n
		} else {
			perStep = nil
			break
		}
	}
	var out []report.Series
	for i, r := range results {
		s := report.Series{Name: r.Sampler, Y: r.ACF}
		if perStep != nil {
			s.X = make([]float64, len(r.ACF))
			for k := range s.X {
				s.X[k] = float64(k) * perStep[i]
			}
			s.Name = fmt.Sprintf("%s (a step: %.3g ms)", r.Sampler, perStep[i])
		}
		out = append(out, s)
	}
	if perStep == nil {
		return out, "lag (steps)"
	}
	return out, "lag (CPU milliseconds of one trial)"
}
