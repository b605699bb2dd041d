package bench

import (
	"context"
	"fmt"
	"strings"

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
		if err := serialShare(rep, cfg, spec, m, sc); err != nil {
			return err
		}
	}
	return nil
}

// profiled is an engine that keeps a parallelsaw.Profile.
type profiled interface {
	EnableProfile()
	Profile() parallelsaw.Profile
}

// serialShare runs the P = 2 engine on m for the budget with its profile
// on (issue 33, item 1) and reports the serial fraction of a flip (the
// coordinator's time between commands over that plus the sections'
// kernels), where each microsecond of a flip went, and the speedup over
// one thread that Amdahl's law with the measured wait per command
// predicts at P = 2..64.
func serialShare(rep *Report, cfg Config, spec string, m *model.Model, sc sawsampler.Config) error {
	p, flips, err := profileRun(cfg.ctx(), m, sc, cfg.Budget.Seconds())
	if err != nil {
		return err
	}
	wait := int64(0)
	if p.Commands > 0 {
		wait = p.WaitNs() / int64(p.Commands)
	}
	var proj []string
	for _, P := range []int{2, 4, 8, 16, 32, 64} {
		proj = append(proj, fmt.Sprintf("P=%d %.2fx", P, p.Projected(P, wait)))
	}
	rep.add(Line{Name: "parallel serial share", Model: spec, Beta: 1, Value: p.SerialFraction(), Unit: "of a flip", Steps: int64(flips),
		Note: fmt.Sprintf("P=2 profile, %s; predicted with %d ns of waiting per command: %s",
			p.String(float64(flips), "flip"), wait, strings.Join(proj, ", "))}, cfg)
	return nil
}

// profileRun steps a chain of sc's engine on m (beta 1) for budget
// seconds of the coordinator's CPU after a warm-up of a tenth of it, with
// the engine's profile on, and returns the profile and the flips.
func profileRun(ctx context.Context, m *model.Model, sc sawsampler.Config, budget float64) (parallelsaw.Profile, int64, error) {
	ch, done, err := warmChain(ctx, "sardonics", m, 1, sc, budget)
	if err != nil {
		return parallelsaw.Profile{}, 0, err
	}
	defer done()
	var eng profiled
	if c, ok := ch.(saw.EngineOwner); ok {
		eng, _ = c.Engine().(profiled)
	}
	if eng == nil {
		return parallelsaw.Profile{}, 0, fmt.Errorf("engine %q keeps no profile", sc.Engine)
	}
	eng.EnableProfile()
	_, _, _, flips, err := runFor(ctx, ch, budget)
	return eng.Profile(), flips, err
}
