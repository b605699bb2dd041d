package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"sardonics/model"
	"sardonics/runner"
	"sardonics/saw"
	"sardonics/topology"
)

// temperature holds --T and --beta.
type temperature struct{ T, Beta float64 }

func (t *temperature) register(fs *flag.FlagSet) {
	fs.Float64Var(&t.T, "T", 0, "temperature `T` (beta = 1/T); give --T or --beta")
	fs.Float64Var(&t.Beta, "beta", 0, "inverse temperature `B`")
}

func (t *temperature) beta() (float64, error) {
	switch {
	case t.T != 0 && t.Beta != 0:
		return 0, usagef("give --T or --beta, not both")
	case t.T != 0:
		if !(t.T > 0) || math.IsInf(t.T, 0) {
			return 0, usagef("--T %v (expected a positive finite temperature)", t.T)
		}
		return 1 / t.T, nil
	case t.Beta != 0:
		if !(t.Beta > 0) || math.IsInf(t.Beta, 0) {
			return 0, usagef("--beta %v (expected a positive finite number)", t.Beta)
		}
		return t.Beta, nil
	}
	return 0, usagef("give --T or --beta")
}

func loadModel(spec string) (*model.Model, error) {
	if spec == "" {
		return nil, usagef("--model is required (e.g. --model ferro2d:L=60; see sardonics help sample)")
	}
	return model.Load(spec)
}

// sawFlags are the sardonics sampler's settings shared by sample and tune.
type sawFlags struct {
	params, layout, weight, accept, engine string
	engineThreads                          int
}

func (s *sawFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.params, "params", "", "SARDONICS parameters `THETA`, e.g. "+saw.DefaultTheta.String()+" (default: that)")
	fs.StringVar(&s.layout, "layout", "blocks", "walk layout: blocks (N walks at bias a, then N at b) or pairs")
	fs.StringVar(&s.weight, "weight", "logistic", "pick weight: logistic (1/(1+exp(gamma dE))) or exp (exp(-gamma dE))")
	fs.StringVar(&s.accept, "accept", "marginal", "acceptance rule: marginal (sums over move types) or joint")
	fs.StringVar(&s.engine, "engine", "auto", "SAW engine: auto, tree or bucket (sparse models); auto, dense or parallel (RBMs)")
	fs.IntVar(&s.engineThreads, "engine-threads", 0, "sections of the parallel RBM engine (0: automatic, see help)")
}

func (s *sawFlags) config(m *model.Model, stderr interface{ Write([]byte) (int, error) }) (runner.SAWConfig, error) {
	var sc runner.SAWConfig
	var err error
	if sc.Options.Layout, err = saw.ParseLayout(s.layout); err != nil {
		return sc, usagef("--layout: %v", err)
	}
	if sc.Options.Weight, err = saw.ParseWeight(s.weight); err != nil {
		return sc, usagef("--weight: %v", err)
	}
	if sc.Options.Accept, err = saw.ParseAccept(s.accept); err != nil {
		return sc, usagef("--accept: %v", err)
	}
	th := saw.DefaultTheta
	if s.params != "" {
		if th, err = saw.ParseTheta(s.params); err != nil {
			return sc, usagef("--params: %v", err)
		}
	}
	if err := th.Validate(); err != nil {
		return sc, usagef("--params: %v", err)
	}
	if !th.Irreducible(m.Variables()) {
		fmt.Fprintf(stderr, "sardonics: warning: --params %s is not irreducible (needs kl = 1 or ku > kl); the chain may not reach every state\n", th)
	}
	sc.Thetas = []saw.Theta{th}
	sc.Engine = s.engine
	sc.EngineThreads = s.engineThreads
	return sc, nil
}

func init() {
	register(&Command{
		Name:  "sample",
		Usage: "--model SPEC (--T T | --beta B) [flags]",
		Short: "run samplers side by side and write traces, diagnostics and figures",
		Long: `Runs each sampler for --trials independent trials of --steps steps (one step:
a sweep for gibbs and metropolis, one update for sw and blockgibbs, one
Metropolis-Hastings move for sardonics), discarding the first --burn steps
from the statistics. Trial t uses the random stream of (seed, t) only, so
--trials 1 --trial-offset t on separate machines reproduces one run's trial t.

Cores: --threads trials run at once (default: the CPUs this process may use).
For RBMs the sardonics engine is serial unless --engine parallel or
--engine-threads P > 1; trials x engine threads never exceed the CPUs. With
--engine parallel and no P, each trial gets CPUs / (trials at once) sections,
at most 4. Each trial running at once owns P CPUs of the affinity mask: its
coordinator is pinned to the first, its P - 1 workers to the others.

Writes DIR/summary.json, DIR/acf.png, DIR/trace.png, DIR/SAMPLER/trial-T/
(energy.csv, stats.json, states.npy with --save-states) and, after tuning,
DIR/rewards.png and DIR/tuning.csv.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			var temp temperature
			var sf sawFlags
			var tf tuneFlags
			spec := fs.String("model", "", "model `SPEC` (ferro2d:L=60, frustrated2d:L=60,seed=1, spinglass3d:L=9,seed=1, chimera:M=4,N=4,T=4,seed=1, rbm:FILE.npz, rbm-random:V=784,H=500,seed=1,scale=0.1, paper-rbm, FILE.txt, FILE.qubo)")
			temp.register(fs)
			samplers := fs.String("sampler", "sardonics,gibbs", "comma-separated `LIST` of samplers: sardonics, gibbs, metropolis, sw, blockgibbs")
			steps := fs.Int("steps", 100000, "steps per trial")
			burn := fs.Int("burn", 20000, "steps discarded from the statistics (still written to energy.csv)")
			trials := fs.Int("trials", 10, "independent trials per sampler")
			offset := fs.Int("trial-offset", 0, "number of the first trial (for splitting a run across jobs)")
			seed := fs.Uint64("seed", 1, "random seed")
			threads := fs.Int("threads", 0, "trials run at once (0: all available CPUs)")
			out := fs.String("out", "", "output `DIR` (required)")
			save := fs.Bool("save-states", false, "write the kept states of each trial as states.npy (uint8, one row per step)")
			quiet := fs.Bool("quiet", false, "no progress lines")
			every := fs.Duration("checkpoint-every", 0, "write every running trial's complete state to DIR/checkpoint every `DURATION` (e.g. 10m); SIGINT and SIGTERM always checkpoint")
			resume := fs.String("resume", "", "continue the interrupted run in `DIR` with its original flags; the result is identical to an uninterrupted run")
			sf.register(fs)
			tf.register(fs)
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("sample: unexpected argument %q", args[0])
				}
				if *resume != "" {
					return resumeSample(fs, *resume, env)
				}
				beta, err := temp.beta()
				if err != nil {
					return err
				}
				if *out == "" {
					return usagef("--out DIR is required")
				}
				if *steps < 1 || *burn < 0 || *burn >= *steps || *trials < 1 || *offset < 0 {
					return usagef("need --steps >= 1, 0 <= --burn < --steps, --trials >= 1, --trial-offset >= 0")
				}
				m, err := loadModel(*spec)
				if err != nil {
					return err
				}
				names, err := runner.ParseSamplers(*samplers, m)
				if err != nil {
					return err
				}
				sc, err := sf.config(m, env.Stderr)
				if err != nil {
					return err
				}
				cpus, _ := topology.CPUs()
				ncpu := max(1, len(cpus))
				if len(cpus) == 0 {
					ncpu = runtime.NumCPU()
				}
				par := *threads
				if par <= 0 {
					par = ncpu
				}
				par = min(par, *trials)
				if m.RBM != nil && (sc.Engine == "parallel" || sc.EngineThreads > 1) {
					if sc.EngineThreads <= 0 {
						_, sc.EngineThreads = topology.Split(ncpu, *trials)
						sc.EngineThreads = min(sc.EngineThreads, maxAutoEngineThreads)
					}
					par = max(1, min(par, ncpu/max(1, sc.EngineThreads)))
				}
				sc.CPUs = cpus
				cfg := &runner.Config{Model: m, Beta: beta, Samplers: names, Steps: *steps, Burn: *burn,
					Trials: *trials, TrialOffset: *offset, Seed: *seed, Threads: par, SAW: sc, SaveStates: *save}
				if err := tf.apply(cfg, m, sf.params != ""); err != nil {
					return err
				}
				if !*quiet {
					cfg.Progress, cfg.ProgressTTY = env.Stderr, isTerminal(env.Stderr)
				}
				cfg.CheckpointEvery = *every
				if err := saveCommand(fs, *out); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "%s, beta = %g, %d trials x %d steps (burn-in %d), %d at a time\n", m.Describe(), beta, *trials, *steps, *burn, par)
				return runAndWrite(cfg, *out, env, settingsString(sf, tf))
			}
		},
	})
}

// maxAutoEngineThreads caps the automatic section count of the parallel
// engine: its spin barrier is measured to pay up to 4 sections (2.0x at 4 on
// a 16-CPU VM, 1.7x at 2), while 8 and 16 were fast on one lease of that VM
// and 10-50x slower on another (a descheduled virtual CPU stalls every
// flip). --engine-threads still sets any count.
const maxAutoEngineThreads = 4

func settingsString(sf sawFlags, tf tuneFlags) string {
	return fmt.Sprintf("params=%s layout=%s weight=%s accept=%s engine=%s tune=%v policy=%s iterations=%d iter-steps=%d reward=%s bounds=%s kernels=%d",
		sf.params, sf.layout, sf.weight, sf.accept, sf.engine, tf.tune, tf.policy, tf.iterations, tf.iterSteps, tf.reward, tf.bounds, tf.kernels)
}

// runAndWrite runs cfg, writing every output into dir; SIGINT and SIGTERM
// checkpoint every running trial and stop.
func runAndWrite(cfg *runner.Config, dir string, env *Env, settings string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg.Dir = dir
	cfg.Meta = runner.Meta{Spec: cfg.Model.Spec, Variables: cfg.Model.Variables(), Interactions: cfg.Model.Interactions(),
		Beta: cfg.Beta, Seed: cfg.Seed, Steps: cfg.Steps, BurnIn: cfg.Burn, Settings: settings}
	stop, sig, quit := catchSignals()
	defer quit()
	cfg.Stop = stop
	recs, wall, err := runner.Run(cfg)
	if errors.Is(err, runner.ErrInterrupted) {
		fmt.Fprintf(env.Stderr, "sardonics: %v: finished trials and checkpoints are in %s; continue with: sardonics sample --resume %s\n", sig(), dir, dir)
		return &InterruptedError{Signal: sig()}
	}
	if err != nil {
		return err
	}
	var results []*runner.Result
	for _, name := range cfg.Samplers {
		results = append(results, runner.Summarize(name, recs[name], cfg.Steps, cfg.Burn, wall[name]))
	}
	sum, err := runner.WriteSummary(dir, cfg.Meta, topology.Describe(), results, recs)
	if err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(dir, "checkpoint"))
	fmt.Fprint(env.Stdout, runner.Table(results))
	for _, w := range sum.Warnings {
		fmt.Fprintf(env.Stderr, "sardonics: warning: %s\n", w)
	}
	fmt.Fprintf(env.Stdout, "wrote %s\n", filepath.Join(dir, "summary.json"))
	return nil
}

// saveCommand records the flags of a sample run in DIR/command.json, so
// that --resume DIR can repeat them.
//
// Finished trials and checkpoints in dir are reused (that is how --resume
// works), so a folder that holds a run of another command is refused rather
// than mixed into this one.
func saveCommand(fs *flag.FlagSet, dir string) error {
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	path := filepath.Join(dir, "command.json")
	if old, err := os.ReadFile(path); err == nil && !sameCommand(old, b) {
		return usagef("--out %s holds the results of another command (%s); choose another folder, delete it, or continue it with --resume %s", dir, path, dir)
	}
	return runner.WriteFileAtomic(path, b)
}

// sameCommand compares two command.json files, ignoring --quiet.
func sameCommand(a, b []byte) bool {
	var x, y []string
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	drop := func(s []string) []string {
		var out []string
		for _, v := range s {
			if !strings.HasPrefix(v, "--quiet=") {
				out = append(out, v)
			}
		}
		return out
	}
	return slices.Equal(drop(x), drop(y))
}

// resumeSample reruns the command saved in dir; finished trials are kept,
// checkpointed ones continue where they stopped.
func resumeSample(fs *flag.FlagSet, dir string, env *Env) error {
	var extra []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" && f.Name != "quiet" {
			extra = append(extra, f.Name)
		}
	})
	if len(extra) > 0 {
		return usagef("--resume takes the original flags from %s; do not give --%s", filepath.Join(dir, "command.json"), extra[0])
	}
	b, err := os.ReadFile(filepath.Join(dir, "command.json"))
	if err != nil {
		return usagef("--resume %s: %v (expected the output folder of an interrupted sample run)", dir, err)
	}
	var args []string
	if err := json.Unmarshal(b, &args); err != nil {
		return usagef("--resume: %s: %v", filepath.Join(dir, "command.json"), err)
	}
	if q := fs.Lookup("quiet"); q != nil && q.Value.String() == "true" {
		args = append(args, "--quiet")
	}
	return Run(append([]string{"sample"}, args...), env.Stdout, env.Stderr)
}
