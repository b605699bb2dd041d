package paper

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"sardonics/atomicfile"
	_ "sardonics/data" // the paper-rbm model
	"sardonics/figure"
	"sardonics/model"
	"sardonics/runner"
	"sardonics/sampler"
	_ "sardonics/samplers" // every sampler, registered
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
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

// CostTuned lists the experiments whose SARDONICS is tuned with the cost
// reward (tune.CostReward, `--reward cost`) instead of the paper's: on the
// RBM the paper's reward picks walks of about 380 flips per step, which at
// 10^5 steps and 10 trials alone would take about an hour of this 2-core
// machine (measured: 443 s of CPU for 2 trials of 3*10^4 steps); the cost
// reward picks about 47.
var CostTuned = map[string]bool{"rbm": true}

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
	// Stop, when raised (by a signal), makes the running experiment
	// checkpoint its trials and Run return runner.ErrInterrupted. A later
	// Run with the same Config into the same Out keeps the finished
	// experiments and trials and resumes the checkpointed ones, to the
	// result an uninterrupted run gives.
	Stop *atomic.Bool
}

// stateFile records a run's Config in Out, so that `paper --resume DIR`
// continues it with the same settings.
const stateFile = "paper.json"

// Saved is the part of a Config that defines a run's results.
type Saved struct {
	Scale  float64 `json:"scale"`
	Only   string  `json:"only,omitempty"`
	Trials int     `json:"trials"`
	Seed   uint64  `json:"seed"`
}

// ReadSaved reads the settings of the run in dir (see stateFile).
func ReadSaved(dir string) (Saved, error) {
	var sv Saved
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return sv, err
	}
	if err := json.Unmarshal(b, &sv); err != nil {
		return sv, fmt.Errorf("%s: %v", filepath.Join(dir, stateFile), err)
	}
	return sv, nil
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
	if !cfg.TablesOnly {
		sv := Saved{Scale: cfg.Scale, Only: cfg.Only, Trials: cfg.Trials, Seed: cfg.Seed}
		if old, err := ReadSaved(cfg.Out); err == nil && old != sv {
			abs, err := filepath.Abs(cfg.Out) // the hint works from any directory
			if err != nil {
				abs = cfg.Out
			}
			return &sampler.UsageError{Msg: fmt.Sprintf("%s holds a paper run with other settings (%+v, this run %+v); choose another --out, delete it, or continue it with --resume %s",
				cfg.Out, old, sv, abs)}
		}
		if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(sv, "", "  ")
		if err := atomicfile.WriteFileMkdir(filepath.Join(cfg.Out, stateFile), append(b, '\n')); err != nil {
			return err
		}
	}
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
			if err := redraw(dir, o); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(dir, "model.png")); HasPicture(ex) && err != nil {
				m, err := model.Load(ex.Spec)
				if err != nil {
					return err
				}
				if err := modelPicture(filepath.Join(dir, "model.png"), ex, m); err != nil {
					return err
				}
			}
			continue
		}
		m, err := model.Load(ex.Spec)
		if err != nil {
			return err
		}
		meta := summary.Meta{Spec: ex.Spec, Variables: m.Variables(), Interactions: m.Interactions(), Beta: ex.Beta,
			Seed: cfg.Seed, Steps: steps, BurnIn: burn, Settings: fmt.Sprintf("paper experiment %s, scale %g", ex.Name, cfg.Scale)}
		if o, ok := finished(ex, dir, meta, cfg.Trials); ok {
			fmt.Fprintf(log, "== %s: finished in an earlier run, kept\n", ex.Name)
			done = append(done, o)
			continue
		}
		tc := tune.Config{Iterations: iters, IterSteps: 100, CostAware: CostTuned[ex.Name]}
		rc := &runner.Config{Model: m, Beta: ex.Beta, Samplers: ex.Samplers, Steps: steps, Burn: burn,
			Trials: cfg.Trials, Seed: cfg.Seed, Threads: cfg.Threads, Progress: cfg.Progress,
			SAW:  sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}},
			Tune: tune.Tuner(tc),
			// Finished trials are written to dir at once and a stop
			// checkpoints the running ones there, keyed by meta.
			Dir: dir, Stop: cfg.Stop, Meta: meta}
		if tc.Steps() > steps {
			rc.Tune = nil
		}
		reward := "the paper's reward"
		if tc.CostAware {
			reward = "the cost reward"
		}
		fmt.Fprintf(log, "== %s: %s, %s; %d trials x %d steps (burn-in %d, tuning %d iterations x 100 with %s)\n",
			ex.Name, ex.Title, m.Describe(), cfg.Trials, steps, burn, iters, reward)
		start := time.Now()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		recs, wall, err := runner.Run(rc)
		if errors.Is(err, runner.ErrInterrupted) {
			return err
		}
		if err != nil {
			return fmt.Errorf("%s: %w", ex.Name, err)
		}
		var results []*summary.Result
		for _, name := range rc.Samplers {
			for _, r := range recs[name] {
				if err := summary.WriteTrial(dir, r); err != nil {
					return err
				}
			}
			results = append(results, summary.Summarize(name, recs[name], steps, burn, wall[name]))
		}
		os.RemoveAll(filepath.Join(dir, "checkpoint"))
		if _, err := summary.WriteSummary(dir, meta, topology.Describe(), results, recs); err != nil {
			return err
		}
		if err := modelPicture(filepath.Join(dir, "model.png"), ex, m); err != nil {
			return fmt.Errorf("%s: %w", ex.Name, err)
		}
		fmt.Fprint(log, summary.Table(results))
		fmt.Fprintf(log, "%s took %s\n", ex.Name, time.Since(start).Round(time.Second))
		done = append(done, &Outcome{Experiment: ex, Results: results, Steps: steps})
	}
	if len(done) == 0 {
		return fmt.Errorf("no experiment named %q (expected one of %s)", cfg.Only, names())
	}
	if err := atomicfile.WriteFileMkdir(filepath.Join(cfg.Out, "table.md"), []byte(Table(done, cfg))); err != nil {
		return err
	}
	return atomicfile.WriteFileMkdir(filepath.Join(cfg.Out, "claims.md"), []byte(Claims(done)))
}

// HasPicture tells whether an experiment gets a model.png: the lattices and
// the chimera do; the RBM does not (its picture would be a weight matrix).
func HasPicture(ex Experiment) bool {
	kind, _, _ := strings.Cut(ex.Spec, ":")
	switch kind {
	case "ferro2d", "frustrated2d", "spinglass3d", "chimera":
		return true
	}
	return false
}

// modelPicture draws the model of ex to path where HasPicture says so: a 2D
// torus with its coupling signs, the 3D torus layer by layer, or the chimera
// layout. Sizes come from the keys of ex.Spec (L, or M, N and T).
func modelPicture(path string, ex Experiment, m *model.Model) error {
	if !HasPicture(ex) {
		return nil
	}
	kind, rest, _ := strings.Cut(ex.Spec, ":")
	keys := map[string]int{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if n, err := strconv.Atoi(v); err == nil {
			keys[k] = n
		}
	}
	title := "Model: " + ex.Title
	switch kind {
	case "ferro2d", "frustrated2d":
		return figure.PlotLattice2D(path, title, m.Ising, keys["L"])
	case "spinglass3d":
		return figure.PlotSpinGlass3D(path, title, m.Ising, keys["L"])
	default:
		return figure.PlotChimera(path, title, m.Ising, keys["M"], keys["N"], keys["T"])
	}
}

func names() string {
	var n []string
	for _, e := range Experiments {
		n = append(n, e.Name)
	}
	return strings.Join(n, ", ")
}

// redraw draws an experiment's figures again from its trial folders, when
// they are there (they are not committed).
func redraw(dir string, o *Outcome) error {
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return err
	}
	var meta summary.Meta
	if err := json.Unmarshal(b, &meta); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(dir, "run.json"), err)
	}
	recs := map[string][]*summary.TrialRecord{}
	for _, r := range o.Results {
		for _, t := range r.TrialIDs {
			rec, err := summary.ReadTrial(summary.TrialDir(dir, r.Sampler, t))
			if err != nil {
				return nil // no traces here: keep the committed figures
			}
			recs[r.Sampler] = append(recs[r.Sampler], rec)
		}
	}
	return summary.DrawFigures(dir, meta, o.Results, recs)
}

// finished loads an experiment a previous run of the same settings
// completed: its summary.json and run.json exist, run.json's Meta is meta,
// and every sampler has its trials.
func finished(ex Experiment, dir string, meta summary.Meta, trials int) (*Outcome, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return nil, false
	}
	var got summary.Meta
	if json.Unmarshal(b, &got) != nil || got != meta {
		return nil, false
	}
	o, err := readOutcome(ex, dir)
	if err != nil || len(o.Results) != len(ex.Samplers) {
		return nil, false
	}
	for _, r := range o.Results {
		if r.Trials != trials {
			return nil, false
		}
	}
	return o, true
}
