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
		Usage: "--model SPEC (--T T | --beta B) [--json [--marginals]] [--threads N]",
		Short: "exact ln Z, energy moments, m, |m|, C, chi (and marginals) by enumeration (M <= 30)",
		Long: `Enumerates every state in Gray-code order (one flip and one incremental energy
update per state) for Ising and QUBO models with at most 30 variables, and for
RBMs whose smaller layer has at most 30 units (the other layer is summed out
analytically). Sums are stabilised (log-sum-exp, compensated accumulation).

Besides ln Z and the energy's mean and variance it prints the observables
sample reports, defined as there (N spins of the Ising form, an RBM's visible
and hidden units together as +-1; M = sum_i s_i): <m> and <|m|> of m = M/N,
C = beta^2 Var(E)/N and chi = beta N Var(x), x = |m| when every field of the
Ising form is zero and m otherwise (the JSON's susceptibility_of says which).

--marginals (with --json) adds <s_i> of every spin ("marginals") and
[i, j, <s_i s_j>] of every coupled pair in sample --marginals's order
("correlations"; an RBM's are its V x H visible-hidden pairs). An Ising or
QUBO model takes one more pass of per-state weights for them (1.5 to 2.5 times
as long in all); an RBM about 10% longer.

For an RBM, <|m|> needs the law of the summed-out layer's number of up units
given each enumerated state (a Poisson binomial), of up to (larger layer)^2 / 4
operations per state: a 14 x 14 RBM takes 1.2 times as long as without it,
12 x 100 1.4 times, 10 x 400 3 times.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			var temp temperature
			spec := fs.String("model", "", "model `SPEC` (see sardonics help sample)")
			temp.register(fs)
			asJSON := fs.Bool("json", false, "print JSON: variables, beta, ln_z, energy_mean, energy_var, energy_distribution[, visible_means], magnetization, abs_magnetization, specific_heat, susceptibility, susceptibility_of")
			marginals := fs.Bool("marginals", false, "with --json, also print <s_i> of every spin (marginals) and [i, j, <s_i s_j>] of every coupled pair (correlations)")
			threads := fs.Int("threads", 0, "at most `N` threads enumerate at once (0: all available CPUs)")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("exact: unexpected argument %q", args[0])
				}
				if *marginals && !*asJSON {
					return usagef("exact: --marginals prints <s_i> and <s_i s_j> in the JSON output only (add --json)")
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
				progress := func(visited int64, el time.Duration) {
					rate := float64(visited) / el.Seconds()
					done := math.Mod(float64(visited), pass)
					eta := "?"
					if rate > 0 {
						eta = time.Duration((pass - done) / rate * float64(time.Second)).Round(time.Second).String()
					}
					fmt.Fprintf(env.Stderr, "exact: %.3g states of %.3g per pass (pass %d), %.3g states/s, ETA %s for this pass\n",
						done, pass, int(float64(visited)/pass)+1, rate, eta)
				}
				res, err := exact.EnumerateOptions(ctx, m, beta, exact.Options{Marginals: *marginals, Progress: progress, Interval: runner.ProgressInterval})
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
				fmt.Fprintf(env.Stdout, "mean m      %.17g\nmean |m|    %.17g\nC           %.17g\n%-11s %.17g\n",
					res.Magnetization, res.AbsMagnetization, res.SpecificHeat, "chi of "+res.SusceptibilityOf, res.Susceptibility)
				return nil
			}
		},
	})
}
