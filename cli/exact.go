package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"runtime"
	"time"

	"sardonics/exact"
	"sardonics/runner"
)

func init() {
	register(&Command{
		Name:  "exact",
		Usage: "--model SPEC (--T T | --beta B) [--json] [--threads N]",
		Short: "exact ln Z, mean and variance of the energy by enumeration (M <= 30)",
		Long: `Enumerates every state in Gray-code order (one flip and one incremental energy
update per state) for Ising and QUBO models with at most 30 variables, and for
RBMs whose smaller layer has at most 30 units (the other layer is summed out
analytically). Sums are stabilised (log-sum-exp, compensated accumulation).`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			var temp temperature
			spec := fs.String("model", "", "model `SPEC` (see sardonics help sample)")
			temp.register(fs)
			asJSON := fs.Bool("json", false, "print JSON: variables, beta, ln_z, energy_mean, energy_var, energy_distribution[, visible_means]")
			threads := fs.Int("threads", 0, "at most `N` threads enumerate at once (0: all available CPUs)")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("exact: unexpected argument %q", args[0])
				}
				if *threads < 0 {
					return usagef("--threads %d (expected 0 or more; 0: all available CPUs)", *threads)
				}
				if *threads > 0 { // the enumeration's workers are GOMAXPROCS
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(min(*threads, runtime.GOMAXPROCS(0))))
				}
				beta, err := temp.beta()
				if err != nil {
					return err
				}
				m, err := loadModel(*spec)
				if err != nil {
					return err
				}
				// SIGINT or SIGTERM abandons the enumeration (it keeps
				// nothing: it is not resumable) within milliseconds.
				ctx, sig, stop := signalContext()
				defer stop()
				start := time.Now()
				// A long enumeration says how far it is, every
				// ProgressInterval, on stderr: states visited, rate, and the
				// ETA of the current pass.
				pass := exact.PassStates(m)
				res, err := exact.EnumerateProgress(ctx, m, beta, runner.ProgressInterval, func(visited int64, el time.Duration) {
					rate := float64(visited) / el.Seconds()
					done := math.Mod(float64(visited), pass)
					eta := "?"
					if rate > 0 {
						eta = time.Duration((pass - done) / rate * float64(time.Second)).Round(time.Second).String()
					}
					fmt.Fprintf(env.Stderr, "exact: %.3g states of %.3g per pass (pass %d), %.3g states/s, ETA %s for this pass\n",
						done, pass, int(float64(visited)/pass)+1, rate, eta)
				})
				if ctx.Err() != nil {
					fmt.Fprintf(env.Stderr, "sardonics: exact: interrupted after %s; nothing was kept (an enumeration is not resumable)\n", time.Since(start).Round(time.Millisecond))
					return &InterruptedError{Signal: sig()}
				}
				if err != nil {
					return usagef("exact: %v", err)
				}
				if *asJSON {
					b, err := json.MarshalIndent(res, "", "  ")
					if err != nil {
						return err
					}
					fmt.Fprintln(env.Stdout, string(b))
					return nil
				}
				fmt.Fprintf(env.Stdout, "%s\nbeta        %.17g\nln Z        %.17g\nmean E      %.17g\nvar E       %.17g\n", m.Describe(), beta, res.LnZ, res.EnergyMean, res.EnergyVar)
				return nil
			}
		},
	})
}
