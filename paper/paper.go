package paper

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	_ "sardonics/data" // the paper-rbm model
	"sardonics/model"
	"sardonics/runner"
	"sardonics/saw"
	"sardonics/topology"
	"sardonics/tune"
)

// Experiment is one row of SPEC section 6.
type Experiment struct {
	Name     string
	Spec     string
	Beta     float64
	Samplers []string
	Title    string
	// PaperTimes are the paper's Table II times for 10^5 samples.
	PaperTimes map[string]string
}

var sparseTimes = map[string]string{"sardonics": "20 minutes", "sw": "50 minutes", "gibbs": "tens of seconds"}

// Experiments lists the paper's experiments in order.
var Experiments = []Experiment{
	{"ferro-T1", "ferro2d:L=60", 1, []string{"sardonics", "gibbs", "sw"}, "2D ferromagnet 60x60, T = 1", sparseTimes},
	{"ferro-T2.27", "ferro2d:L=60", 1 / 2.27, []string{"sardonics", "gibbs", "sw"}, "2D ferromagnet 60x60, T = 2.27", sparseTimes},
	{"ferro-T5", "ferro2d:L=60", 1 / 5.0, []string{"sardonics", "gibbs", "sw"}, "2D ferromagnet 60x60, T = 5", sparseTimes},
	{"frustrated2d", "frustrated2d:L=60,seed=1", 1, []string{"sardonics", "gibbs", "sw"}, "frustrated 2D 60x60, T = 1", sparseTimes},
	{"spinglass3d", "spinglass3d:L=9,seed=1", 1, []string{"sardonics", "gibbs", "sw"}, "3D spin glass 9^3, beta = 1",
		map[string]string{"sardonics": "10 minutes", "sw": "a few minutes", "gibbs": "tens of seconds"}},
	{"rbm", "paper-rbm", 1, []string{"sardonics", "gibbs", "sw", "blockgibbs"}, "RBM 784x500, beta = 1",
		map[string]string{"sardonics": "10 hours", "sw": "a few hours", "gibbs": "20 minutes", "blockgibbs": "a few minutes"}},
	{"chimera", "chimera:M=4,N=4,T=4,seed=1", 1, []string{"sardonics", "gibbs", "sw"}, "chimera C(4,4,4), T = 1",
		map[string]string{"sardonics": "a few minutes", "sw": "tens of seconds", "gibbs": "tens of seconds"}},
}

// Config is a paper run.
type Config struct {
	Out        string
	Scale      float64 // fraction of the paper's 10^5 steps (1 = full)
	Only       string  // run one experiment
	Trials     int     // default 10
	Seed       uint64
	Threads    int
	Progress   io.Writer
	TablesOnly bool // rebuild table.md and claims.md from existing summaries
}

// Run runs the experiments and writes every output under cfg.Out.
func Run(cfg Config, log io.Writer) error {
	if cfg.Scale <= 0 {
		cfg.Scale = 1
	}
	if cfg.Trials <= 0 {
		cfg.Trials = 10
	}
	steps := max(10, int(math.Round(1e5*cfg.Scale)))
	burn := int(math.Round(2e4 * cfg.Scale))
	iters := max(2, burn/100)
	var done []*Outcome
	for _, ex := range Experiments {
		if cfg.Only != "" && ex.Name != cfg.Only {
			continue
		}
		dir := filepath.Join(cfg.Out, ex.Name)
		if cfg.TablesOnly {
			o, err := readOutcome(ex, dir)
			if err != nil {
				return err
			}
			done = append(done, o)
			continue
		}
		m, err := model.Load(ex.Spec)
		if err != nil {
			return err
		}
		tc := tune.Config{Iterations: iters, IterSteps: 100}
		rc := &runner.Config{Model: m, Beta: ex.Beta, Samplers: ex.Samplers, Steps: steps, Burn: burn,
			Trials: cfg.Trials, Seed: cfg.Seed, Threads: cfg.Threads, Progress: cfg.Progress,
			SAW:  runner.SAWConfig{Thetas: []saw.Theta{saw.DefaultTheta}},
			Tune: tune.Tuner(tc)}
		if tc.Steps() > steps {
			rc.Tune = nil
		}
		fmt.Fprintf(log, "== %s: %s, %s; %d trials x %d steps (burn-in %d, tuning %d iterations x 100)\n",
			ex.Name, ex.Title, m.Describe(), cfg.Trials, steps, burn, iters)
		start := time.Now()
		recs, wall, err := runner.Run(rc)
		if err != nil {
			return fmt.Errorf("%s: %w", ex.Name, err)
		}
		var results []*runner.Result
		for _, name := range rc.Samplers {
			for _, r := range recs[name] {
				if err := runner.WriteTrial(dir, r); err != nil {
					return err
				}
			}
			results = append(results, runner.Summarize(name, recs[name], steps, burn, wall[name]))
		}
		meta := runner.Meta{Spec: ex.Spec, Variables: m.Variables(), Interactions: m.Interactions(), Beta: ex.Beta,
			Seed: cfg.Seed, Steps: steps, BurnIn: burn, Settings: fmt.Sprintf("paper experiment %s, scale %g", ex.Name, cfg.Scale)}
		if _, err := runner.WriteSummary(dir, meta, topology.Describe(), results, recs); err != nil {
			return err
		}
		fmt.Fprint(log, runner.Table(results))
		fmt.Fprintf(log, "%s took %s\n", ex.Name, time.Since(start).Round(time.Second))
		done = append(done, &Outcome{Experiment: ex, Results: results, Steps: steps})
	}
	if len(done) == 0 {
		return fmt.Errorf("no experiment named %q (expected one of %s)", cfg.Only, names())
	}
	if err := runner.WriteFileAtomic(filepath.Join(cfg.Out, "table.md"), []byte(Table(done, cfg))); err != nil {
		return err
	}
	return runner.WriteFileAtomic(filepath.Join(cfg.Out, "claims.md"), []byte(Claims(done)))
}

func names() string {
	var n []string
	for _, e := range Experiments {
		n = append(n, e.Name)
	}
	return strings.Join(n, ", ")
}
