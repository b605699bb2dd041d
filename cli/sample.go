package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"sardonics/draws"
	"sardonics/model"
	"sardonics/runner"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
	"sardonics/topology"
)

// temperature holds --T and --beta; each remembers whether it was given,
// so that --beta 0 (the uniform distribution) is told from no flag.
type temperature struct{ T, Beta optFloat }

// optFloat is a float64 flag that records whether it was set.
type optFloat struct {
	v   float64
	set bool
}

func (f *optFloat) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatFloat(f.v, 'g', -1, 64)
}

func (f *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range (expected a finite number)") // 1e400
	}
	if err != nil {
		return errors.New("parse error (expected a number)")
	}
	f.v, f.set = v, true
	return nil
}

func (t *temperature) register(fs *flag.FlagSet) {
	fs.Var(&t.T, "T", "temperature `T`, finite and > 0 (beta = 1/T); give --T or --beta")
	fs.Var(&t.Beta, "beta", "inverse temperature `B`, finite and >= 0 (0: the uniform distribution)")
}

// validTemperature is the accepted range, for error messages.
const validTemperature = "give --T or --beta, with T > 0 finite or B >= 0 finite (--beta 0 samples the uniform distribution)"

func (t *temperature) beta() (float64, error) {
	switch {
	case t.T.set && t.Beta.set:
		return 0, usagef("--T %s and --beta %s: give one of them, not both", t.T.String(), t.Beta.String())
	case t.T.set:
		if t.T.v == 0 {
			return 0, usagef("--T 0 is zero temperature (infinite beta), which cannot be sampled; %s", validTemperature)
		}
		if !(t.T.v > 0) || math.IsInf(t.T.v, 0) || math.IsInf(1/t.T.v, 0) {
			return 0, usagef("--T %s is out of range; %s", t.T.String(), validTemperature)
		}
		return 1 / t.T.v, nil
	case t.Beta.set:
		if !(t.Beta.v >= 0) || math.IsInf(t.Beta.v, 0) {
			return 0, usagef("--beta %s is out of range; %s", t.Beta.String(), validTemperature)
		}
		return t.Beta.v + 0, nil // -0 is 0
	}
	return 0, usagef("no temperature: %s", validTemperature)
}

// samplersAtBeta refuses metropolis at beta = 0: it accepts every flip
// there, so its sweep flips every spin and the chain alternates between a
// state and its negation instead of sampling the uniform distribution.
func samplersAtBeta(list string, beta float64) error {
	if beta != 0 {
		return nil
	}
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == "metropolis" {
			return usagef("--sampler metropolis at --beta 0 accepts every flip, so each sweep flips every spin and the chain only alternates between two states; at beta 0 use gibbs, sw, blockgibbs or sardonics")
		}
	}
	return nil
}

// defaultBurn is the burn-in of a run of 100000 steps or more without
// --burn; shorter runs discard their first fifth.
const defaultBurn = 20000

// checkSampleFlags checks sample's step, trial and thread counts and, when
// --burn was not given, sets *burn to its default: min(20000, steps/5),
// raised to the tuning steps with --tune. The note says how a default other
// than 20000 was chosen, for the first output line ("" otherwise).
func checkSampleFlags(fs *flag.FlagSet, tf *tuneFlags, steps int, burn *int, trials, offset, threads int, every time.Duration) (string, error) {
	switch {
	case steps < 1:
		return "", usagef("--steps %d (expected at least 1)", steps)
	case trials < 1:
		return "", usagef("--trials %d (expected at least 1)", trials)
	case offset < 0:
		return "", usagef("--trial-offset %d (expected 0 or more)", offset)
	case threads < 0:
		return "", usagef("--threads %d (expected 0 or more; 0: as many trials at once as CPUs)", threads)
	case every < 0:
		return "", usagef("--checkpoint-every %v (expected a duration of 0 or more; 0: checkpoint only on SIGINT and SIGTERM)", every)
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "burn" })
	if given {
		switch {
		case *burn < 0:
			return "", usagef("--burn %d (expected 0 or more)", *burn)
		case *burn >= steps:
			return "", usagef("--burn %d is not below --steps %d, so no step would be kept for the statistics; give --burn below %d (e.g. --burn %d), more --steps, or no --burn for the default min(%d, steps/5)",
				*burn, steps, steps, steps/5, defaultBurn)
		}
		return "", nil
	}
	*burn = min(defaultBurn, steps/5)
	note := ""
	if *burn < defaultBurn {
		note = "steps/5, the default below 100000 steps; set it with --burn"
	}
	if tf.tune {
		if c, err := tf.config(); err == nil && c.Steps() > *burn && c.Steps() < steps {
			*burn = c.Steps()
			note = "the tuning steps, the default with --tune; set it with --burn"
		}
	}
	return note, nil
}

// durationFlag is --budget: a Go duration, whose parse error says what is
// expected.
type durationFlag struct{ d time.Duration }

func (f *durationFlag) String() string {
	if f == nil {
		return "0s"
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("expected a duration such as 90s, 10m or 1h30m (a number with a unit: ms, s, m, h)")
	}
	f.d = d
	return nil
}

// defaultBurnFraction is --burn-fraction's default: the share of the
// default --burn in a run of fewer than 100000 steps (steps/5).
const defaultBurnFraction = 0.2

// minTrialBudget is the least thread CPU a trial of a --budget run is
// given: a trial's clock is read about every millisecond.
const minTrialBudget = time.Millisecond

// checkBudgetFlags checks --budget and --burn-fraction and what they
// exclude; budget is 0 when --budget was not given.
func checkBudgetFlags(fs *flag.FlagSet, budget time.Duration, frac float64, trials int, steps int, tune, marginals bool) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["budget"] {
		if given["burn-fraction"] {
			return usagef("--burn-fraction %g applies to --budget runs; a run of --steps discards --burn steps", frac)
		}
		return nil
	}
	switch {
	case budget <= 0:
		return usagef("--budget %v (expected a positive duration of thread CPU per sampler, e.g. 60s or 10m)", budget)
	case given["steps"]:
		return usagef("--budget %v and --steps %d: give one of them (--steps runs every trial for that many steps; --budget gives every sampler %v of thread CPU over its trials)", budget, steps, budget)
	case given["burn"]:
		return usagef("--burn with --budget: a --budget run does not know its steps in advance, and its burn-in is the steps each trial makes in the first --burn-fraction (default %g) of its CPU; give --burn-fraction F instead", defaultBurnFraction)
	case !(frac >= 0 && frac < 1):
		return usagef("--burn-fraction %g (expected 0 <= F < 1: the share of each trial's thread CPU whose steps are discarded)", frac)
	case trials >= 1 && budget/time.Duration(trials) < minTrialBudget:
		return usagef("--budget %v over %s gives each trial %v of thread CPU (expected at least %v per trial)", budget, plural(trials, "trial"), budget/time.Duration(trials), minTrialBudget)
	case tune:
		return usagef("--budget with --tune is not supported: the adaptation runs a fixed number of steps; tune first (sardonics tune, or sample --tune with --steps) and give the policy it writes with --policy FILE --budget %v", budget)
	case marginals:
		return usagef("--budget with --marginals is not supported: the marginals' batches need the measured steps in advance; run with --budget, then repeat it with --marginals and the --steps and --burn it records (summary.json, budget.reproduce)")
	}
	return nil
}

// maxSaveBest bounds --save-best: each state kept is compared with those
// of its energy when a state of that energy comes again.
const maxSaveBest = 10000

// checkSaveEvery checks --save-every K: at least 1, given with
// --save-states or --marginals (save is either), and keeping at least one
// of the steps after the burn-in.
func checkSaveEvery(k int, save bool, steps, burn int) error {
	switch {
	case k < 1:
		return usagef("--save-every %d (expected 1 or more; 1 saves the state of every step after the burn-in)", k)
	case k > 1 && !save:
		return usagef("--save-every %d thins the states that --save-states writes and --marginals measures; give either", k)
	case k > steps-burn:
		return usagef("--save-every %d is more than the %d steps after the burn-in (--steps %d, burn-in %d), so no state would be saved; give --save-every %d or less",
			k, steps-burn, steps, burn, steps-burn)
	}
	return nil
}

func loadModel(spec string) (*model.Model, error) {
	if spec == "" {
		return nil, usagef("--model is required (e.g. --model ferro2d:L=60; see sardonics help sample)")
	}
	m, err := model.Load(spec)
	if err != nil {
		// A folder given as the model (--model runs/) is not an unknown
		// spec: say what it is and what is expected instead.
		p := model.File(spec)
		if p == "" {
			p = spec
		}
		if st, serr := os.Stat(p); serr == nil && st.IsDir() {
			return nil, &model.InputError{File: "--model", Msg: p + " is a directory (expected a model file, PATH.txt, PATH.qubo, PATH.npz or PATH.npy, or a generator such as ferro2d:L=60; see sardonics help sample)"}
		}
	}
	return m, err
}

// checkOutDir refuses an output folder (--out of sample, tune, report,
// bench) that cannot be one: an existing file, or a path through one. A
// folder that does not exist yet is created by the run.
func checkOutDir(flag, dir string) error {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			return nil
		case err == nil && p == filepath.Clean(dir):
			return usagef("%s %s is an existing file (expected a directory: the folder for the outputs, created if missing)", flag, dir)
		case err == nil:
			return usagef("%s %s: %s is an existing file (expected a directory: the folder for the outputs, created if missing)", flag, dir, p)
		}
		if filepath.Dir(p) == p {
			return nil // nothing of it exists: MkdirAll says what is wrong
		}
	}
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
	fs.StringVar(&s.engine, "engine", "auto", "SAW engine: auto, tree, bucket, dense or parallel (Ising and QUBO models; auto picks dense for dense ones, parallel their partitioned form); auto, dense or parallel (RBMs)")
	fs.IntVar(&s.engineThreads, "engine-threads", 0, "sections of the parallel RBM engine (0: automatic, see help)")
}

func (s *sawFlags) config(m *model.Model, stderr interface{ Write([]byte) (int, error) }) (sawsampler.Config, error) {
	var sc sawsampler.Config
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
	if sum := th.PLL + th.PHL + th.PLH; math.Abs(sum-1) > 1e-6 {
		return sc, usagef("--params: pll+phl+plh = %.10g (expected 1: they are the probabilities of the move types LL, HL, LH, e.g. pll=0.5,phl=0.25,plh=0.25)", sum)
	}
	if !th.Irreducible(m.Variables()) {
		fmt.Fprintf(stderr, "sardonics: warning: --params %s is not irreducible (needs kl = 1 or ku > kl); the chain may not reach every state\n", th)
	}
	sc.Thetas = []saw.Theta{th}
	switch {
	case s.engineThreads < 0:
		return sc, usagef("--engine-threads %d (expected 0 or more; 0: automatic)", s.engineThreads)
	case s.engineThreads > 0 && !sawsampler.HasSections(m, s.engine):
		return sc, usagef("--engine-threads %d: only the parallel engines of RBMs and dense models have sections, and %s runs on a sparse engine (tree or bucket, one thread); use --threads for trials at once", s.engineThreads, m.Spec)
	case s.engineThreads > 1 && (s.engine == "dense" || s.engine == "tree" || s.engine == "bucket"):
		return sc, usagef("--engine-threads %d: --engine %s runs on one thread; give --engine parallel (or auto) for sections", s.engineThreads, s.engine)
	}
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
from the statistics (default min(20000, steps/5); with --tune at least the
tuning steps, which are never kept); or, with --budget, for an equal share
of thread CPU (see Budget below). --beta 0 samples the uniform
distribution. Trial t of a sampler draws only from the random stream of
(seed, t, sampler) (its random starting state, which the samplers share,
from (seed, t)), so --trials 1 --trial-offset t on separate machines
reproduces one run's trial t, and adding a sampler leaves the others' traces
unchanged. --init FILE starts the trials from given spins instead: a .npy
of uint8 rows as --save-states writes (one row for every trial, or one per
trial, row i for trial --trial-offset + i) or a text file of +1/-1 rows.

DIR/command.json records the command: a later run into DIR keeps the
finished trials of the same command (equal settings, whichever of --T and
--beta, samplers in any order, files however their paths are spelled:
m.txt, ./m.txt, its absolute path or a link to it) and refuses another,
listing what differs. It also records the SHA-256 of every file the run
reads (the model's, --init, --policy): a later run into DIR, or --resume
DIR, refuses to reuse trials of a file that has changed since, naming it,
and report merges only folders of runs on the same files. --resume runs the
command again in the directory where it started, so that its relative paths
work from anywhere. Before it starts, a run estimates the memory and disk
space it needs and refuses (exit 2) what cannot fit.

Cores: --threads N bounds the threads that compute at once (default: the
CPUs this process may use): min(N, --trials) trials run side by side, and
the threads left over step each trial's replicas in parallel or run its
engine's sections; --resume DIR --threads N continues on another core count
(the results do not depend on it).
For RBMs and dense models (SK, dense QUBOs) the sardonics engine is serial
unless --engine parallel or --engine-threads P > 1 (auto then takes the
parallel engine only on models large enough for it to win: see
parallelsaw.Pays and PaysDense); trials x engine threads never exceed the
CPUs. With
--engine parallel and no P, each trial gets CPUs / (trials at once) sections,
at most 4. Each trial running at once owns P CPUs of the affinity mask: its
coordinator is pinned to the first, its P - 1 workers to the others.

` + wrapText("Replica exchange: --replicas R runs every sampler that can change its temperature in place ("+strings.Join(temperedSamplers(), ", ")+"; not "+strings.Join(untemperedSamplers(), ", ")+") as R replicas at inverse temperatures from "+`--beta-min (default beta/10) to the target beta, geometric or, with --ladder
adaptive, moved during the first half of the burn-in until swap acceptance
is even, then fixed; --ladder variance moves them instead so that
delta-beta times the energy's standard deviation, measured at each rung, is
the same between neighbours, and stats.json (rungs_needed) and a warning say
how many replicas the range needs for swap acceptance 0.23. Neighbouring replicas swap temperatures with the exact
Metropolis rule every --swap-every steps; a step is one step of every
replica. Statistics and traces are the target replica's; stats.json adds
the ladder, swap acceptance and round trips, replicas.png shows them.
--overlap runs two independent sets and writes the overlap q of their
target replicas (overlap.csv, overlap.png, Binder ratio). --cluster icm
adds, after every swap round, Houdayer's cluster move between the two sets'
replicas at each chosen rung: the connected cluster of sites where they
differ, around one such site drawn at random, is flipped in both (it keeps
the sum of their energies, so it is always accepted; docs/replica.md). The
burn-in measures at every rung what share of the differing sites a cluster
covers and keeps the move where that is at most 0.9 of them (where they
percolate, as at hot rungs in 3D, the move only exchanges the replicas);
--cluster-beta-min B runs it at every replica with beta >= B instead.
stats.json and summary.json say per rung whether it ran, its moves and
their mean cluster. Dense models (sk, RBMs, dense .npy) are refused: every
differing site is coupled to the others, so the move cannot help. CPUs the
trials at once leave free step a trial's replicas in parallel (same
results). --replicas auto chooses R from the model: before the trials, a
pilot of the first sampler runs replica exchange on a geometric ladder of
32 replicas from --beta-min to beta (64, 128 or 256 where that is too coarse
for what it measures) for a fixed 384 swap rounds, the first 128 discarded,
from streams no trial draws from (so R depends only on the seed, the model,
the range and the kernel); the sum of its swap rejection rates estimates
the communication barrier Lambda (Syed et al. 2021), and R = 2 Lambda + 1,
the optimum of the even/odd swaps used here (about 1/2 rejection per pair),
or more where the pilot's acceptances show gaps. stderr, the settings line,
command.json (which --resume reuses), stats.json and summary.json
(replica.replicas_auto) say what it chose and why.`, 76) + `

SARDONICS settings: --params THETA is comma-separated key=value, keys not
given keeping the default kl=1,ku=10,gl=0.95,gh=1.05,pll=0.4,phl=0.3,
plh=0.3,n=1. kl, ku (1 <= kl <= ku): each walk's length is uniform on
kl..ku (clamped to the model's size); n (>= 1): a move is n walks at bias a
and n at bias b; gl, gh (> 0): the low and high biases, gamma = gl*beta
and gh*beta; pll, phl, plh (>= 0, summing to 1): the probabilities of the
move types (a, b) = (low, low), (high, low), (low, high). --weight: a walk
picks bit l with weight 1/(1 + exp(gamma dE_l)) (logistic) or
exp(-gamma dE_l) (exp), dE_l its energy change. --layout blocks: the n
walks at bias a, then the n at b; pairs: n pairs (a, b), each with its own
type. --accept marginal: the proposal density sums over the types (the
authors' rule); joint: the drawn types are part of the path. Every choice
is exact. --sampler hybrid: each step is A Metropolis sweeps then M
SARDONICS moves (--mix A:M; default 1 sweep and a sweep's worth of flips).

Budget: --budget DURATION (e.g. 60s, 10m) replaces --steps: every sampler
gets DURATION of thread CPU over all its trials, each trial DURATION/trials,
so that samplers whose steps cost differently compare at equal cost. A
trial's CPU is its own thread's, its replica workers' and engine sections'
(CLOCK_THREAD_CPUTIME_ID, as cpu_seconds), a resumed trial's earlier CPU
included; it reads that clock about every millisecond of CPU and stops at
the first reading past its share. Its burn-in is the steps it made in the
first --burn-fraction F of its CPU (default 0.2, as --burn's steps/5;
--burn is refused); where half the burn-in matters (an adaptive ladder
moves until then, hybrid's cycle tuning starts then), half is
the steps of the first F/2 and the burn-in twice those. Trials so make
different numbers of steps: the means pool every kept draw of every trial,
the ESS and R-hat (and so the errors) the last n kept draws of each, n the
shortest trial's. The table's steps, flips/step and sweeps (flips / N, all
trials) show the work each sampler did. Where a trial stops depends on the
machine, so a --budget run is not repeatable bit for bit: stats.json and
summary.json record each trial's steps and burn-in, and --steps S --burn B
(--trials 1 --trial-offset T for trial T alone) repeats a trial of S steps
and burn-in B exactly, on any machine (summary.json's budget.reproduce
gives the flags). Before the run a pilot of each sampler estimates the
steps, and a budget whose traces cannot fit in memory or on disk is
refused. Not with --tune or --marginals. Split across jobs (--trials 1
--trial-offset T), each job's trial gets the whole --budget: give each
--budget B/K to split a run of --budget B over K trials.

Observables: besides the energy, every step records the magnetization
M = sum_i s_i over all N spins of the Ising form (an RBM's visible and
hidden units as +-1). The second table and summary.json give, over the kept
steps of all trials, m = M/N, |m|, the specific heat C = beta^2 Var(E)/N and
the susceptibility chi = beta N Var(x), x = |m| for a model without fields
(where <m> = 0 by symmetry), m otherwise; each with its standard error,
pooled bulk ESS and R-hat (docs/formats.md, section 9).

Saved states: --save-states writes the states after the burn-in, one in
--save-every K of them (default every one), as states.npy (one row of bits
x = (1 + s)/2 per saved step, in order) and samples.npz (the distinct saved
states as packed bits, their energies and how often each was saved). --marginals measures
at the same steps every spin's mean <s_i> and the correlation <s_i s_j> of
every interacting pair i < j (an RBM's visible-hidden pairs), with
batch-means standard errors (32 batches per trial), written per trial and
pooled as SAMPLER/marginals.npy (N x 2: mean, stderr) and
SAMPLER/correlations.npy (pairs x 4: i, j, mean, stderr).

Lowest states: summary.json gives each sampler's lowest energy of any step
(lowest: the energy, the trial and step that first reached it, how many
trials did), also printed under the table; --save-best K writes the K
lowest distinct states of all trials to SAMPLER/best.txt (a comment line,
then per state its energy, trial, first step and variables as 0/1: one
numpy.loadtxt call reads it).

Writes DIR/summary.json, DIR/acf.png, DIR/trace.png, DIR/SAMPLER/trial-T/
(energy.csv, magnetization.csv, stats.json; states.npy and samples.npz
with --save-states) and, after tuning, DIR/rewards.png and DIR/tuning.csv.
--no-figures skips the .png files (to profile sampling alone, for
example).`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			var temp temperature
			var sf sawFlags
			var tf tuneFlags
			spec := fs.String("model", "", modelUsage())
			temp.register(fs)
			samplers := fs.String("sampler", "sardonics,gibbs", "comma-separated `LIST` of samplers: "+strings.Join(sampler.Names(), ", "))
			mix := fs.String("mix", "", "hybrid's cycle `A:M`: A Metropolis sweeps then M SARDONICS moves per step (default: 1 sweep and a sweep's worth of SARDONICS flips)")
			steps := fs.Int("steps", 100000, "steps per trial (or --budget)")
			burn := fs.Int("burn", 0, "steps discarded from the statistics, still written to energy.csv (default min(20000, steps/5), with --tune at least the tuning steps)")
			trials := fs.Int("trials", 10, "independent trials per sampler")
			offset := fs.Int("trial-offset", 0, "number of the first trial (for splitting a run across jobs)")
			seed := fs.Uint64("seed", 1, "random seed")
			threads := fs.Int("threads", 0, "at most `N` threads compute at once: trials side by side first, then the replica workers or engine sections of each (0: all available CPUs)")
			out := fs.String("out", "", "output `DIR` (required)")
			save := fs.Bool("save-states", false, "write the kept states of each trial as states.npy (uint8, one row per saved step) and samples.npz (the distinct states as packed bits, with their energies and counts)")
			saveBest := fs.Int("save-best", 0, "keep the `K` lowest distinct states each trial reaches at any step (its burn-in included) and write the K lowest of all trials to SAMPLER/best.txt: energy, trial, step, then the variables as 0/1")
			saveEvery := fs.Int("save-every", 1, "with --save-states and --marginals, save and measure one state in `K` of the steps after the burn-in (those of steps burn+K, burn+2K, ...)")
			saveTrace := fs.Bool("save-trace", false, "also stream every step's energy, magnetization (and overlap) to energy.npy, magnetization.npy (and overlap.npy) in each trial's folder: 8, 4 (and 8) bytes a step, burn-in included (the CSVs hold the kept draws)")
			traceDraws := fs.Int("trace-draws", draws.DefaultCap, "keep at most `K` draws of each observable in each phase (burn-in, then after it) of a trial, evenly spaced: a longer phase is thinned by an interval that doubles as it grows; means and variances still use every step")
			marginals := fs.Bool("marginals", false, "measure every spin's mean <s_i> and every interacting pair's <s_i s_j> with batch-means errors (SAMPLER/marginals.npy, SAMPLER/correlations.npy; measuring costs O(spins + pairs) per measured step: see --save-every)")
			initFile := fs.String("init", "", "start from the states in `FILE` instead of random ones: a .npy of uint8 0/1 rows as --save-states writes, or a text file of +1/-1 rows; one row for every trial, or --trials rows, row i for trial --trial-offset + i")
			quiet := fs.Bool("quiet", false, "no progress lines (a stalled trial is still named on stderr)")
			noFigures := fs.Bool("no-figures", false, "skip acf.png, trace.png and rewards.png (the data files are written; sardonics report can draw the figures later)")
			every := fs.Duration("checkpoint-every", 0, "write every running trial's complete state to DIR/checkpoint every `DURATION` (e.g. 10m); SIGINT and SIGTERM always checkpoint")
			resume := fs.String("resume", "", "continue the interrupted run in `DIR` with its original flags; the result is identical to an uninterrupted run")
			var budgetFlag durationFlag
			fs.Var(&budgetFlag, "budget", "instead of --steps, give every sampler `DURATION` of thread CPU over all its trials (e.g. 60s, 10m: each trial DURATION/trials, workers included); not repeatable bit for bit: see Budget above")
			burnFraction := fs.Float64("burn-fraction", defaultBurnFraction, "with --budget: discard the steps each trial makes in the first `F` of its thread CPU (0 <= F < 1)")
			sf.register(fs)
			tf.register(fs)
			var rf replicaFlags
			rf.register(fs)
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("sample: unexpected argument %q", args[0])
				}
				if *resume != "" {
					return resumeSample(fs, *resume, env)
				}
				ctx, sig, quit := signalContext()
				defer quit()
				var cfg *runner.Config
				var saved *savedCommand
				// Loading and checking keep nothing: a signal ends them at
				// once, however long a big model takes to read.
				err := untilSignal(ctx, func() error {
					beta, err := temp.beta()
					if err != nil {
						return err
					}
					if err := samplersAtBeta(*samplers, beta); err != nil {
						return err
					}
					if *out == "" {
						return usagef("--out DIR is required")
					}
					if err := checkOutDir("--out", *out); err != nil {
						return err
					}
					if err := checkBudgetFlags(fs, budgetFlag.d, *burnFraction, *trials, *steps, tf.tune, *marginals); err != nil {
						return err
					}
					budgeted := budgetFlag.d > 0
					burnNote, err := checkSampleFlags(fs, &tf, *steps, burn, *trials, *offset, *threads, *every)
					if err != nil {
						return err
					}
					if budgeted { // the steps are not known: only K and what it thins
						err = checkSaveEvery(*saveEvery, *save || *marginals, math.MaxInt, 0)
					} else {
						err = checkSaveEvery(*saveEvery, *save || *marginals, *steps, *burn)
					}
					if err != nil {
						return err
					}
					if *saveBest < 0 || *saveBest > maxSaveBest {
						return usagef("--save-best %d (expected 0 to %d: the lowest distinct states a trial keeps)", *saveBest, maxSaveBest)
					}
					if *traceDraws < draws.MinCap {
						return usagef("--trace-draws %d (expected at least %d: the diagnostics split each trial's draws into chains of a few dozen)", *traceDraws, draws.MinCap)
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
					var info io.Writer
					if !*quiet {
						info = env.Stderr
					}
					plan, cpus, ncpu := planFor(env.Stderr, info, *trials, *threads, names, sc, sawsampler.ParallelFor(m, sc.Engine, sc.EngineThreads))
					par := plan.trials
					sc.EngineThreads = plan.engineThreads
					if sc.Mix, err = parseMix(*mix, names); err != nil {
						return err
					}
					sc.CPUs = cpus
					cfg = &runner.Config{Model: m, Beta: beta, Samplers: names, Steps: *steps, Burn: *burn,
						Trials: *trials, TrialOffset: *offset, Seed: *seed, Threads: par, SAW: sc, SaveStates: *save, SaveBest: *saveBest, SaveEvery: *saveEvery, Marginals: *marginals,
						SaveTrace: *saveTrace, TraceCap: *traceDraws}
					if budgeted {
						cfg.TrialBudget, cfg.BurnFraction = budgetFlag.d.Seconds()/float64(*trials), *burnFraction
						cfg.Steps, cfg.Burn = 0, 0 // the step bound is set by budgetSize below
					}
					if err := tf.apply(cfg, m, sf.params != ""); err != nil {
						return err
					}
					budget := ncpu // threads the run may compute on
					if *threads > 0 {
						budget = min(ncpu, *threads)
					}
					if err := rf.apply(cfg, budget); err != nil {
						return err
					}
					if err := rf.chooseAuto(fs, cfg, *out, budget, env); err != nil {
						return err
					}
					if !*quiet {
						cfg.Progress, cfg.ProgressTTY = env.Stderr, isTerminal(env.Stderr)
					}
					cfg.Warnings = env.Stderr // a stalled trial is named even with --quiet
					cfg.CheckpointEvery = *every
					var expect []int // a budget run's expected steps per trial, by sampler
					if budgeted {
						if expect, err = budgetSize(cfg, *out); err != nil {
							return err
						}
						cfg.ExpectedSteps = expect
					} else if err := checkSize(cfg, *out); err != nil {
						return err
					}
					if cfg.Init, err = readInit(*initFile, m.Variables(), *trials); err != nil {
						return err
					}
					saved, err = saveCommand(fs, cfg, *out, env)
					if err != nil {
						return err
					}
					if budgeted {
						fmt.Fprint(env.Stderr, statesNote(expectedRun(cfg, slices.Max(expect))))
					} else {
						fmt.Fprint(env.Stderr, statesNote(cfg))
					}
					if burnNote != "" {
						burnNote = ": " + burnNote
					}
					if budgeted {
						fmt.Fprintf(env.Stdout, "%s, beta = %g, %s x %v of thread CPU each (--budget %v per sampler; burn-in: the steps of each trial's first %g%% of its CPU), %d at a time\n",
							m.Describe(), beta, plural(*trials, "trial"), time.Duration(cfg.TrialBudget*1e9), budgetFlag.d, 100*cfg.BurnFraction, par)
						fmt.Fprintf(env.Stderr, "sardonics: --budget: %s (a pilot's rough estimate)\n", expectedSteps(names, expect))
					} else {
						fmt.Fprintf(env.Stdout, "%s, beta = %g, %s x %d steps (burn-in %d%s), %d at a time\n", m.Describe(), beta, plural(*trials, "trial"), *steps, *burn, burnNote, par)
					}
					if note := m.GridNote(); note != "" {
						fmt.Fprintf(env.Stdout, "%s\n", note)
					}
					if d := rf.describe(cfg); d != "" {
						fmt.Fprintf(env.Stdout, "%s\n", d[2:])
					}
					return nil
				})
				if ctx.Err() != nil {
					fmt.Fprintf(env.Stderr, "sardonics: %v before the first trial started; nothing was run\n", sig())
					return &InterruptedError{Signal: sig()}
				}
				if err != nil {
					return err
				}
				return saved.finish(runAndWrite(ctx, sig, cfg, *out, env, settingsString(sf, tf)+mixString(*mix)+saved.settings()+cfg.Replicas.String(), !*noFigures))
			}
		},
	})
}

// wrapText breaks s at spaces into lines of at most width bytes (a longer
// word keeps a line of its own): help text built from lists that change.
func wrapText(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// humanCount writes a count to 3 significant digits with a word for
// millions and billions: 950, 12300, 13.3 million.
func humanCount(n int) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.3g billion", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.3g million", float64(n)/1e6)
	}
	return strconv.Itoa(n)
}

// maxAutoEngineThreads caps the automatic section count of the parallel
// engine: its barrier was measured to pay up to 4 sections (2.0x at 4 on a
// 16-CPU VM, 1.7x at 2), while 8 and 16 were fast on one lease of that VM
// and 10-50x slower on another, before the coordinator learnt to run the
// sections of descheduled workers itself (see parallelsaw/sync.go); not
// re-measured since. --engine-threads still sets any count.
const maxAutoEngineThreads = 4

// parseMix reads --mix A:M (A Metropolis sweeps, M SARDONICS moves; "":
// hybrid's default), which only the hybrid sampler takes.
func parseMix(s string, names []string) ([2]int, error) {
	var mix [2]int
	if s == "" {
		return mix, nil
	}
	if !slices.Contains(names, "hybrid") {
		return mix, usagef("--mix %s: only --sampler hybrid takes a cycle", s)
	}
	a, m, ok := strings.Cut(s, ":")
	var err1, err2 error
	if ok {
		mix[0], err1 = strconv.Atoi(a)
		mix[1], err2 = strconv.Atoi(m)
	}
	if !ok || err1 != nil || err2 != nil || mix[0] < 0 || mix[1] < 0 || mix[0]+mix[1] == 0 || mix[0] > 1e6 || mix[1] > 1e9 {
		return mix, usagef("--mix %q (expected A:M, Metropolis sweeps and SARDONICS moves per step, >= 0 and not both 0, e.g. 1:10)", s)
	}
	return mix, nil
}

// mixString is --mix in the run's settings, when given.
func mixString(s string) string {
	if s == "" {
		return ""
	}
	return " mix=" + s
}

// settingsString is the run's sardonics settings (summary.Meta.Settings),
// the --policy file by its canonical path (not as spelled: see
// canonicalSetting).
func settingsString(sf sawFlags, tf tuneFlags) string {
	return fmt.Sprintf("params=%s layout=%s weight=%s accept=%s engine=%s tune=%v policy=%s iterations=%d iter-steps=%d reward=%s bounds=%s kernels=%d",
		sf.params, sf.layout, sf.weight, sf.accept, sf.engine, tf.tune, canonicalSetting("policy", tf.policy, ""), tf.iterations, tf.iterSteps, tf.reward, tf.bounds, tf.kernels)
}

// runAndWrite runs cfg, writing every output into dir (the figures only if
// figures is true). A signal (ctx done; sig tells which) checkpoints every
// running trial and stops; one during the summary stops at once, as every
// trial is kept and --resume writes the summary again.
func runAndWrite(ctx context.Context, sig func() os.Signal, cfg *runner.Config, dir string, env *Env, settings string, figures bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg.Dir = dir
	// The model by its canonical spec: a run of m.txt and one of
	// /abs/m.txt are the same run (checkpoints, report).
	cfg.Meta = summary.Meta{Spec: canonicalSpec(cfg.Model.Spec, ""), Variables: cfg.Model.Variables(), Interactions: cfg.Model.Interactions(),
		Beta: cfg.Beta, Seed: cfg.Seed, Steps: cfg.Steps, BurnIn: cfg.Burn, Settings: settings}
	if cfg.TrialBudget > 0 { // the step bound depends on the machine: not the run's identity
		cfg.Meta.Steps, cfg.Meta.BurnIn = 0, 0
		cfg.Meta.TrialBudget, cfg.Meta.BurnFraction = cfg.TrialBudget, cfg.BurnFraction
	}
	cfg.Stop = new(atomic.Bool)
	defer context.AfterFunc(ctx, func() { cfg.Stop.Store(true) })()
	// The wall time of earlier processes of this run (see wall.go).
	earlier := readWall(dir)
	before := earlierWall(cfg, dir, earlier)
	start := time.Now()
	recs, wall, err := runner.Run(cfg)
	if errors.Is(err, runner.ErrInterrupted) {
		if werr := saveWall(dir, earlier+time.Since(start).Seconds()); werr != nil {
			fmt.Fprintf(env.Stderr, "sardonics: warning: %v: the resumed run's wall_seconds will lack this part\n", werr)
		}
		fmt.Fprintf(env.Stderr, "sardonics: %v: finished trials and checkpoints are in %s; continue with: %s\n", sig(), dir, resumeHint("sample", dir))
		return &InterruptedError{Signal: sig()}
	}
	if err != nil {
		return err
	}
	ran := time.Since(start).Seconds()
	for name, w := range before {
		wall[name] += w
	}
	// The summary needs only the trials' records and cfg.Meta: let the
	// model (about 60 MB at 10^6 spins) go before it, and collect it and
	// the chains now, so that the summary reuses their memory: the heap
	// would otherwise grow to twice the sampling's before the first
	// collection comes due (a collection takes milliseconds here).
	cfg.Model = nil
	runtime.GC()
	var sum *summary.Summary
	var results []*summary.Result
	if cfg.Progress != nil {
		// The diagnostics of long traces take a while (of order a minute
		// per 10^7 steps on a 2-core VM): the progress lines' ETA counts
		// them, and this line says they have begun, so that they do not
		// look like a hang.
		steps, kept, trials := 0, 0, 0
		for _, rs := range recs {
			for _, r := range rs {
				steps += r.StepsMade()
				kept += len(r.Energies)
				trials++
			}
		}
		fmt.Fprintf(env.Stderr, "sardonics: trials done; summarizing their %s steps (%s, %s draws kept): pooled ESS and R-hat, observables, figures\n",
			humanCount(steps), plural(trials, "trial"), humanCount(kept))
	}
	sumCPU, sumWall := runner.ProcessCPU(), time.Now()
	err = untilSignal(ctx, func() (err error) {
		// The samplers' summaries side by side, on the threads the
		// trials ran on.
		results = summary.SummarizeAll(cfg.Samplers, recs, cfg.Steps, cfg.Burn, wall, cfg.Threads)
		sum, err = summary.WriteOutputs(dir, cfg.Meta, topology.Describe(), results, recs, figures)
		return err
	})
	if ctx.Err() != nil {
		// The trials' time counts in the summary --resume writes.
		if werr := saveWall(dir, earlier+ran); werr != nil {
			fmt.Fprintf(env.Stderr, "sardonics: warning: %v: the resumed run's wall_seconds will lack this part\n", werr)
		}
		fmt.Fprintf(env.Stderr, "sardonics: %v while writing the summary: every trial is finished and kept in %s; write the summary with: %s\n", sig(), dir, resumeHint("sample", dir))
		return &InterruptedError{Signal: sig()}
	}
	if err != nil {
		return err
	}
	if cfg.Progress != nil {
		trialCPU := 0.0
		for _, r := range results {
			trialCPU += r.CPUSeconds
		}
		c := runner.ProcessCPU() - sumCPU
		fmt.Fprintf(env.Stderr, "sardonics: summary and files: %.2g s wall, %.2g s CPU (%.2g%% of the trials' %.3g s)\n",
			time.Since(sumWall).Seconds(), c, 100*c/trialCPU, trialCPU)
	}
	os.RemoveAll(filepath.Join(dir, "checkpoint"))
	printSummary(env, results, sum.Warnings, dir)
	return nil
}
