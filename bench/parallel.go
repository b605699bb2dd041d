package bench

import (
	"fmt"

	"sardonics/model"
	"sardonics/parallelsaw"
	"sardonics/saw"
	"sardonics/sawsampler"
)

// parallelSpecs are the models on which the parallel group measures the
// wall speedup of P = 2 sections over the serial engine: issue 26's small
// and large RBMs and one between, on both sides of parallelsaw's
// crossover, and the largest SK glass (the dense engine's partitioned
// form against denseising's).
var parallelSpecs = []string{
	"rbm-random:V=784,H=500,seed=1,scale=0.1",
	"rbm-random:V=2048,H=2048,seed=1,scale=0.03",
	"rbm-random:V=4096,H=4096,seed=1,scale=0.02",
	"sk:N=8192,seed=1",
}

// parallelGroup measures, on each of parallelSpecs, the median over
// speedupRounds interleaved rounds of the serial engine's wall time per
// flip over that of P = 2 sections (beta 1, the default theta), and
// checks the cost model of --engine auto (parallelsaw.Pays, PaysDense)
// against it: the note says whether the rule picks the faster engine.
func parallelGroup(rep *Report, cfg Config, get func(string) (*model.Model, error), cpus []int) error {
	if len(cpus) < 2 {
		if cfg.Out != nil {
			fmt.Fprintln(cfg.Out, "parallel group: n/a (one usable CPU)")
		}
		return nil
	}
	for _, spec := range parallelSpecs {
		m, err := get(spec)
		if err != nil {
			return err
		}
		sc := sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: "parallel", EngineThreads: 2, CPUs: cpus}
		ratio, err := speedup(cfg.ctx(), m, 1, sc, cfg.Budget.Seconds())
		if err != nil {
			return err
		}
		pays := sawsampler.ParallelFor(m, "auto", 2)
		units, cross := float64(m.Variables()), parallelsaw.MinDenseSpins
		if r := m.RBM; r != nil {
			units, cross = parallelsaw.FlipUnits(r.V, r.H), parallelsaw.MinFlipUnits
		}
		verdict := "agrees"
		if pays != (ratio > 1) {
			verdict = "DISAGREES"
		}
		pick := "dense"
		if pays {
			pick = "parallel"
		}
		rep.add(Line{Name: "parallel P=2 wall speedup", Model: spec, Beta: 1, Value: ratio, Unit: "x", Steps: speedupRounds,
			Note: fmt.Sprintf("over the serial dense engine, median of %d interleaved rounds; %.0f units per flip, auto picks %s (crossover %d): %s",
				speedupRounds, units, pick, cross, verdict)}, cfg)
	}
	return nil
}
