package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"sardonics/model"
	"sardonics/runner"
	"sardonics/sampler"
	_ "sardonics/samplers" // every sampler, registered
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
	"sardonics/topology"
)

// Line is one measured figure.
type Line struct {
	Name   string  `json:"name"`
	Model  string  `json:"model"`
	Beta   float64 `json:"beta"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Steps  int64   `json:"steps"`
	CPUSec float64 `json:"cpu_seconds"`
	Note   string  `json:"note,omitempty"`
	RatioC float64 `json:"ratio_c,omitempty"` // whole-trial lines: Value over the C yardstick's ns/update
	// The scale group's lines: the process's peak resident set while the
	// line ran, in bytes (0: not measured).
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
}

// Report is bench.json.
type Report struct {
	Machine string `json:"machine"`
	Go      string `json:"go"`
	Date    string `json:"date"`
	Lines   []Line `json:"lines"`
	CRef    *CRef  `json:"c_yardstick,omitempty"` // when the trial group ran
}

// Config sets the time spent per measurement.
type Config struct {
	Budget time.Duration // CPU time per kernel measurement (default 1s)
	ESS    bool          // also measure ESS per CPU-second (slower)
	Only   string        // run only lines whose group contains this
	Out    io.Writer     // progress lines

	// The C yardstick of the trial group: CC compiles it ("" is gcc,
	// "none" skips it), into CacheDir ("" is a folder in the system's
	// temporary directory), where later runs find it.
	CC, CacheDir string

	// Ctx, when done (a signal), stops the suite within a moment: Run
	// then returns the lines finished so far with ErrStopped.
	Ctx context.Context
}

// ErrStopped is returned with the partial report when Config.Ctx ended.
var ErrStopped = errors.New("bench stopped before its end")

func (cfg Config) ctx() context.Context {
	if cfg.Ctx == nil {
		return context.Background()
	}
	return cfg.Ctx
}

func cpuNow() float64 { return runner.ThreadCPU() }

// measure steps a chain until budget CPU seconds are spent and returns
// steps, CPU seconds and flips.
func measure(ctx context.Context, name string, m *model.Model, beta float64, sc sawsampler.Config, budget float64) (steps int64, cpu, wall float64, flips int64, err error) {
	ch, done, err := warmChain(ctx, name, m, beta, sc, budget)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer done()
	return runFor(ctx, ch, budget)
}

// warmChain makes the chain of sampler name on m at beta, on the calling
// thread pinned as runner pins a trial's coordinator (locked when not
// pinned), and warms it up (letting the state relax) for a tenth of the
// budget of CPU seconds; done releases the chain and the thread.
func warmChain(ctx context.Context, name string, m *model.Model, beta float64, sc sawsampler.Config, budget float64) (ch sampler.Chain, done func(), err error) {
	unpin := runtime.UnlockOSThread
	if sc.Engine == "parallel" && len(sc.CPUs) > 0 {
		unpin, _ = topology.PinFor(sc.CPUs[0])
	} else {
		runtime.LockOSThread()
	}
	init := runner.InitialState(1, 0, m.Variables())
	ch, release, err := runner.NewChain(name, m, beta, sc, runner.StreamFor(1, 0, name), init)
	if err != nil {
		unpin()
		return nil, nil, err
	}
	done = func() { release(); unpin() }
	for t0 := cpuNow(); cpuNow()-t0 < budget/10; {
		if ctx.Err() != nil {
			done()
			return nil, nil, ErrStopped
		}
		for i := 0; i < 10; i++ {
			ch.Step()
		}
	}
	return ch, done, nil
}

// runFor steps ch in doubling batches until budget CPU seconds are spent
// and returns steps, CPU and wall seconds and flips.
func runFor(ctx context.Context, ch sampler.Chain, budget float64) (steps int64, cpu, wall float64, flips int64, err error) {
	f0 := ch.Stats().Flips
	t0, w0 := cpuNow(), time.Now()
	batch := int64(1)
	for {
		for i := int64(0); i < batch; i++ {
			ch.Step()
		}
		steps += batch
		if cpu = cpuNow() - t0; cpu >= budget {
			break
		}
		if ctx.Err() != nil {
			return 0, 0, 0, 0, ErrStopped
		}
		batch = min(batch*2, 1<<16)
	}
	return steps, cpu, time.Since(w0).Seconds(), ch.Stats().Flips - f0, nil
}

type kernel struct {
	group, name, spec string
	beta              float64
	sampler           string
	engine            string
	threads           int
	unit              string // ns/spin, ns/flip, steps/s, us/sweep
}

func kernels(ncpu int) []kernel {
	ks := []kernel{
		{"gibbs", "gibbs sweep", "ferro2d:L=60", 1 / 2.27, "gibbs", "", 0, "ns/spin"},
		{"gibbs", "gibbs sweep", "spinglass3d:L=9,seed=1", 1, "gibbs", "", 0, "ns/spin"},
		{"metropolis", "metropolis sweep", "ferro2d:L=60", 1 / 2.27, "metropolis", "", 0, "ns/spin"},
		{"metropolis", "metropolis sweep", "spinglass3d:L=9,seed=1", 1, "metropolis", "", 0, "ns/spin"},
		{"sw", "swendsen-wang step", "ferro2d:L=60", 1 / 2.27, "sw", "", 0, "ns/spin"},
		{"saw", "sardonics bucket", "ferro2d:L=60", 1, "sardonics", "bucket", 0, "ns/flip"},
		{"saw", "sardonics tree", "ferro2d:L=60", 1, "sardonics", "tree", 0, "ns/flip"},
		{"saw", "sardonics bucket", "frustrated2d:L=60,seed=1", 1, "sardonics", "bucket", 0, "ns/flip"},
		{"saw", "sardonics tree", "frustrated2d:L=60,seed=1", 1, "sardonics", "tree", 0, "ns/flip"},
		{"saw", "sardonics bucket", "spinglass3d:L=9,seed=1", 1, "sardonics", "bucket", 0, "ns/flip"},
		{"saw", "sardonics tree", "chimera:M=4,N=4,T=4,seed=1", 1, "sardonics", "tree", 0, "ns/flip"},
		{"saw", "gibbs sweep (same run)", "frustrated2d:L=60,seed=1", 1, "gibbs", "", 0, "ns/spin"},
		{"rbm", "blockgibbs sweep", "rbm-random:V=784,H=500,seed=1,scale=0.1", 1, "blockgibbs", "", 0, "us/sweep"},
		{"rbm", "sardonics dense", "rbm-random:V=784,H=500,seed=1,scale=0.1", 1, "sardonics", "dense", 0, "ns/flip"},
		{"rbm", "sardonics parallel P=1", "rbm-random:V=784,H=500,seed=1,scale=0.1", 1, "sardonics", "parallel", 1, "ns/flip"},
	}
	// The scaling curve: P = 2, 4, 8, ... and all CPUs.
	for p := 2; p <= ncpu; p *= 2 {
		ks = append(ks, kernel{"rbm", fmt.Sprintf("sardonics parallel P=%d", p), "rbm-random:V=784,H=500,seed=1,scale=0.1", 1, "sardonics", "parallel", p, "ns/flip"})
		if p < ncpu && 2*p > ncpu {
			p = ncpu / 2 // the next round is ncpu
		}
	}
	return ks
}

// speedupRounds is the number of dense-then-parallel rounds speedup times.
const speedupRounds = 5

// speedup is the median over speedupRounds rounds of the dense engine's
// wall time per flip over the parallel engine's (sc), each round measuring
// both for budget/speedupRounds: on a shared machine a load change then
// hits both sides of a ratio rather than one whole measurement.
func speedup(ctx context.Context, m *model.Model, beta float64, sc sawsampler.Config, budget float64) (float64, error) {
	ds := sc
	ds.Engine, ds.EngineThreads = "dense", 0
	var ratios []float64
	for range speedupRounds {
		_, _, dw, df, err := measure(ctx, "sardonics", m, beta, ds, budget/speedupRounds)
		if err != nil {
			return 0, err
		}
		_, _, pw, pf, err := measure(ctx, "sardonics", m, beta, sc, budget/speedupRounds)
		if err != nil {
			return 0, err
		}
		ratios = append(ratios, (dw/float64(df))/(pw/float64(pf)))
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2], nil
}

// Run runs the suite.
func Run(cfg Config) (*Report, error) {
	if cfg.Budget <= 0 {
		cfg.Budget = time.Second
	}
	cpus, _ := topology.CPUs()
	pl := topology.Placement(cpus) // the parallel group's sections on separate physical cores
	cpus = pl.CPUs
	rep := &Report{Machine: topology.Describe() + "; parallel engine on " + pl.Describe(2), Go: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339)}
	models := map[string]*model.Model{}
	get := func(spec string) (*model.Model, error) {
		if m, ok := models[spec]; ok {
			return m, nil
		}
		m, err := model.Load(spec)
		models[spec] = m
		return m, err
	}
	if cfg.Only == "" || contains("handoff", cfg.Only) {
		handoffLines(rep, cfg)
	}
	denseWall := 0.0
	for _, k := range kernels(len(cpus)) {
		if cfg.Only != "" && !contains(k.group, cfg.Only) {
			continue
		}
		m, err := get(k.spec)
		if err != nil {
			return nil, err
		}
		sc := sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: k.engine, EngineThreads: k.threads, CPUs: cpus}
		steps, cpu, wall, flips, err := measure(cfg.ctx(), k.sampler, m, k.beta, sc, cfg.Budget.Seconds())
		if errors.Is(err, ErrStopped) {
			return rep, err
		}
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", k.name, k.spec, err)
		}
		l := Line{Name: k.name, Model: k.spec, Beta: k.beta, Unit: k.unit, Steps: steps, CPUSec: cpu}
		switch k.unit {
		case "ns/spin":
			l.Value = cpu * 1e9 / float64(steps) / float64(m.Variables())
			l.Note = fmt.Sprintf("%.0f steps/s", float64(steps)/cpu)
		case "ns/flip":
			l.Value = cpu * 1e9 / float64(flips)
			l.Note = fmt.Sprintf("%.1f flips/step", float64(flips)/float64(steps))
			if k.group == "rbm" {
				// A parallel engine's workers run on other threads: wall
				// time per flip is the figure that shows the speedup.
				wns := wall * 1e9 / float64(flips)
				l.Note += fmt.Sprintf(", wall %.0f ns/flip", wns)
				if k.engine == "dense" {
					denseWall = wns
				} else if denseWall > 0 {
					ratio, err := speedup(cfg.ctx(), m, k.beta, sc, cfg.Budget.Seconds())
					if errors.Is(err, ErrStopped) {
						return rep, err
					}
					if err != nil {
						return nil, err
					}
					l.Note += fmt.Sprintf(", wall speedup over dense %.2f (median of %d interleaved rounds)", ratio, speedupRounds)
				}
			}
		case "us/sweep":
			l.Value = cpu * 1e6 / float64(steps)
		}
		rep.add(l, cfg)
	}
	if cfg.Only == "" || contains("parallel", cfg.Only) {
		if err := parallelGroup(rep, cfg, get, cpus); errors.Is(err, ErrStopped) {
			return rep, err
		} else if err != nil {
			return nil, fmt.Errorf("parallel group: %w", err)
		}
	}
	if cfg.Only == "" || contains("scale", cfg.Only) {
		if err := scaleGroup(rep, cfg); errors.Is(err, runner.ErrInterrupted) || errors.Is(err, ErrStopped) {
			return rep, ErrStopped
		} else if err != nil {
			return nil, fmt.Errorf("scale group: %w", err)
		}
	}
	if cfg.Only == "" || contains("load", cfg.Only) {
		l, err := loadLine(get)
		if err != nil {
			return nil, fmt.Errorf("dense file load: %w", err)
		}
		rep.add(l, cfg)
	}
	if cfg.Only == "" || contains("trial", cfg.Only) {
		if err := trialGroup(rep, cfg, get); errors.Is(err, ErrStopped) {
			return rep, err
		} else if err != nil {
			return nil, err
		}
	}
	if cfg.ESS && (cfg.Only == "" || contains("ess", cfg.Only)) {
		if err := essLines(rep, cfg); errors.Is(err, ErrStopped) {
			return rep, err
		} else if err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func (l Line) String() string {
	return fmt.Sprintf("%-28s %-42s beta=%-6.4g %10s %-8s %s", l.Name, l.Model, l.Beta, num(l.Value), l.Unit, l.Note)
}

// num is x with 4 significant digits, or n/a when it cannot be estimated.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.4g", x)
}

// MarshalJSON writes a value that could not be estimated (NaN) as null.
func (l Line) MarshalJSON() ([]byte, error) {
	type plain Line
	v := struct {
		plain
		Value *float64 `json:"value"`
	}{plain: plain(l)}
	if !math.IsNaN(l.Value) && !math.IsInf(l.Value, 0) {
		v.Value = &l.Value
	}
	return json.Marshal(v)
}

// essLines measures ESS per CPU-second of each sampler with short runs
// (4 trials of 20000 steps, 4000 burn-in) on the paper's frustrated 2D model
// and 3D spin glass.
func essLines(rep *Report, cfg Config) error {
	for _, c := range []struct {
		spec string
		beta float64
	}{{"frustrated2d:L=60,seed=1", 1}, {"spinglass3d:L=9,seed=1", 1}} {
		m, err := model.Load(c.spec)
		if err != nil {
			return err
		}
		rc := &runner.Config{Model: m, Beta: c.beta, Samplers: []string{"sardonics", "gibbs", "metropolis", "sw"},
			Steps: 20000, Burn: 4000, Trials: 4, Seed: 1, Threads: 1,
			SAW: sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}}}
		rc.Stop = stopFlag(cfg.ctx())
		recs, wall, err := runner.Run(rc)
		if errors.Is(err, runner.ErrInterrupted) {
			return ErrStopped
		}
		if err != nil {
			return err
		}
		for _, name := range rc.Samplers {
			r := summary.Summarize(name, recs[name], rc.Steps, rc.Burn, wall[name])
			rh := "n/a"
			if r.Rhat != nil {
				rh = fmt.Sprintf("%.3f", *r.Rhat)
			}
			l := Line{Name: "ESS per CPU-second: " + name, Model: c.spec, Beta: c.beta, Value: r.ESSPerCPUSecond,
				Unit: "ESS/cpu-s", Steps: int64(rc.Steps * rc.Trials), CPUSec: r.CPUSeconds,
				Note: fmt.Sprintf("pooled bulk ESS %s, tau_int %s steps, split-R-hat %s", num(r.ESS), num(r.TauInt), rh)}
			rep.Lines = append(rep.Lines, l)
			if cfg.Out != nil {
				fmt.Fprintln(cfg.Out, l.String())
			}
		}
	}
	return nil
}

// JSON renders the report.
func (r *Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// stopFlag is raised when ctx ends (the runner's form of a stop).
func stopFlag(ctx context.Context) *atomic.Bool {
	f := new(atomic.Bool)
	context.AfterFunc(ctx, func() { f.Store(true) })
	return f
}
