package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"sardonics/atomicfile"
	"sardonics/logz"
	"sardonics/npy"
	"sardonics/topology"
)

// logzOutput is what logz prints with --json and writes to DIR/logz.json.
type logzOutput struct {
	Model     string `json:"model"`
	Variables int    `json:"variables"`
	Seed      uint64 `json:"seed"`
	*logz.Estimate
	FreeEnergy       *float64 `json:"free_energy"` // -ln Z / beta (null at beta = 0)
	FreeEnergyStderr *float64 `json:"free_energy_stderr"`
	BaseRate         string   `json:"base_rate,omitempty"` // RBM AIS: "uniform" or "data"
	WallSeconds      float64  `json:"wall_seconds"`
	BudgetSeconds    float64  `json:"budget_seconds,omitempty"`
	Reproduce        string   `json:"reproduce"`
	// With --data: the rows' mean ln p(v) and its error (that of ln Z:
	// the rows are given), the rows' standard deviation of ln p(v).
	Data              string   `json:"data,omitempty"`
	Rows              int      `json:"rows,omitempty"`
	MeanLogProb       *float64 `json:"mean_log_prob,omitempty"`
	MeanLogProbStderr *float64 `json:"mean_log_prob_stderr,omitempty"`
	LogProbSD         *float64 `json:"log_prob_sd,omitempty"`
}

func init() {
	register(&Command{
		Name:  "logz",
		Usage: "--model SPEC (--T T | --beta B) [--method ais|re] [--budget D | --steps S] [--data V.npy] [--json] [--out DIR] [flags]",
		Short: "ln Z and the free energy with a standard error, by annealed importance sampling or replica exchange",
		Long: `Estimates ln Z(beta) = ln sum_x exp(-beta E(x)) of any model (E in the model's
own convention, as exact prints it) and the free energy -ln Z / beta, with a
standard error; docs/logz.md gives the estimators, their references and when
they fail.

--method ais (default): annealed importance sampling (Neal 2001) from beta = 0,
where ln Z = M ln 2, through --steps intermediate distributions placed by a
pilot at equal thermodynamic length (each step adds the same variance to the
log-weights), one kernel step at each, in --runs independent runs (default
100); ln Z is ln Z0 plus the log-mean-exp of the runs' weights, its error by
the delta method, and the weights' effective sample size is reported (a
warning when it is below a quarter of the runs). On an RBM the default kernel
is block Gibbs on the visible units with the hidden ones summed out exactly
(Salakhutdinov and Murray 2008), from the uniform distribution or, with
--base-rate data, from the base-rate model of the --data rows; --sampler
NAME uses a registered sampler on the whole state instead (gibbs is the
default elsewhere; any sampler that can change its temperature in place).

--method re: replica exchange on a ladder from beta = 0 to the target (rungs
at equal thermodynamic length of the pilot, about one energy standard
deviation apart, or --rungs R), --runs independent ladders (default 16) of
--steps swap rounds each (the first fifth burn-in), and Bennett's acceptance
ratio between neighbouring rungs; the error is the jackknife over the
ladders, with --runs - 1 degrees of freedom (+-2 errors cover about 94% of
the time with 16). A pair that swaps less than 10% of the time is warned
about.

--budget D (default 10s) is the thread CPU of the whole estimate, pilot
included, over all threads: the steps are chosen from a measured step cost,
so a budget run is not repeatable bit for bit; the output's reproduce line
gives the --steps (and --rungs) that repeat it exactly. Runs draw only from
their own streams of --seed: the same flags give the same output whatever
--threads.

--data V.npy (RBMs): rows of visible vectors (shape (rows, V), 0/1 values),
and the mean over them of ln p(v) = -F(v) - ln Z, F(v) exact (the hidden
units summed out), with ln Z's error (the rows are given); --out DIR then
writes each row's ln p(v) to DIR/log_prob.npy. --out DIR writes logz.json
(what --json prints) and, for AIS, each run's log-weight to
DIR/log_weights.npy.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			var temp temperature
			spec := fs.String("model", "", modelUsage())
			temp.register(fs)
			method := fs.String("method", "ais", "estimator: ais (annealed importance sampling) or re (replica exchange and Bennett's acceptance ratio)")
			var budgetFlag durationFlag
			fs.Var(&budgetFlag, "budget", "thread CPU `DURATION` of the whole estimate, over all threads (e.g. 60s, 5m; default 10s without --steps)")
			steps := fs.Int("steps", 0, "AIS: intermediate distributions per run; re: swap rounds per ladder (instead of --budget)")
			runs := fs.Int("runs", 0, "independent AIS runs (0: 100) or replica-exchange ladders (0: 16), at least 2")
			rungs := fs.Int("rungs", 0, "re: rungs of the ladder (0: from the pilot's thermodynamic length)")
			samplerName := fs.String("sampler", "", "kernel: a registered sampler that can change its temperature in place (default: gibbs; AIS on an RBM: block Gibbs with the hidden units summed out)")
			data := fs.String("data", "", "RBMs: `V.npy` of visible rows (0/1), whose mean ln p(v) is printed")
			baseRate := fs.String("base-rate", "uniform", "RBM AIS with the default kernel: start from the uniform distribution, or data (the base-rate model of the --data rows)")
			asJSON := fs.Bool("json", false, "print JSON: ln_z, ln_z_stderr, method, free_energy, ..., and with --data mean_log_prob, mean_log_prob_stderr")
			out := fs.String("out", "", "also write logz.json (and log_prob.npy, log_weights.npy) to `DIR`")
			seed := fs.Uint64("seed", 1, "random seed")
			threads := fs.Int("threads", 0, "at most `N` runs at once (0: all available CPUs)")
			quiet := fs.Bool("quiet", false, "no plan line on stderr")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("logz: unexpected argument %q", args[0])
				}
				given := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
				switch {
				case *method != "ais" && *method != "re":
					return usagef("--method %q (expected ais or re)", *method)
				case given["budget"] && given["steps"]:
					return usagef("--budget %v and --steps %d: give one of them", budgetFlag.d, *steps)
				case given["budget"] && budgetFlag.d <= 0:
					return usagef("--budget %v (expected a positive duration of thread CPU, e.g. 60s)", budgetFlag.d)
				case given["steps"] && *steps < 1:
					return usagef("--steps %d (expected at least 1)", *steps)
				case given["runs"] && *runs < 2:
					return usagef("--runs %d (expected at least 2: the error bar comes from the runs' spread)", *runs)
				case *rungs != 0 && (*method != "re" || *rungs < 2):
					return usagef("--rungs %d: replica exchange's rungs (--method re), at least 2", *rungs)
				case *threads < 0:
					return usagef("--threads %d (expected 0 or more; 0: all available CPUs)", *threads)
				case *baseRate != "uniform" && *baseRate != "data":
					return usagef("--base-rate %q (expected uniform or data)", *baseRate)
				case *baseRate == "data" && *data == "":
					return usagef("--base-rate data fits the base-rate model to the --data rows; give --data V.npy")
				case *baseRate == "data" && (*method != "ais" || *samplerName != ""):
					return usagef("--base-rate data is the RBM AIS kernel's start (--method ais, no --sampler)")
				}
				beta, err := temp.beta()
				if err != nil {
					return err
				}
				if *out != "" {
					if err := checkOutDir("--out", *out); err != nil {
						return err
					}
				}
				m, err := loadModel(*spec)
				if err != nil {
					return err
				}
				var rows [][]uint8
				if *data != "" {
					if m.RBM == nil {
						return usagef("--data: %s is not an RBM (ln p(v) of visible rows needs hidden units to sum out)", m.Spec)
					}
					raw, err := os.ReadFile(*data)
					if err != nil {
						return usagef("--data: %v", err)
					}
					if rows, err = logz.ReadRows(raw, m.RBM.V); err != nil {
						return usagef("--data %s: %v", *data, err)
					}
				}
				n := *threads
				if n == 0 {
					cpus, _ := topology.CPUs()
					n = usableCPUs(len(cpus), runtime.GOMAXPROCS(0))
				}
				cfg := logz.Config{Model: m, Beta: beta, Sampler: *samplerName, Runs: *runs, Steps: *steps, Rungs: *rungs, Seed: *seed, Threads: n}
				if cfg.Runs == 0 {
					cfg.Runs = map[string]int{"ais": 100, "re": 16}[*method]
				}
				if *baseRate == "data" {
					cfg.BaseRate = logz.BaseRateFromData(m.RBM.V, rows)
				}
				ctx, sig, stop := signalContext()
				defer stop()
				cfg.Ctx = ctx
				return runLogz(env, cfg, logzRun{method: *method, budget: budgetFlag.d, steps: given["steps"], rows: rows, data: *data,
					out: *out, json: *asJSON, quiet: *quiet, baseRate: *baseRate, sig: sig})
			}
		},
	})
}

// logzRun is the logz command's settings beyond logz.Config.
type logzRun struct {
	method      string
	budget      time.Duration
	steps, json bool
	quiet       bool
	rows        [][]uint8
	data, out   string
	baseRate    string
	sig         func() os.Signal
}

func runLogz(env *Env, cfg logz.Config, r logzRun) error {
	start := time.Now()
	budget := r.budget
	if !r.steps && budget == 0 {
		budget = 10 * time.Second
	}
	var err error
	interrupted := func() error {
		fmt.Fprintf(env.Stderr, "sardonics: logz: interrupted after %s; nothing was kept\n", time.Since(start).Round(time.Millisecond))
		return &InterruptedError{Signal: r.sig()}
	}
	if !r.steps {
		if cfg, err = logz.Plan(cfg, r.method, budget.Seconds()); err != nil {
			if cfg.Ctx.Err() != nil {
				return interrupted()
			}
			return logzErr(err)
		}
	}
	if !r.quiet {
		what := fmt.Sprintf("%d runs of %d steps", cfg.Runs, cfg.Steps)
		if r.method == "re" {
			what = fmt.Sprintf("%d ladders of %d swap rounds", cfg.Runs, cfg.Steps)
		}
		fmt.Fprintf(env.Stderr, "logz: %s, %s on %s\n", r.method, what, plural(min(cfg.Threads, cfg.Runs), "thread"))
	}
	var est *logz.Estimate
	if r.method == "ais" {
		est, err = logz.AIS(cfg)
	} else {
		est, err = logz.RE(cfg)
	}
	if cfg.Ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		return logzErr(err)
	}
	o := &logzOutput{Model: cfg.Model.Spec, Variables: cfg.Model.Variables(), Seed: cfg.Seed, Estimate: est, WallSeconds: time.Since(start).Seconds()}
	if cfg.Beta > 0 {
		f, fe := -est.LnZ/cfg.Beta, est.Stderr/cfg.Beta
		o.FreeEnergy, o.FreeEnergyStderr = &f, &fe
	}
	if r.method == "ais" && cfg.Model.RBM != nil && cfg.Sampler == "" {
		o.BaseRate = r.baseRate
	}
	if !r.steps {
		o.BudgetSeconds = budget.Seconds()
	}
	o.Reproduce = fmt.Sprintf("--method %s --steps %d --runs %d --seed %d", r.method, cfg.Steps, cfg.Runs, cfg.Seed)
	if r.method == "re" {
		o.Reproduce += fmt.Sprintf(" --rungs %d", len(est.Ladder))
	}
	var lp []float64
	if r.rows != nil {
		lp = logz.LogProbs(logz.FreeEnergies(cfg.Model.RBM, cfg.Beta, r.rows), est.LnZ)
		mean, sd := meanSD(lp)
		se := est.Stderr
		o.Data, o.Rows, o.MeanLogProb, o.MeanLogProbStderr, o.LogProbSD = r.data, len(lp), &mean, &se, &sd
	}
	for _, w := range est.Warnings {
		fmt.Fprintf(env.Stderr, "sardonics: warning: %s\n", w)
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	if r.out != "" {
		if err := writeLogzOut(r.out, b, lp, est); err != nil {
			return err
		}
	}
	if r.json {
		fmt.Fprintln(env.Stdout, string(b))
		return nil
	}
	printLogz(env.Stdout, cfg, o)
	return nil
}

// logzErr is err as the command reports it: a budget too small, a
// sampler that cannot anneal or a bad count are usage errors (exit 2).
func logzErr(err error) error {
	var be *logz.BudgetError
	if errors.As(err, &be) {
		return usagef("--budget: %s", be.Msg)
	}
	return err
}

func printLogz(w io.Writer, cfg logz.Config, o *logzOutput) {
	est := o.Estimate
	fmt.Fprintf(w, "%s\nbeta        %.17g\n", cfg.Model.Describe(), cfg.Beta)
	switch est.Method {
	case "ais":
		fmt.Fprintf(w, "method      ais: %d runs x %d intermediate distributions, kernel %s; weights' ESS %.4g\n", est.Runs, est.Steps, est.Sampler, est.ESS)
	case "re":
		fmt.Fprintf(w, "method      re: %d ladders of %d rungs x %d swap rounds, kernel %s; Bennett's ratio on %d samples a rung per ladder\n",
			est.Runs, len(est.Ladder), est.Steps, est.Sampler, est.Kept)
	}
	fmt.Fprintf(w, "ln Z        %.6f +- %.2g\n", est.LnZ, est.Stderr)
	if o.FreeEnergy != nil {
		fmt.Fprintf(w, "F           %.6f +- %.2g   (-ln Z / beta)\n", *o.FreeEnergy, *o.FreeEnergyStderr)
	}
	if o.MeanLogProb != nil {
		fmt.Fprintf(w, "mean ln p   %.6f +- %.2g   (%d rows of %s; rows' sd %.4g)\n", *o.MeanLogProb, *o.MeanLogProbStderr, o.Rows, o.Data, *o.LogProbSD)
	}
	fmt.Fprintf(w, "cpu         %.3g s thread CPU, %.3g s wall\n", est.CPUSeconds, o.WallSeconds)
	fmt.Fprintf(w, "reproduce   %s\n", o.Reproduce)
}

// writeLogzOut writes logz.json, and log_prob.npy and log_weights.npy
// where there are values for them.
func writeLogzOut(dir string, js []byte, lp []float64, est *logz.Estimate) error {
	if err := atomicfile.WriteFileMkdir(filepath.Join(dir, "logz.json"), append(js, '\n')); err != nil {
		return err
	}
	if lp != nil {
		if err := atomicfile.WriteFileMkdir(filepath.Join(dir, "log_prob.npy"), npy.F8(lp, len(lp))); err != nil {
			return err
		}
	}
	if est.LogWeights != nil {
		if err := atomicfile.WriteFileMkdir(filepath.Join(dir, "log_weights.npy"), npy.F8(est.LogWeights, len(est.LogWeights))); err != nil {
			return err
		}
	}
	return nil
}

// meanSD are the mean and sample standard deviation of x (0 for one value).
func meanSD(x []float64) (float64, float64) {
	s := 0.0
	for _, v := range x {
		s += v
	}
	mean := s / float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	if len(x) < 2 {
		return mean, 0
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}
