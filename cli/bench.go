package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sardonics/atomicfile"
	"sardonics/bench"
)

func init() {
	register(&Command{
		Name:  "bench",
		Usage: "[--out DIR] [--budget 1s] [--only GROUP] [--ess] [--cc gcc]",
		Short: "run the benchmark suite and write bench.json",
		Long: `Measures, in thread CPU time, each kernel for --budget: Gibbs and Metropolis
ns per spin update, Swendsen-Wang ns per spin per step, SARDONICS ns per
proposed flip (bucket and tree engines), block-Gibbs us per sweep and the
dense and parallel RBM engines' ns per proposed flip.

The trial group prices whole trials as sample runs them (cpu_seconds over
flips of a trial with --burn 0, up to 10^5 steps, median of 3): SARDONICS's
bucket engine on frustrated2d:L=60,seed=1, tree engine on
chimera:M=4,N=4,T=4,seed=1 and dense engine on
rbm-random:V=784,H=500,seed=1,scale=0.1 (all T=1), and Metropolis for scale;
then the dense Ising engines on sk:N=1000,seed=1 at beta 2 (SARDONICS per
flip, Metropolis and Gibbs per proposed update). The load group times
loading sk:N=4096 back from a float64 .npy file (seconds, median of 3). The
parallel group measures the wall speedup of the parallel engine at P = 2
over the serial dense engine on RBMs of 784 x 500, 2048 x 2048 and 4096 x
4096 and checks --engine auto's crossover against it. The scale group prices
the same whole trials at the sizes users run beside each engine's small
model, with the ratio and each line's peak RSS (bytes per spin): the bucket
on frustrated2d:L=1000 (10^6 spins) and spinglass3d:L=64 against
frustrated2d:L=60, the tree on chimera:M=180,N=180,T=4 against C(4,4,4),
Metropolis on L=1000 against L=60 (fixed lengths: 10^5 SARDONICS moves,
3.6 x 10^7 Metropolis updates, whatever --budget).
Beside them it compiles bench/cref/metropolis.c with --cc (cached in the
system's temporary folder), times that tight C Metropolis sweep in the same
run and prints each line's ratio to its ns per update on ferro2d:L=60; with
no compiler it says "C yardstick: n/a (no gcc)" and measures the rest.

The handoff group prices a hand-off between two threads on this machine, one
way in ns (median of a ping-pong between two locked threads): between two
spinning threads, and to a parked thread (its wake-up). Replica exchange's
worker pool and the parallel engine's sections use a second thread only
when a round (a flip's command) costs more than its share on two threads
plus two spin hand-offs, and keep it only while it measures faster by more
than the CPU the threads spend waiting for each other.

--ess adds ESS per CPU-second of every sampler on frustrated2d:L=60 (T=1)
and spinglass3d:L=9 (beta=1) from short runs. GROUP is one of handoff,
gibbs, metropolis, sw, saw, rbm, parallel, scale, load, trial, ess.

Writes DIR/bench.json (--out DIR, created if missing); without --out, into
a new folder bench-YYYYMMDD-HHMMSS-N in the system's temporary folder
(never the working directory, which may be a source tree), and prints its
path.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			out := fs.String("out", "", "folder for bench.json (default: a new folder in the system's temporary folder)")
			budget := fs.Duration("budget", time.Second, "CPU time per measurement")
			only := fs.String("only", "", "run only the lines of this `GROUP`")
			ess := fs.Bool("ess", false, "also measure ESS per CPU-second (about a minute)")
			cc := fs.String("cc", "gcc", "`NAME` of the C compiler for the C yardstick (none skips it)")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("bench: unexpected argument %q", args[0])
				}
				if *out != "" {
					if err := checkOutDir("--out", *out); err != nil {
						return err
					}
				}
				started := time.Now()
				// SIGINT or SIGTERM stops the suite within a moment; the
				// lines measured so far are kept in bench.json.
				ctx, sig, stop := signalContext()
				defer stop()
				rep, err := bench.Run(bench.Config{Budget: *budget, ESS: *ess, Only: *only, Out: env.Stdout, CC: *cc, Ctx: ctx})
				stopped := errors.Is(err, bench.ErrStopped)
				if err != nil && !stopped {
					return err
				}
				fmt.Fprintf(env.Stdout, "machine: %s, %s\n", rep.Machine, rep.Go)
				b, err := rep.JSON()
				if err != nil {
					return err
				}
				dir := *out
				if dir == "" {
					// A fresh folder each run, outside any source tree: the
					// default once was ".", which overwrote a tracked
					// bench.json when run from the repository.
					if dir, err = os.MkdirTemp("", "bench-"+started.Format("20060102-150405")+"-"); err != nil {
						return err
					}
				}
				path := filepath.Join(dir, "bench.json")
				if err := atomicfile.WriteFileMkdir(path, append(b, '\n')); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "wrote %s\n", path)
				if stopped {
					fmt.Fprintf(env.Stderr, "sardonics: bench: %v: stopped; the %d lines measured so far are in %s\n", sig(), len(rep.Lines), path)
					return &InterruptedError{Signal: sig()}
				}
				return nil
			}
		},
	})
}
