package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"sardonics/model"
	"sardonics/report"
	"sardonics/runner"
	"sardonics/saw"
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
}

func (t *tuneFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&t.tune, "tune", false, "adapt SARDONICS by Bayesian optimization during the first iterations x iter-steps steps, then sample with the policy")
	fs.StringVar(&t.policy, "policy", "", "sample with the kernels of a policy `FILE` written by sardonics tune")
	fs.IntVar(&t.iterations, "iterations", 200, "adaptation iterations I")
	fs.IntVar(&t.iterSteps, "iter-steps", 100, "chain steps L per adaptation iteration")
	fs.IntVar(&t.acfLag, "acf-lag", 0, "lags 1..N of the energy ACF scored by the reward (0: min(100, L-1))")
	fs.IntVar(&t.kernels, "kernels", 1000, "settings K drawn from the Boltzmann policy for the sampling phase")
	fs.Float64Var(&t.tau, "policy-tau", 0.2, "temperature of the Boltzmann policy, in standard deviations of the rewards")
	fs.StringVar(&t.bounds, "bounds", "", "override search bounds, e.g. kl=1:20,ku=2:60,gl=0.9:1,gh=1:1.1,n=1:2")
	fs.IntVar(&t.refit, "refit-every", 0, "refit the GP hyperparameters every N iterations (0: whenever the data grew by 10%)")
	fs.StringVar(&t.reward, "reward", "acf", "tuning reward: acf (the paper's: one minus the ACF area per step) or cost (flips per autocorrelation time: charges long walks)")
}

func (t *tuneFlags) config() (tune.Config, error) {
	sp, err := tune.ParseBounds(tune.DefaultSpace(), t.bounds)
	if err != nil {
		return tune.Config{}, &UsageError{err.Error()}
	}
	if t.iterations < 1 || t.iterSteps < 2 || t.kernels < 1 || !(t.tau > 0) {
		return tune.Config{}, usagef("need --iterations >= 1, --iter-steps >= 2, --kernels >= 1, --policy-tau > 0")
	}
	if t.reward != "acf" && t.reward != "cost" {
		return tune.Config{}, usagef("--reward %q (expected acf or cost)", t.reward)
	}
	c := tune.Config{Space: sp, Iterations: t.iterations, IterSteps: t.iterSteps, ACFLag: t.acfLag,
		Kernels: t.kernels, PolicyTau: t.tau, CostAware: t.reward == "cost"}
	c.BO.RefitEvery = t.refit
	return c, nil
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
		th, err := tune.ReadPolicy(t.policy)
		if err != nil {
			return &UsageError{err.Error()}
		}
		cfg.SAW.Thetas = th
	}
	if t.tune {
		c, err := t.config()
		if err != nil {
			return err
		}
		if c.Steps() > cfg.Steps {
			return usagef("--tune uses %d x %d = %d steps, more than --steps %d", c.Iterations, c.IterSteps, c.Steps(), cfg.Steps)
		}
		cfg.Tune = tune.Tuner(c)
	}
	return nil
}

func init() {
	register(&Command{
		Name:  "tune",
		Usage: "--model SPEC (--T T | --beta B) --out DIR [flags]",
		Short: "run the Bayesian-optimization adaptation alone and write the policy",
		Long: `Runs the adaptation phase of one SARDONICS chain (trial --trial, seed --seed):
I iterations of L steps, each scored by one minus the mean absolute energy
autocorrelation over lags 1..acf-lag; a GP with an ARD squared-exponential
kernel, expected improvement maximized by DIRECT. Writes DIR/policy.json (K
settings from the Boltzmann policy, reusable with sample --policy),
DIR/tuning.csv and DIR/rewards.png.`,
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
				m, err := loadModel(*spec)
				if err != nil {
					return err
				}
				sc, err := sf.config(m, env.Stderr)
				if err != nil {
					return err
				}
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
				fmt.Fprintf(env.Stdout, "%s, beta = %g: %d iterations x %d steps\n", m.Describe(), beta, c.Iterations, c.IterSteps)
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
				pol := tune.Policy{Spec: m.Spec, Beta: beta}
				for _, th := range res.Policy {
					pol.Kernels = append(pol.Kernels, th.String())
				}
				if err := tune.WritePolicy(filepath.Join(*out, "policy.json"), pol); err != nil {
					return err
				}
				rec := &runner.TrialRecord{Sampler: "sardonics", Trial: *trial, Tune: res.Record(c.Steps())}
				if err := runner.WriteTuningCSV(filepath.Join(*out, "tuning.csv"), []*runner.TrialRecord{rec}); err != nil {
					return err
				}
				if err := report.PlotRewards(filepath.Join(*out, "rewards.png"), fmt.Sprintf("Tuning rewards: %s, beta = %g", m.Spec, beta), res.Rewards); err != nil {
					return err
				}
				best := 0
				for i, r := range res.Rewards {
					if r > res.Rewards[best] {
						best = i
					}
				}
				fmt.Fprintf(env.Stdout, "best reward %.4f at iteration %d: %s\nwrote %s\n", res.Rewards[best], best, res.Tried[best], filepath.Join(*out, "policy.json"))
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
		rec := &runner.TrialRecord{Sampler: "sardonics", Trial: trial, Tune: res.Record(n * c.IterSteps)}
		if err := runner.WriteTuningCSV(filepath.Join(out, "tuning.csv"), []*runner.TrialRecord{rec}); err != nil {
			return err
		}
		if err := report.PlotRewards(filepath.Join(out, "rewards.png"), fmt.Sprintf("Tuning rewards (interrupted): %s, beta = %g", spec, beta), res.Rewards); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "sardonics: tune: interrupted after %d of %d iterations; kept their settings and rewards in %s and %s; no policy was drawn\n",
			n, c.Iterations, filepath.Join(out, "tuning.csv"), filepath.Join(out, "rewards.png"))
	} else {
		fmt.Fprintf(env.Stderr, "sardonics: tune: interrupted before the first iteration finished; nothing to keep\n")
	}
	return &InterruptedError{Signal: sig}
}
