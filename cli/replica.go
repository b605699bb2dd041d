package cli

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sardonics/model"
	"sardonics/replica"
	"sardonics/runner"
	"sardonics/sampler"
)

// replicaFlags are sample's replica-exchange settings.
type replicaFlags struct {
	count       replicaCount
	betaMin     float64
	swapEvery   int
	swapWork    float64
	tuneSeconds float64
	ladder      string
	overlap     bool
	cluster     string
	clusterBeta float64
}

func (f *replicaFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.count, "replicas", "replica exchange: run each sampler as `R` replicas (R >= 2) from --beta-min to the target beta, swapping neighbours (0: off); auto: R from a short pilot's communication barrier (2 x the sum of its swap rejection rates + 1)")
	fs.Float64Var(&f.betaMin, "beta-min", 0, "the hottest replica's inverse temperature (default: beta / 10)")
	fs.IntVar(&f.swapEvery, "swap-every", 0, "steps between swap rounds of replica exchange (0: every step for gibbs, metropolis and blockgibbs, every 10 for sardonics; hybrid swaps on the work clock unless this is given: see --swap-work)")
	fs.Float64Var(&f.swapWork, "swap-work", 0, "swap on the work clock: a round is `W` sweep-equivalents of proposed flips per replica, whatever a step costs (0: --swap-every's step clock; hybrid's default is 1)")
	fs.Float64Var(&f.tuneSeconds, "tune-cycles", 1, "hybrid without --mix and without --replicas: modelled CPU `SECONDS` per candidate cycle when the chain's cycle is chosen at half the burn-in; candidates clearly worse after a quarter of it are dropped. (With --replicas every rung runs 1:0 for the first half of the burn-in, and the second half, at most the cheap cycle's CPU over it, chooses the cycles by the target's q^2 (--overlap) or |m| and by round trips, per CPU-second; this value is unused)")
	fs.StringVar(&f.ladder, "ladder", "geometric", "replica temperatures: geometric; adaptive (moved during the first half of the burn-in to even out swap acceptance, then fixed); or variance (moved during the first half of the burn-in so that delta-beta times the energy's standard deviation is the same between neighbours, then fixed; stats.json says how many replicas the range needs)")
	fs.BoolVar(&f.overlap, "overlap", false, "replica exchange with two independent sets of replicas: write the spin overlap q of their target replicas per step (overlap.csv, overlap.png, Binder ratio)")
	fs.StringVar(&f.cluster, "cluster", "", "`MOVE` between the two sets of replicas (--overlap) after every swap round: icm, Houdayer's cluster move (the connected cluster of sites where the two replicas at a rung differ, around a random one of them, flipped in both; always accepted); run at the rungs where the burn-in measures that its clusters do not cover most of those sites, or --cluster-beta-min's; sparse models only")
	fs.Float64Var(&f.clusterBeta, "cluster-beta-min", 0, "with --cluster: run the move at every replica with beta >= `B` instead of choosing the rungs during the burn-in (0: choose)")
}

// replicaCount is --replicas: a number of replicas, or auto.
type replicaCount struct {
	n    int
	auto bool
}

func (c *replicaCount) String() string {
	switch {
	case c == nil:
		return "0"
	case c.auto:
		return "auto"
	}
	return strconv.Itoa(c.n)
}

func (c *replicaCount) Set(s string) error {
	if s == "auto" {
		c.n, c.auto = 0, true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("expected a number of replicas R >= 2, 0 for none, or auto (R from a pilot's communication barrier)")
	}
	c.n, c.auto = n, false
	return nil
}

// apply sets cfg.Replicas for ncpu usable CPUs; cfg's trials at once,
// samplers, beta and tuning must be set. With --replicas auto it checks
// the rest with 2 replicas; chooseAuto then sets the count.
func (f *replicaFlags) apply(cfg *runner.Config, ncpu int) error {
	r := f.count.n
	if f.count.auto {
		r = 2
		if !(cfg.Beta > 0) {
			return usagef("--replicas auto needs a target beta above 0: its pilot measures the swaps between --beta-min and the target beta")
		}
	}
	switch {
	case r < 0:
		return usagef("--replicas %d (expected 0 for none, at least 2, or auto)", r)
	case r == 1: // it used to run single chains silently, while --overlap with it was refused
		return usagef("--replicas 1: replica exchange needs at least 2 replicas; omit --replicas for single chains")
	case r == 0:
		if f.overlap || f.ladder != "geometric" || f.betaMin != 0 || f.swapEvery != 0 || f.swapWork != 0 || f.cluster != "" || f.clusterBeta != 0 {
			return usagef("--beta-min, --swap-every, --swap-work, --ladder, --overlap, --cluster and --cluster-beta-min need --replicas R (R >= 2) or --replicas auto")
		}
		if !(f.tuneSeconds > 0) || math.IsInf(f.tuneSeconds, 0) {
			return usagef("--tune-cycles %g (expected modelled CPU seconds > 0 per candidate)", f.tuneSeconds)
		}
		// hybrid without --mix: the burn-in chooses the chain's cycle.
		// (A --budget run's burn-in is not known yet: it chooses at the
		// steps of the first half of the burn-in's share of CPU.)
		if slices.Contains(cfg.Samplers, "hybrid") && cfg.SAW.Mix == [2]int{} && (cfg.Burn >= 2 || cfg.TrialBudget > 0 && cfg.BurnFraction > 0) {
			cfg.Replicas = runner.ReplicaConfig{TuneCycles: true, TuneSeconds: f.tuneSeconds}
		}
		return nil
	case r > replica.MaxRungs:
		return usagef("--replicas %d (expected at most %d)", r, replica.MaxRungs)
	case f.ladder != "geometric" && f.ladder != "adaptive" && f.ladder != "variance":
		return usagef("--ladder %q (expected geometric, adaptive or variance)", f.ladder)
	case !(cfg.Beta > 0):
		return usagef("--replicas needs a target beta above 0 (the hottest replica is at --beta-min < beta)")
	case cfg.Tune != nil:
		return usagef("--replicas with --tune is not supported: tune once without replicas, then run with --policy FILE --replicas R")
	case f.swapEvery < 0:
		return usagef("--swap-every %d (expected >= 1, or 0 for the default)", f.swapEvery)
	case !(f.swapWork >= 0) || math.IsInf(f.swapWork, 0) || f.swapWork > 1e6:
		return usagef("--swap-work %g (expected sweep-equivalents per round >= 0, at most 1e6; 0 for the step clock)", f.swapWork)
	case f.swapWork > 0 && f.swapEvery > 0:
		return usagef("give --swap-every (the step clock) or --swap-work (the work clock), not both")
	case !(f.tuneSeconds > 0) || math.IsInf(f.tuneSeconds, 0):
		return usagef("--tune-cycles %g (expected modelled CPU seconds > 0 per candidate)", f.tuneSeconds)
	case f.ladder != "geometric" && cfg.TrialBudget > 0 && cfg.BurnFraction == 0:
		return usagef("--ladder %s moves the rungs during the first half of the burn-in, and --burn-fraction 0 keeps none: give --burn-fraction above 0 (e.g. the default 0.2)", f.ladder)
	case f.ladder != "geometric" && cfg.TrialBudget == 0 && cfg.Burn < 2*64*max(f.swapEvery, 10):
		return usagef("--ladder %s moves the rungs during the first half of --burn (%d): give a burn-in of at least %d steps (64 swap rounds)", f.ladder, cfg.Burn, 2*64*max(f.swapEvery, 10))
	}
	if err := f.checkCluster(cfg); err != nil {
		return err
	}
	rc := runner.ReplicaConfig{R: r, BetaMin: f.betaMin, SwapEvery: f.swapEvery, Work: f.swapWork, Adaptive: f.ladder != "geometric", Variance: f.ladder == "variance", Overlap: f.overlap,
		Cluster: f.cluster, ClusterBetaMin: f.clusterBeta}
	// hybrid without --mix: the burn-in chooses each rung's cycle.
	if slices.Contains(cfg.Samplers, "hybrid") && cfg.SAW.Mix == [2]int{} {
		rc.TuneCycles, rc.TuneSeconds = true, f.tuneSeconds
	}
	if rc.BetaMin == 0 {
		rc.BetaMin = cfg.Beta / 10
	}
	for _, name := range cfg.Samplers {
		if k, ok := sampler.Lookup(name); ok && k.Untempered != "" {
			return untempered(k, cfg.Model)
		}
		if err := rc.Check(name, cfg.Model, cfg.Beta, cfg.SAW); err != nil {
			return err
		}
	}
	rc.Workers = f.workers(r, cfg, ncpu)
	cfg.Replicas = rc
	return nil
}

// untempered refuses sampler k, which cannot change its temperature in
// place, inside replica exchange, naming from the registry every sampler
// that can (Untempered empty); those that do not apply to m are named
// too, with why, rather than left out.
func untempered(k sampler.Kind, m *model.Model) error {
	var can, elsewhere []string
	for _, n := range temperedSamplers() {
		o, _ := sampler.Lookup(n)
		if o.Check != nil && m != nil {
			if err := o.Check(m); err != nil {
				elsewhere = append(elsewhere, fmt.Sprintf("%s also runs inside replica exchange, but not on this model: %v", n, err))
				continue
			}
		}
		can = append(can, n)
	}
	msg := fmt.Sprintf("--replicas: %s cannot change its temperature in place (%s); use %s", k.Name, k.Untempered, orList(can))
	if len(elsewhere) > 0 {
		msg += " (" + strings.Join(elsewhere, "; ") + ")"
	}
	return usagef("%s", msg)
}

// temperedSamplers are the registered samplers that can run inside replica
// exchange (sampler.Kind.Untempered empty), in canonical order.
func temperedSamplers() []string {
	var names []string
	for _, n := range sampler.Names() {
		if k, _ := sampler.Lookup(n); k.Untempered == "" {
			names = append(names, n)
		}
	}
	return names
}

// untemperedSamplers are the registered samplers that cannot.
func untemperedSamplers() []string {
	var names []string
	for _, n := range sampler.Names() {
		if k, _ := sampler.Lookup(n); k.Untempered != "" {
			names = append(names, n)
		}
	}
	return names
}

// orList is "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// workers is the threads that step a trial's r replicas (of each set):
// the CPUs left over by the trials at once, at most one a replica.
func (f *replicaFlags) workers(r int, cfg *runner.Config, ncpu int) int {
	sets := 1
	if f.overlap {
		sets = 2
	}
	return max(1, min(r*sets, ncpu/max(1, cfg.Threads)))
}

// chooseAuto sets the replica count of a --replicas auto run (after
// apply) and says on stderr what it chose and why: the choice that
// dir/command.json recorded for this same command, so that a resumed or
// repeated run continues with the rungs it started with, else a pilot's
// (runner.AutoReplicas, on up to ncpu threads).
func (f *replicaFlags) chooseAuto(fs *flag.FlagSet, cfg *runner.Config, dir string, ncpu int, env *Env) error {
	if !f.count.auto {
		return nil
	}
	a, err := savedAuto(fs, dir)
	if err != nil {
		return err
	}
	from := ""
	if a != nil {
		from = fmt.Sprintf(", as chosen when this run started (%s)", filepath.Join(dir, "command.json"))
	} else if a, err = runner.AutoReplicas(cfg, max(1, min(replica.PilotRungs, ncpu))); err != nil {
		return err
	}
	rc := &cfg.Replicas
	rc.R, rc.Auto = a.Rungs, a
	rc.Workers = f.workers(a.Rungs, cfg, ncpu)
	share := ""
	if cfg.TrialBudget > 0 {
		share = fmt.Sprintf(", %.2g%% of --budget", 100*a.PilotCPUSeconds/(cfg.TrialBudget*float64(cfg.Trials)))
	}
	fmt.Fprintf(env.Stderr, "sardonics: --replicas auto: %d replicas%s; barrier %.3g, the sum of the swap rejection rates of a %d-rung %s pilot (%d swap rounds, %.2g s CPU%s); rule: %s\n",
		a.Rungs, from, a.Barrier, a.PilotRungs, a.PilotSampler, a.PilotRounds, a.PilotCPUSeconds, share, a.Rule)
	return nil
}

// describe's note on an automatic replica count.
func autoNote(a *replica.AutoRungs) string {
	if a == nil {
		return ""
	}
	return fmt.Sprintf(" (auto: barrier %.3g from a %d-rung pilot)", a.Barrier, a.PilotRungs)
}

// checkCluster checks --cluster and --cluster-beta-min against the rest of
// the run (replicas on; the model's part is runner's Check).
func (f *replicaFlags) checkCluster(cfg *runner.Config) error {
	switch {
	case f.cluster == "":
		if f.clusterBeta != 0 {
			return usagef("--cluster-beta-min %g needs --cluster icm", f.clusterBeta)
		}
		return nil
	case f.cluster != runner.ClusterICM:
		return usagef("--cluster %q (expected icm)", f.cluster)
	case !f.overlap:
		return usagef("--cluster icm moves clusters between two sets of replicas at the same temperature: give --overlap for the second set")
	case math.IsNaN(f.clusterBeta) || math.IsInf(f.clusterBeta, 0) || f.clusterBeta < 0:
		return usagef("--cluster-beta-min %g (expected a beta >= 0; 0 chooses the rungs during the burn-in)", f.clusterBeta)
	case f.clusterBeta > cfg.Beta:
		return usagef("--cluster-beta-min %g is above the target beta %g: no replica would run the move", f.clusterBeta, cfg.Beta)
	case f.clusterBeta == 0 && (cfg.TrialBudget == 0 && cfg.Burn < 2 || cfg.TrialBudget > 0 && cfg.BurnFraction == 0):
		return usagef("--cluster icm chooses its replicas from what it measures during the burn-in, and this run has none: give a burn-in (--burn, or --burn-fraction above 0 with --budget) or --cluster-beta-min B")
	}
	return nil
}

// describe is the replica part of sample's first output line.
func (f *replicaFlags) describe(cfg *runner.Config) string {
	rc := cfg.Replicas
	if !rc.On() {
		if rc.TuneCycles {
			return fmt.Sprintf("; hybrid's cycle chosen at half the burn-in (%g s per candidate)", rc.TuneSeconds)
		}
		return ""
	}
	every := "every step (every 10 for sardonics)"
	switch {
	case rc.Work > 0:
		every = fmt.Sprintf("every %g sweep-equivalents of proposed flips per replica (the work clock)", rc.Work)
	case rc.SwapEvery > 0:
		every = "every " + plural(rc.SwapEvery, "step")
	case slices.Contains(cfg.Samplers, "hybrid"):
		every = "every step (every 10 for sardonics, every sweep-equivalent of work for hybrid)"
	}
	s := fmt.Sprintf("; replica exchange: %d replicas%s from beta %g (%s ladder), swaps %s", rc.R, autoNote(rc.Auto), rc.BetaMin, f.ladder, every)
	if rc.Overlap {
		s += ", two sets for the overlap"
	}
	switch {
	case rc.Cluster != "" && rc.ClusterBetaMin > 0:
		s += fmt.Sprintf(", the cluster move %s between them at every replica from beta %g", rc.Cluster, rc.ClusterBetaMin)
	case rc.Cluster != "":
		s += fmt.Sprintf(", the cluster move %s between them at the replicas the burn-in chooses", rc.Cluster)
	}
	if rc.TuneCycles {
		s += ", each rung's hybrid cycle chosen over the second half of the burn-in by the target's slow observable and round trips (1:0 before)"
	}
	if rc.Workers > 1 {
		s += fmt.Sprintf(", %d threads per trial", rc.Workers)
	}
	return s
}
