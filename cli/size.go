package cli

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"sardonics/draws"
	"sardonics/runner"
)

// Bytes a run uses per item, for the estimate checkSize makes before the run
// starts (measured on amd64 with Go 1.26 where it says so).
const (
	traceBytes    = 8    // one step of a trace held in memory (energy, overlap, replica walk)
	magBytes      = 4    // one step of the magnetization trace (int32)
	recordBytes   = 1024 // a trial's record besides its traces, and its slot in the run's tables
	summaryBytes  = 96   // one kept draw of one sampler while the summary's diagnostics run (measured 84)
	chainBytes    = 48   // one variable or interaction of one chain or replica (measured 8 to 48)
	rowBytes      = 24   // the slice header of one kept state with --save-states
	ckptBytes     = 24   // one step of a trace in a checkpoint's JSON
	csvBytes      = 22   // one row of energy.csv or overlap.csv besides the step number
	magCSVBytes   = 8    // one row of magnetization.csv besides the step number
	magCkptBytes  = 8    // one step of the magnetization in a checkpoint's JSON
	margCkptBytes = 64   // one spin or pair of --marginals' sums in a checkpoint's JSON
	figureBytes   = 1e6  // summary.json, the figures, tuning.csv
	statsBytes    = 4096 // one stats.json
)

// fallbackMemory is the memory limit where the system does not say how much
// is available.
const fallbackMemory = 8e9

// runSize is the estimate of what a run needs.
type runSize struct {
	traces, records  float64 // memory held from a trial's start until the summary
	running, summary float64 // memory of the trials running at once, then of the summary
	disk, files      float64 // what the run writes into its folder
	perStep          float64 // bytes of traces per kept draw of a trial
	keptRows         float64 // kept draws of a trial (both phases)
	rungRows         float64 // kept rounds of every rung of a trial (replica exchange)
	perRound         float64 // bytes of a kept round of every rung
	full             float64 // bytes of --save-trace per trial
}

// sizeOf estimates what cfg needs, run cfg.Threads trials at a time. Every
// product is a float64: absurd sizes must not overflow.
func sizeOf(cfg *runner.Config) runSize {
	m, t := float64(len(cfg.Samplers)), float64(cfg.Trials)
	s := float64(cfg.Steps)
	// The kept draws: at most the cap of each phase (package draws).
	capacity := float64(cfg.TraceCap)
	if capacity <= 0 {
		capacity = draws.DefaultCap
	}
	kept := min(float64(cfg.Steps-cfg.Burn), capacity)
	rows := min(float64(cfg.Burn), capacity) + kept
	n, inter := float64(cfg.Model.Variables()), float64(cfg.Model.Interactions())
	par := float64(max(1, min(cfg.Threads, cfg.Trials)))
	chains, traces := 1.0, 1.0 // chains per trial, traces per step
	// Every rung's record: at most one round a step after the burn-in, at
	// most RungCap kept, of an energy (and an overlap) a rung and a step.
	rungRows, rungValues := 0.0, 0.0
	if cfg.Replicas.On() {
		chains = float64(cfg.Replicas.R)
		traces++ // the walk of the round trips, at most one entry per step
		rungValues = float64(cfg.Replicas.R)
		if cfg.Replicas.Overlap {
			chains *= 2
			traces++
			rungValues *= 2
		}
		rungRows = min(float64(cfg.Steps-cfg.Burn), float64(cfg.RungCap()))
	}
	var z runSize
	z.perStep = traces*traceBytes + magBytes
	z.keptRows = rows
	z.rungRows, z.perRound = rungRows, (rungValues+1)*traceBytes
	z.traces = m * t * (rows*z.perStep + z.rungRows*z.perRound)
	z.records = m * t * recordBytes
	states := 0.0
	if cfg.SaveStates {
		states = float64(cfg.SavedStates()) * (n + rowBytes)
	}
	// A checkpoint writes the traces as JSON and the states in base64.
	ckpt := rows*(traces*ckptBytes+magCkptBytes) + rungRows*(rungValues+1)*ckptBytes + states*4/3
	if cfg.Marginals {
		// Its sums (24 B per spin and pair), and in a checkpoint as JSON.
		states += (n + inter) * 24
		ckpt += (n + inter) * margCkptBytes
	}
	z.running = par * (states + chains*(n+inter)*chainBytes + ckpt)
	z.summary = t * kept * summaryBytes

	step := float64(len(strconv.Itoa(cfg.Steps)))
	_, npy, _ := statesSize(cfg)
	perTrial := rows*(traces*(step+csvBytes)+step+magCSVBytes) + rungRows*(2*step+rungValues*csvBytes) + statsBytes + npy
	if cfg.SaveTrace { // every step: energy.npy, magnetization.npy (overlap.npy)
		z.full = s*(magBytes+traceBytes) + 2*128
		if cfg.Replicas.On() && cfg.Replicas.Overlap {
			z.full += s*traceBytes + 128
		}
		perTrial += z.full
	}
	files := 4.0 // the trial's folder, energy.csv, magnetization.csv, stats.json
	if cfg.SaveTrace {
		files += 3
	}
	if cfg.SaveStates {
		files += 2 // states.npy, samples.npz
	}
	files += traces - 1 // overlap.csv, walk.csv
	if cfg.Replicas.On() {
		files++ // rungs.csv
	}
	if cfg.Marginals {
		files += 2 // marginals.npy, correlations.npy
		perTrial += (2*n + 4*inter) * 8
	}
	// Checkpoints of the trials at once, twice while one replaces another.
	z.disk = m*t*perTrial + 2*par*ckpt + figureBytes
	z.files = m*t*files + m + 2*par + 10
	return z
}

// memory is the peak: the traces and records, then the larger of the
// running trials and the summary (which comes after them).
func (z runSize) memory() float64 { return z.traces + z.records + max(z.running, z.summary) }

// checkSize refuses a run of cfg into dir that cannot fit in the memory
// available or on the file system of dir, with the estimate, the limit and
// what to change. It runs before anything is allocated or written per trial
// or per step: an absurd --steps or --trials is refused at once instead of
// crashing out of memory or running for ever.
func checkSize(cfg *runner.Config, dir string) error {
	z := sizeOf(cfg)
	trials := fmt.Sprintf("%s x %s", plural(len(cfg.Samplers), "sampler"), plural(cfg.Trials, "trial"))
	advice := "give fewer --steps or --trials"
	if avail, from := availableMemory(); z.memory() > avail {
		rungs := ""
		if z.rungRows > 0 {
			rungs = fmt.Sprintf(" and %.0f rounds of every rung x %.0f B", z.rungRows, z.perRound)
		}
		lines := []string{fmt.Sprintf("%s for the traces: %s x %.0f kept draws x %.0f B%s, kept until the summary",
			humanBytes(z.traces), trials, z.keptRows, z.perStep, rungs)}
		if z.records >= z.memory()/100 {
			lines = append(lines, fmt.Sprintf("%s for the records of %s", humanBytes(z.records), trials))
		}
		if z.running > z.summary {
			lines = append(lines, fmt.Sprintf("%s for the %s running at once: chains, kept states (--save-states), checkpoints",
				humanBytes(z.running), plural(max(1, min(cfg.Threads, cfg.Trials)), "trial")))
			advice = "give fewer --steps, --threads or --replicas, or save fewer states (a larger --save-every or --burn, or no --save-states)"
		} else {
			lines = append(lines, fmt.Sprintf("%s for the summary: diagnostics of one sampler's %s x %.0f kept draws",
				humanBytes(z.summary), plural(cfg.Trials, "trial"), min(float64(cfg.Steps-cfg.Burn), z.keptRows)))
		}
		return usagef("this run needs about %s of memory, more than the %s available (%s):\n  %s\n%s",
			humanBytes(z.memory()), humanBytes(avail), from, indented(lines), advice)
	}
	free, inodes, ok := diskRoom(dir)
	if ok && z.disk > free {
		what, advice := "traces", "give fewer --steps or --trials"
		if cfg.SaveTrace {
			what, advice = fmt.Sprintf("--save-trace traces (%s a trial)", humanBytes(z.full)), "give fewer --steps or --trials, or no --save-trace"
		}
		if cfg.SaveStates {
			what, advice = "traces and kept states", "give fewer --steps or --trials, save fewer states (a larger --save-every or --burn, or no --save-states)"
			if cfg.SaveTrace {
				advice += ", or no --save-trace"
			}
		}
		return usagef("this run writes about %s into %s (the %s of %s x %d steps, and checkpoints), more than the %s free there; %s, or an --out with more room",
			humanBytes(z.disk), dir, what, trials, cfg.Steps, humanBytes(free), advice)
	}
	if ok && z.files > inodes {
		return usagef("this run writes about %.0f files and folders into %s (4 to 10 per trial of %s), more than the %.0f the file system there has free (inodes); give fewer --trials, or an --out on another file system",
			z.files, dir, trials, inodes)
	}
	return nil
}

// diskRoom is the free bytes and inodes of the file system dir is (or will
// be) on; ok is false when they are not known. File systems without a fixed
// number of inodes (btrfs) report none: then inodes is +Inf.
var diskRoom = func(dir string) (free, inodes float64, ok bool) {
	var st unix.Statfs_t
	if unix.Statfs(existingParent(dir), &st) != nil {
		return 0, 0, false
	}
	inodes = math.Inf(1)
	if st.Files > 0 {
		inodes = float64(st.Ffree)
	}
	return float64(st.Bavail) * float64(st.Bsize), inodes, true
}

// existingParent is dir, or its nearest ancestor that exists: the file
// system the run's folder will be on.
func existingParent(dir string) string {
	p, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for {
		if _, err := os.Stat(p); err == nil || filepath.Dir(p) == p {
			return p
		}
		p = filepath.Dir(p)
	}
}

// availableMemory is the memory a run may take and where that figure comes
// from: Linux's MemAvailable, or the room left under this process's cgroup
// (v2) limit when that is smaller (a batch job's allocation, a container);
// fallbackMemory elsewhere.
var availableMemory = func() (float64, string) {
	avail, from := fallbackMemory, "a fixed bound: this system does not report its available memory"
	if kb, ok := meminfo("MemAvailable"); ok {
		avail, from = kb*1024, "MemAvailable in /proc/meminfo"
	}
	if left, path, ok := cgroupRoom(); ok && left < avail {
		avail, from = left, "the limit in "+path+" less what the cgroup uses"
	}
	return avail, from
}

// meminfo reads a field of /proc/meminfo, in kB.
func meminfo(field string) (float64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb, err == nil
		}
	}
	return 0, false
}

// cgroupRoom is memory.max less memory.current of this process's cgroup
// (v2), and the path of memory.max; ok is false without a limit.
func cgroupRoom() (left float64, path string, ok bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, "", false
	}
	rel, found := strings.CutPrefix(strings.TrimSpace(string(b)), "0::")
	if !found || strings.Contains(rel, "\n") {
		return 0, "", false // cgroup v1 or hybrid: not read
	}
	dir := filepath.Join("/sys/fs/cgroup", rel)
	read := func(name string) (float64, bool) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64) // "max" fails: no limit
		return v, err == nil
	}
	limit, ok1 := read("memory.max")
	used, ok2 := read("memory.current")
	if !ok1 || !ok2 {
		return 0, "", false
	}
	return max(0, limit-used), filepath.Join(dir, "memory.max"), true
}

// pilotCPU is the thread CPU each sampler's pilot steps for before a
// --budget run (at most a tenth of a trial's budget).
const pilotCPU = 0.1

// budgetSize prepares the --budget run cfg into dir: a pilot of each
// sampler (runner.StepCost) estimates the steps a trial will make in its
// budget, the run is refused (as checkSize refuses a run of --steps) when
// those cannot fit in the memory available or on dir's file system, and
// cfg.Steps is set to the most steps a trial may make: the largest count
// whose run (every trial of every sampler that long, the traces, which
// grow as they go, counted twice) fits. A trial that reaches that bound
// before its budget stops there and says so. It returns the estimated
// steps per trial of each sampler.
func budgetSize(cfg *runner.Config, dir string) ([]int, error) {
	expect := make([]int, len(cfg.Samplers))
	est, slowest := 0.0, ""
	var per float64 // the cost of a step of the sampler with the most steps
	for i, name := range cfg.Samplers {
		c, _, err := runner.StepCost(cfg, name, min(pilotCPU, cfg.TrialBudget/10))
		if err != nil {
			return nil, err
		}
		n := cfg.TrialBudget / max(c, 1e-9)
		expect[i] = int(min(n, 1e15))
		if n > est {
			est, slowest, per = n, name, c
		}
	}
	avail, from := availableMemory()
	free, inodes, ok := diskRoom(dir)
	if !ok {
		free, inodes = math.Inf(1), math.Inf(1)
	}
	fits := func(s float64) bool {
		z := sizeOf(expectedRun(cfg, int(s)))
		return z.memory()+z.traces <= avail && z.disk <= free
	}
	lo, hi := 0.0, 1e15 // fits(lo); the bound is below hi
	for hi-lo > 1 && hi > 1.0001*lo {
		mid := math.Floor((lo + hi) / 2)
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	trials := fmt.Sprintf("%s x %s", plural(len(cfg.Samplers), "sampler"), plural(cfg.Trials, "trial"))
	if est > lo {
		return nil, usagef("--budget %v: %s would make about %.3g steps per trial (%.3g s of thread CPU a step in a %.2g s pilot), more than the %.3g steps per trial that fit in the %s of memory available (%s) and the %s free in %s (for %s: kept draws, states with --save-states, every step with --save-trace); give a smaller --budget, or fewer --samplers",
			time.Duration(cfg.TrialBudget*float64(cfg.Trials)*1e9), slowest, est, per, min(pilotCPU, cfg.TrialBudget/10), lo, humanBytes(avail), from, humanBytes(free), dir, trials)
	}
	if z := sizeOf(expectedRun(cfg, int(est))); z.files > inodes {
		return nil, usagef("this run writes about %.0f files and folders into %s (4 to 10 per trial of %s), more than the %.0f the file system there has free (inodes); give fewer --trials, or an --out on another file system",
			z.files, dir, trials, inodes)
	}
	cfg.Steps = int(min(lo, math.MaxInt32*float64(1<<20)))
	return expect, nil
}

// expectedRun is the budget run cfg as a run of steps steps per trial, its
// burn-in the burn fraction of them, for the size estimates.
func expectedRun(cfg *runner.Config, steps int) *runner.Config {
	c := *cfg
	c.Steps, c.Burn = max(1, steps), int(cfg.BurnFraction*float64(steps))
	return &c
}

// expectedSteps says the steps per trial that budgetSize estimated.
func expectedSteps(names []string, expect []int) string {
	var parts []string
	for i, n := range names {
		parts = append(parts, fmt.Sprintf("%s about %.3g", n, float64(expect[i])))
	}
	return "steps per trial: " + strings.Join(parts, ", ")
}
