package cli

import (
	"fmt"
	"io"
	"runtime"
	"sardonics/sawsampler"
	"sardonics/topology"
	"slices"
)

// cpuPlan is how sample spreads its trials and the parallel RBM engine's
// sections over the usable CPUs.
type cpuPlan struct {
	trials        int    // trials run at once (runner.Config.Threads)
	engineThreads int    // sawsampler.Config.EngineThreads
	warning       string // one line for stderr after "sardonics: warning: ", or ""
}

// planFor is planCPUs on this process's CPUs (also returned: the affinity
// mask's in topology.Placement's order, physical cores first, and how
// many are usable), its warning written to stderr. rbm says whether the
// parallel engine may run on the model (sawsampler.ParallelFor: an RBM or
// a dense glass, and for auto one above the crossover). When it runs with
// sections on several CPUs and info is not nil, the first trial's CPUs
// are written to info.
func planFor(stderr, info io.Writer, trials, threads int, samplers []string, sc sawsampler.Config, rbm bool) (plan cpuPlan, cpus []int, ncpu int) {
	cpus, _ = topology.CPUs()
	pl := topology.Placement(cpus)
	cpus = pl.CPUs
	ncpu = usableCPUs(len(cpus), runtime.GOMAXPROCS(0))
	plan = planCPUs(ncpu, trials, threads, samplers, sc.Engine, sc.EngineThreads, rbm)
	if plan.warning != "" {
		fmt.Fprintf(stderr, "sardonics: warning: %s\n", plan.warning)
	}
	if p := plan.engineThreads; info != nil && p > 1 && sawsampler.Parallel(rbm, sc.Engine, p) && slices.Contains(samplers, "sardonics") {
		fmt.Fprintf(info, "sardonics: parallel engine: %d sections a trial; the first trial's on %s\n", p, pl.Describe(p))
	}
	return plan, cpus, ncpu
}

// usableCPUs is the number of CPUs sample plans for: the affinity mask's
// (affinity; 0 when it could not be read) but at most GOMAXPROCS (procs),
// as no more goroutines than that run at once, and at least 1.
func usableCPUs(affinity, procs int) int {
	if affinity <= 0 {
		affinity = procs
	}
	return max(1, min(affinity, procs))
}

// planCPUs gives sample's trials at once and engine threads for ncpu usable
// CPUs, --trials, --threads, the samplers, --engine, --engine-threads and
// whether the model is an RBM. Trials at once are --threads (0: ncpu), at
// most --trials. When the parallel engine runs (sardonics on an RBM with
// --engine parallel, or auto and --engine-threads above 1), every trial at
// once takes its sections' CPUs, as its workers spin while they wait and a
// CPU shared by two of them costs far more than it brings: --engine-threads
// 0 gives each trial ncpu / (trials at once) sections, at most
// maxAutoEngineThreads; trials at once are cut until they fit (with a
// warning when --threads asked for more), and sections beyond ncpu are cut
// to ncpu (with a warning).
func planCPUs(ncpu, trials, threads int, samplers []string, engine string, engineThreads int, rbm bool) cpuPlan {
	ncpu = max(1, ncpu)
	par := threads
	if par <= 0 {
		par = ncpu
	}
	par = max(1, min(par, trials))
	plan := cpuPlan{trials: par, engineThreads: engineThreads}
	if !sawsampler.Parallel(rbm, engine, engineThreads) || !slices.Contains(samplers, "sardonics") {
		return plan
	}
	p := engineThreads
	if p <= 0 {
		avail := ncpu // --threads bounds the sections too
		if threads > 0 {
			avail = min(ncpu, threads)
		}
		p = min(max(1, avail/par), maxAutoEngineThreads)
	}
	clamped := p > ncpu
	if clamped {
		p = ncpu
	}
	fit := max(1, ncpu/p)
	cut := par > fit
	if cut {
		plan.trials = fit
	}
	plan.engineThreads = p
	switch {
	case clamped && cut && threads > 0:
		plan.warning = fmt.Sprintf("--engine-threads %d exceeds the %s; using %d, and %s at a time instead of --threads %d",
			engineThreads, plural(ncpu, "usable CPU"), p, plural(fit, "trial"), threads)
	case clamped:
		plan.warning = fmt.Sprintf("--engine-threads %d exceeds the %s; using %d", engineThreads, plural(ncpu, "usable CPU"), p)
	case cut && threads > 0:
		plan.warning = fmt.Sprintf("--threads %d x --engine-threads %d exceeds the %s; running %s at a time",
			threads, p, plural(ncpu, "usable CPU"), plural(fit, "trial"))
	}
	return plan
}
