package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"sardonics/figure"
	"sardonics/model"
	"sardonics/runner"
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
	"sardonics/tune"
)

// tuneFlags configure the adaptation phase (sample --tune, tune).
type tuneFlags struct {
	tune       bool
	policy     string
	iterations int
	iterSteps  int
	acfLag     int
	kernels    int
	tau        float64
	bounds     string
	refit      int
	reward     string
	warmUp     int
	stopEI     float64
}

func (t *tuneFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&t.tune, "tune", false, "adapt SARDONICS by Bayesian optimization during the first iterations x iter-steps steps, then sample with the policy")
	fs.StringVar(&t.policy, "policy", "", "sample with the kernels of a policy `FILE` written by sardonics tune")
	fs.IntVar(&t.iterations, "iterations", 0, "adaptation iterations I (0: the reward's default, 25 for ess, 200 for acf and cost)")
	fs.IntVar(&t.iterSteps, "iter-steps", 0, "chain steps L per adaptation iteration (0: the reward's default, 800 for ess, 100 for acf and cost)")
	fs.IntVar(&t.acfLag, "acf-lag", 0, "lags 1..N of the energy ACF scored by the reward (0: min(100, L-1))")
	fs.IntVar(&t.kernels, "kernels", 1000, "settings K drawn from the Boltzmann policy for the sampling phase")
	fs.Float64Var(&t.tau, "policy-tau", 0, "temperature of the Boltzmann policy (0: the reward's default): for ess in nats of ESS per CPU-second (default 0.05), for acf and cost in standard deviations of the rewards (default 0.2)")
	fs.StringVar(&t.bounds, "bounds", "", "override search bounds, e.g. kl=1:20,ku=2:60,gl=0.9:1,gh=1:1.1,n=1:2")
	fs.IntVar(&t.refit, "refit-every", 0, "consider refitting the GP hyperparameters every N iterations (0: whenever the data grew by 10%); a refit runs only when it would change the fit")
	fs.StringVar(&t.reward, "reward", tune.RewardESS, "tuning reward: ess (estimated effective samples of the energy per modeled CPU-second of the window), acf (the paper's: one minus the ACF area per step) or cost (flips per autocorrelation time)")
	fs.IntVar(&t.warmUp, "warm-up", 0, "iterations (of the I) whose steps run with the default theta before the first scored window (0: the reward's default, I/10 rounded up for ess, none for acf and cost)")
	fs.Float64Var(&t.stopEI, "stop-ei", 0, "end the adaptation once the expected improvement stays below this (in reward units) 3 times in a row (0: the reward's default, 0.01 for ess, never for acf and cost; negative: never)")
}

func (t *tuneFlags) config() (tune.Config, error) {
	sp, err := tune.ParseBounds(tune.DefaultSpace(), t.bounds)
	if err != nil {
		return tune.Config{}, &UsageError{err.Error()}
	}
	if t.iterations < 0 || t.iterSteps < 0 || t.iterSteps == 1 || t.kernels < 1 || t.tau < 0 || t.warmUp < 0 {
		return tune.Config{}, usagef("need --iterations >= 1, --iter-steps >= 2, --kernels >= 1, --policy-tau > 0 and --warm-up >= 0 (0 for the defaults)")
	}
	switch t.reward {
	case tune.RewardESS, tune.RewardACF, tune.RewardCost:
	default:
		return tune.Config{}, usagef("--reward %q (expected ess, acf or cost)", t.reward)
	}
	c := tune.Config{Space: sp, Reward: t.reward, Iterations: t.iterations, IterSteps: t.iterSteps, ACFLag: t.acfLag,
		Kernels: t.kernels, PolicyTau: t.tau, WarmUp: t.warmUp, StopEI: t.stopEI}
	c.BO.RefitEvery = t.refit
	return c.WithDefaults(), nil
}

// apply wires --tune or --policy into a sample run.
func (t *tuneFlags) apply(cfg *runner.Config, m *model.Model, haveParams bool) error {
	if t.tune && t.policy != "" {
		return usagef("give --tune or --policy, not both")
	}
	if (t.tune || t.policy != "") && haveParams {
		return usagef("--params fixes theta; it cannot be combined with --tune or --policy")
	}
	if t.policy != "" {
		p, th, err := tune.LoadPolicy(t.policy)
		if err != nil {
			return &UsageError{err.Error()}
		}
		if err := policyFor(t.policy, p.Spec, m); err != nil {
			return err
		}
		cfg.SAW.Thetas = th
	}
	if t.tune {
		c, err := t.config()
		if err != nil {
			return err
		}
		if c.Steps() >= cfg.Steps {
			return usagef("--tune adapts during up to the first %d x %d = %d steps (--iterations x --iter-steps), which leaves none of --steps %d to sample with the policy; give more --steps or fewer iterations",
				c.Iterations, c.IterSteps, c.Steps(), cfg.Steps)
		}
		if c.Steps() > cfg.Burn {
			return usagef("--tune adapts during up to the first %d x %d = %d steps (--iterations x --iter-steps), but --burn %d would keep %d of them in the statistics; give --burn %d or more (below --steps %d), or no --burn for that default",
				c.Iterations, c.IterSteps, c.Steps(), cfg.Burn, c.Steps()-cfg.Burn, c.Steps(), cfg.Steps)
		}
		cfg.Tune = tune.Tuner(c)
	}
	return nil
}

// policyFor refuses a policy file (at path, tuned for the model spec)
// tuned for another model than m. Files that name no model are accepted.
func policyFor(path, spec string, m *model.Model) error {
	// Model files compare by canonical path: m.txt is ./m.txt.
	if spec != "" && canonicalSpec(spec, "") != canonicalSpec(m.Spec, "") {
		return usagef("--policy %s was tuned for model %s, not for --model %s; tune this model with sardonics tune (or sample --tune), or, if it is the same model written differently, set \"spec\" in %s to %q",
			path, spec, m.Spec, path, m.Spec)
	}
	return nil
}

func init() {
	register(&Command{
		Name:  "tune",
		Usage: "--model SPEC (--T T | --beta B) --out DIR [flags]",
		Short: "run the Bayesian-optimization adaptation alone and write the policy",
		Long: `Runs the adaptation phase of one SARDONICS chain (trial --trial, seed --seed):
up to I iterations of L steps, each scored by the reward. By default (ess)
the estimated effective sample size of the energy per modeled CPU-second of
the window: the search starts at the default theta and its neighbourhood,
proposes by expected improvement per modeled cost, stops early once that
improvement is negligible, and draws the policy from the settings tried
(lower confidence bound), keeping the default theta unless the policy is
predicted to beat it by 10%. With --reward acf, the paper's protocol: one
minus the mean absolute energy autocorrelation over lags 1..acf-lag, and
the Boltzmann policy over the whole space. A GP with an ARD
squared-exponential kernel, expected improvement maximized by DIRECT.
Writes DIR/policy.json (K settings from the policy, reusable with sample
--policy), DIR/tuning.csv and DIR/rewards.png.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			var temp temperature
			var sf sawFlags
			var tf tuneFlags
			spec := fs.String("model", "", "model `SPEC` (see sardonics help sample)")
			temp.register(fs)
			seed := fs.Uint64("seed", 1, "random seed")
			trial := fs.Int("trial", 0, "trial number whose random stream is used")
			out := fs.String("out", "", "output `DIR` (required)")
			sf.register(fs)
			tf.register(fs)
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("tune: unexpected argument %q", args[0])
				}
				beta, err := temp.beta()
				if err != nil {
					return err
				}
				if *out == "" {
					return usagef("--out DIR is required")
				}
				if err := checkOutDir("--out", *out); err != nil {
					return err
				}
				if *trial < 0 {
					return usagef("--trial %d (expected 0 or more)", *trial)
				}
				m, err := loadModel(*spec)
				if err != nil {
					return err
				}
				sc, err := sf.config(m, env.Stderr)
				if err != nil {
					return err
				}
				// One chain: the engine's sections are clamped to the usable
				// CPUs as sample's are, with the same warning.
				plan, _, _ := planFor(env.Stderr, nil, 1, 1, []string{"sardonics"}, sc, sawsampler.ParallelFor(m, sc.Engine, sc.EngineThreads))
				sc.EngineThreads = plan.engineThreads
				c, err := tf.config()
				if err != nil {
					return err
				}
				runtime.LockOSThread()
				init := runner.InitialState(*seed, *trial, m.Variables())
				ch, release, err := runner.NewChain("sardonics", m, beta, sc, runner.StreamFor(*seed, *trial, "sardonics"), init)
				if err != nil {
					return err
				}
				defer release()
				sch := ch.(*saw.Chain)
				fmt.Fprintf(env.Stdout, "%s, beta = %g: reward %s, up to %d iterations x %d steps\n", m.Describe(), beta, c.Reward, c.Iterations, c.IterSteps)
				// SIGINT or SIGTERM stops the adaptation between iterations
				// (one iteration is well under a second); the finished
				// iterations are kept.
				ctx, sig, stop := signalContext()
				defer stop()
				res, err := tune.AdaptContext(ctx, c, sch, runner.TunerStream(*seed, *trial), sch.Step)
				if ctx.Err() != nil && res != nil {
					return keepTuning(env, *out, m.Spec, beta, *trial, c, res, sig())
				}
				if err != nil {
					return err
				}
				if err := os.MkdirAll(*out, 0o755); err != nil {
					return err
				}
				// The model's file by its canonical path, which sample
				// --policy compares from any directory.
				pol := tune.Policy{Spec: canonicalSpec(m.Spec, ""), Beta: beta}
				for _, th := range res.Policy {
					pol.Kernels = append(pol.Kernels, th.String())
				}
				if err := tune.WritePolicy(filepath.Join(*out, "policy.json"), pol); err != nil {
					return err
				}
				rec := &summary.TrialRecord{Sampler: "sardonics", Trial: *trial, Tune: res.Record()}
				if err := summary.WriteTuningCSV(filepath.Join(*out, "tuning.csv"), []*summary.TrialRecord{rec}); err != nil {
					return err
				}
				if err := figure.PlotRewards(filepath.Join(*out, "rewards.png"), fmt.Sprintf("Tuning rewards: %s, beta = %g", m.Spec, beta), res.Rewards); err != nil {
					return err
				}
				best := 0
				for i, r := range res.Rewards {
					if r > res.Rewards[best] {
						best = i
					}
				}
				// Iterations count from 1, as on rewards.png's axis.
				fmt.Fprintf(env.Stdout, "best reward %.4f at iteration %d: %s\nwrote %s\n", res.Rewards[best], best+1, res.Tried[best], filepath.Join(*out, "policy.json"))
				return nil
			}
		},
	})
}

// keepTuning writes the finished iterations of an interrupted adaptation
// (tuning.csv, rewards.png; no policy is drawn from a partial search) and
// reports what was kept.
func keepTuning(env *Env, out, spec string, beta float64, trial int, c tune.Config, res *tune.Result, sig os.Signal) error {
	n := len(res.Rewards)
	if n > 0 {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		rec := &summary.TrialRecord{Sampler: "sardonics", Trial: trial, Tune: res.Record()}
		if err := summary.WriteTuningCSV(filepath.Join(out, "tuning.csv"), []*summary.TrialRecord{rec}); err != nil {
			return err
		}
		if err := figure.PlotRewards(filepath.Join(out, "rewards.png"), fmt.Sprintf("Tuning rewards (interrupted): %s, beta = %g", spec, beta), res.Rewards); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "sardonics: tune: interrupted after %d of %d iterations; kept their settings and rewards in %s and %s; no policy was drawn\n",
			n, c.Iterations, filepath.Join(out, "tuning.csv"), filepath.Join(out, "rewards.png"))
	} else {
		fmt.Fprintf(env.Stderr, "sardonics: tune: interrupted before the first iteration finished; nothing to keep\n")
	}
	return &InterruptedError{Signal: sig}
}
