package cli

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"sardonics/paper"
	"sardonics/runner"
)

func init() {
	register(&Command{
		Name:  "paper",
		Usage: "[--out DIR] [--experiment NAME] [--scale F] | --resume DIR",
		Short: "reproduce the paper's experiments, figures and timing table",
		Long: `Runs the experiments of the SARDONICS paper with its protocol: 10 trials per
sampler of 10^5 steps, SARDONICS tuned by Bayesian optimization during the
first 2*10^4 steps, the first 2*10^4 steps of every sampler discarded.
Experiments: ferro-T1, ferro-T2.27, ferro-T5 (ferro2d:L=60), frustrated2d,
spinglass3d, rbm (paper-rbm), chimera. --scale F shortens every run to F
times the paper's length. Writes DIR/EXPERIMENT/ (as sample does),
DIR/table.md and DIR/claims.md. Finished trials are written as they finish;
SIGINT or SIGTERM checkpoints the running trials and stops, and
--resume DIR (or the same command again) keeps the finished experiments and
trials, resumes the rest, and ends with the output an uninterrupted run
gives.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			out := fs.String("out", "results/paper", "output `DIR`")
			ex := fs.String("experiment", "", "run only experiment `NAME`")
			scale := fs.Float64("scale", 1, "fraction of the paper's run length")
			trials := fs.Int("trials", 10, "trials per sampler")
			seed := fs.Uint64("seed", 1, "random seed")
			threads := fs.Int("threads", 0, "trials run at once (0: all CPUs)")
			quiet := fs.Bool("quiet", false, "no progress lines")
			tablesOnly := fs.Bool("tables-only", false, "rebuild table.md and claims.md from the summaries already in DIR")
			resume := fs.String("resume", "", "continue the interrupted paper run in `DIR` with its own settings")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("paper: unexpected argument %q", args[0])
				}
				if !(*scale > 0) || *scale > 1 {
					return usagef("--scale %v (expected 0 < F <= 1)", *scale)
				}
				cfg := paper.Config{Out: *out, Scale: *scale, Only: *ex, Trials: *trials, Seed: *seed, Threads: *threads, TablesOnly: *tablesOnly}
				if *resume != "" {
					sv, err := paper.ReadSaved(*resume)
					if err != nil {
						return usagef("--resume %s: no paper run to continue there (%v)", *resume, err)
					}
					cfg.Out, cfg.Scale, cfg.Only, cfg.Trials, cfg.Seed = *resume, sv.Scale, sv.Only, sv.Trials, sv.Seed
				}
				if !*quiet {
					cfg.Progress = env.Stderr
				}
				stop, sig, quit := catchSignals()
				defer quit()
				cfg.Stop = stop
				start := time.Now()
				if err := paper.Run(cfg, env.Stdout); err != nil {
					if errors.Is(err, runner.ErrInterrupted) {
						fmt.Fprintf(env.Stderr, "sardonics: paper: %v: finished experiments and trials and the running trials' checkpoints are in %s; continue with: %s\n", sig(), cfg.Out, resumeHint("paper", cfg.Out))
						return &InterruptedError{Signal: sig()}
					}
					return err
				}
				env.Stdout.Write([]byte("paper run took " + time.Since(start).Round(time.Second).String() + "\n"))
				return nil
			}
		},
	})
}
