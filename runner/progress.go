package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProgressInterval is the time between plain progress lines.
var ProgressInterval = 5 * time.Second

// StallAfter is how long a trial may go without reporting progress before
// the run warns that it has stalled, and then only if that is also more
// than stallFactor times its recent interval between reports: a model
// whose steps are legitimately slow is not called stalled.
//
// The run warns and goes on; it does not abort. A stalled trial cannot
// checkpoint (its own thread writes its checkpoints, at block boundaries),
// so an abort would lose its work all the same, and a false alarm (a
// suspended job, a swapping machine, a step slower than its predecessors)
// would kill a healthy run; the other trials' finished work is on disk
// and Ctrl-C keeps it. The warning says how to get the goroutine dump that
// shows where the trial waits.
var StallAfter = 60 * time.Second

const (
	stallFactor = 100
	reportEvery = 64 // steps between a trial's reports (see trial.step)
)

// progress is what the reporter knows of a run: the work finished over
// all trials (steps, or in a budget run nanoseconds of thread CPU, with
// the steps beside), and one slot per trial goroutine telling which trial
// it runs and when that trial last reported.
type progress struct {
	start  time.Time
	done   atomic.Int64
	budget bool         // done counts CPU nanoseconds (a --budget run)
	steps  atomic.Int64 // steps finished, in a budget run
	slots  []slot
	cur    atomic.Pointer[phase] // the sampler running
	// summary, when set, estimates the time of the summary after the
	// trials (see summaryCost); finished is its estimate (ns) for the
	// samplers that ran before the current one (a budget run's steps are
	// known only once they ran).
	summary  func(steps int64) time.Duration
	finished atomic.Int64
	// traceCap is the most draws a trial keeps after its burn-in: the
	// summary's work is over those, not over the steps.
	traceCap int64
	expected []int // a budget run's estimated steps per trial, by sampler (Config.ExpectedSteps)
}

// phase is one sampler's share of the run (samplers run one after
// another): its trials, each one's work (steps, or CPU ns in a budget
// run), when it started, how many trials have started and how many steps
// were loaded rather than run.
type phase struct {
	name          string
	later         int // samplers after it
	trials, steps int64
	start         int64 // ns since the run's start
	begun         atomic.Int64
	loaded        atomic.Int64
	steps0, done0 int64 // the run's steps and done when it started (budget runs)
}

// startSampler begins the phase of sampler name (later: samplers after
// it), trials of per steps (CPU ns in a budget run) each.
func (p *progress) startSampler(name string, later, trials int, per int64) {
	if prev := p.cur.Load(); prev != nil && p.summary != nil {
		d := prev.trials * prev.steps
		if p.budget {
			d = p.steps.Load() - prev.steps0
		}
		p.finished.Add(int64(p.summary(p.kept(prev.trials, d))))
	}
	p.cur.Store(&phase{name: name, later: later, trials: int64(trials), steps: per, start: p.now(),
		steps0: p.steps.Load(), done0: p.done.Load()})
}

// kept is the draws the summary of trials trials of steps steps in all
// works on: at most traceCap a trial (0: no cap).
func (p *progress) kept(trials, steps int64) int64 {
	if p.traceCap <= 0 || trials <= 0 {
		return steps
	}
	return trials * min(steps/trials, p.traceCap)
}

// summaryETA estimates the summary after the trials (0, false without an
// estimator): the samplers that ran, the running one (in a budget run its
// steps extrapolated from its CPU so far) and the samplers still to run
// (in a budget run from the pilot's estimate, p.expected, when known).
func (p *progress) summaryETA() (time.Duration, bool) {
	ph := p.cur.Load()
	if p.summary == nil || ph == nil {
		return 0, false
	}
	d := time.Duration(p.finished.Load())
	if !p.budget {
		return d + time.Duration(1+ph.later)*p.summary(p.kept(ph.trials, ph.trials*ph.steps)), true
	}
	spent := p.done.Load() - ph.done0
	if spent <= 0 {
		return 0, false
	}
	steps := float64(p.steps.Load()-ph.steps0) * float64(ph.trials*ph.steps) / float64(spent)
	d += p.summary(p.kept(ph.trials, int64(steps)))
	for i := max(0, len(p.expected)-ph.later); i < len(p.expected); i++ {
		d += p.summary(p.kept(ph.trials, ph.trials*int64(p.expected[i])))
	}
	return d, true
}

// eta estimates the time left of the running sampler from the measured
// speed of each of its trials (not from the fraction of steps done, which
// misleads when samplers' steps cost differently): each running trial's
// remaining steps at its own rate so far, the trials not yet started at
// the mean rate, shared by the trial goroutines. ok is false before any
// trial has a rate; later is the samplers still to run, whose time is
// unknown until they start.
func (p *progress) eta() (d time.Duration, name string, later int, ok bool) {
	ph := p.cur.Load()
	if ph == nil {
		return 0, "", 0, false
	}
	if p.budget {
		return p.budgetETA(ph)
	}
	now := p.now()
	var left, perSum float64 // ns of running trials' remaining steps; sum of their ns per step
	rated := 0
	for i := range p.slots {
		s := &p.slots[i]
		if s.trial.Load() == 0 {
			continue
		}
		n := s.steps.Load()
		if n <= 0 {
			continue
		}
		per := float64(now-s.begun.Load()) / float64(n)
		left += per * float64(max(0, ph.steps-n-s.restored.Load()))
		perSum += per
		rated++
	}
	if rated == 0 {
		return 0, ph.name, ph.later, false
	}
	queued := max(0, ph.trials-ph.begun.Load())
	left += float64(queued*ph.steps) * perSum / float64(rated)
	return time.Duration(left / float64(len(p.slots))), ph.name, ph.later, true
}

// budgetETA is eta for a budget run, which knows every trial's work in
// advance: each running trial's CPU still to spend at its own rate of
// wall time per CPU second so far, the trials not yet started and those
// of the samplers after this one (each sampler has the same budget) at
// the running trials' mean rate, shared by the trial goroutines. later
// is 0: the samplers after this one are in the estimate.
func (p *progress) budgetETA(ph *phase) (time.Duration, string, int, bool) {
	now := p.now()
	var left, rateSum float64 // wall ns of the running trials' remaining CPU; sum of their rates
	rated := 0
	for i := range p.slots {
		s := &p.slots[i]
		if s.trial.Load() == 0 {
			continue
		}
		cpu := s.cpu.Load()
		spent := cpu - s.cpuRestored.Load()
		if spent <= 0 {
			continue
		}
		rate := float64(now-s.begun.Load()) / float64(spent)
		left += rate * float64(max(0, ph.steps-cpu))
		rateSum += rate
		rated++
	}
	if rated == 0 {
		return 0, ph.name, ph.later, false
	}
	queued := max(0, ph.trials-ph.begun.Load()) + int64(ph.later)*ph.trials
	left += float64(queued*ph.steps) * rateSum / float64(rated)
	return time.Duration(left / float64(len(p.slots))), ph.name, 0, true
}

// slot is one trial goroutine's line of the board, on cache lines of its
// own (its trial writes it every reportEvery steps, the reporter reads it).
type slot struct {
	_        [64]byte
	sampler  atomic.Pointer[string]
	trial    atomic.Int64 // the trial running + 1; 0 when idle
	last     atomic.Int64 // time of its last report (ns since start)
	per      atomic.Int64 // ns per step over its last report's interval
	warned   atomic.Bool  // this stall was reported
	begun    atomic.Int64 // when its trial started (ns since start)
	steps    atomic.Int64 // steps its trial ran in this process
	restored atomic.Int64 // steps its trial restored from a checkpoint
	// In a budget run: its trial's CPU so far (ns), and what of it was
	// restored from a checkpoint.
	cpu, cpuRestored atomic.Int64
	_                [64]byte
}

func newProgress(slots int) *progress {
	return &progress{start: time.Now(), slots: make([]slot, slots)}
}

func (p *progress) now() int64 { return int64(time.Since(p.start)) }

// begin marks slot w as running trial t of the sampler.
func (p *progress) begin(w int, name string, t int) {
	s := &p.slots[w]
	s.sampler.Store(&name)
	s.last.Store(p.now())
	s.per.Store(0)
	s.warned.Store(false)
	s.begun.Store(s.last.Load())
	s.steps.Store(0)
	s.restored.Store(0)
	s.cpu.Store(0)
	s.cpuRestored.Store(0)
	s.trial.Store(int64(t) + 1)
	if ph := p.cur.Load(); ph != nil {
		ph.begun.Add(1)
	}
}

// end marks slot w idle.
func (p *progress) end(w int) { p.slots[w].trial.Store(0) }

// restored adds n steps, and in a budget run cpu seconds, that slot w's
// trial (w < 0: a finished trial) loaded from disk rather than ran: they
// say nothing of its speed.
func (p *progress) restored(w int, n int64, cpu float64) {
	if p == nil {
		return
	}
	if !p.budget {
		p.done.Add(n)
		if w >= 0 {
			p.slots[w].restored.Add(n)
		}
		return
	}
	ns := int64(cpu * 1e9)
	p.steps.Add(n)
	p.done.Add(ns)
	if w >= 0 {
		s := &p.slots[w]
		s.restored.Add(n)
		s.cpu.Store(ns)
		s.cpuRestored.Store(ns)
	}
}

// reportCPU tells the board that slot w's trial has spent cpu seconds of
// thread CPU (a budget run).
func (p *progress) reportCPU(w int, cpu float64) {
	ns := int64(cpu * 1e9)
	p.done.Add(ns - p.slots[w].cpu.Swap(ns))
}

// report adds n steps that slot w's trial ran.
func (p *progress) report(w int, n int64) {
	if p == nil {
		return
	}
	if p.budget {
		p.steps.Add(n)
	} else {
		p.done.Add(n)
	}
	if n <= 0 {
		return
	}
	s := &p.slots[w]
	s.steps.Add(n)
	now := p.now()
	s.per.Store((now - s.last.Load()) / n)
	s.last.Store(now)
}

// stalls describes the trials that have newly stalled (see StallAfter); a
// trial is described once per stall.
func (p *progress) stalls() []string {
	var out []string
	now := p.now()
	for i := range p.slots {
		s := &p.slots[i]
		t := s.trial.Load()
		if t == 0 {
			continue
		}
		since := time.Duration(now - s.last.Load())
		expect := time.Duration(s.per.Load() * reportEvery)
		if since <= StallAfter || since <= stallFactor*expect {
			s.warned.Store(false)
			continue
		}
		if s.warned.Swap(true) {
			continue
		}
		before := "before it reported any step"
		if expect > 0 {
			before = fmt.Sprintf("it reported every %v before", roughly(expect))
		}
		out = append(out, fmt.Sprintf("trial %d of %s has made no progress for %v (%s); if it does not resume, `kill -QUIT %d` prints where every goroutine waits (attach it to a bug report), and Ctrl-C stops the run keeping every finished trial",
			t-1, *s.sampler.Load(), roughly(since), before, os.Getpid()))
	}
	return out
}

// roughly is d to about two significant digits.
func roughly(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Hour; unit *= 10 {
		if d < 100*unit {
			return d.Round(unit)
		}
	}
	return d.Round(time.Minute)
}

// startProgress reports cfg's progress: on cfg.Progress a bar redrawn in
// place when it is a terminal, otherwise one plain line (steps done, rate,
// ETA) per ProgressInterval, which reads well in batch logs; on
// cfg.Warnings, the trials that stall. It returns the function that stops
// it.
func startProgress(cfg *Config, p *progress, total int64) func() {
	w, tty, warn := cfg.Progress, cfg.ProgressTTY, cfg.Warnings
	if w == nil && warn == nil || total == 0 {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	interval := ProgressInterval
	if tty && w != nil {
		interval = 200 * time.Millisecond
	}
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				if tty && w != nil {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-tick.C:
				if warn != nil {
					for _, s := range p.stalls() {
						if tty && w != nil {
							fmt.Fprint(w, "\r\033[K") // the bar is redrawn below
						}
						fmt.Fprintf(warn, "sardonics: warning: %s\n", s)
					}
				}
				if w != nil {
					progressLine(w, tty, p, total)
				}
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// progressLine draws the bar or writes the plain line: steps done, the
// overall rate, and the ETA of the running sampler (see eta); in a budget
// run, the thread CPU spent of the run's total, the steps, and the ETA of
// all its trials; with an estimator (summaryETA) the ETA adds the summary.
func progressLine(w io.Writer, tty bool, p *progress, total int64) {
	d := p.done.Load()
	el := time.Since(p.start).Seconds()
	rate := float64(d) / el
	eta, forAll := "?", " for all trials"
	if left, name, later, ok := p.eta(); name != "" {
		if ok {
			eta = roughly(left).String()
			if s, ok := p.summaryETA(); ok && later == 0 {
				eta = fmt.Sprintf("%s (trials %s, then about %s to summarize)", roughly(left+s), roughly(left), roughly(s))
				forAll = ""
			}
		}
		if later > 0 {
			eta += fmt.Sprintf(" for %s, then %s not yet timed", name, plural(later, "sampler"))
		}
	}
	frac := min(1, float64(d)/float64(total))
	if p.budget {
		if tty {
			const width = 30
			n := min(width, int(frac*width))
			fmt.Fprintf(w, "\r[%s%s] %5.1f%% of %.4g CPU s, %d steps, ETA %s\033[K", strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac, float64(total)/1e9, p.steps.Load(), eta)
		} else {
			fmt.Fprintf(w, "progress: %.1f/%.4g s of thread CPU (%.1f%%), %d steps, ETA %s%s\n", float64(d)/1e9, float64(total)/1e9, 100*frac, p.steps.Load(), eta, forAll)
		}
		return
	}
	if tty {
		const width = 30
		n := min(width, int(frac*width))
		fmt.Fprintf(w, "\r[%s%s] %5.1f%% %.0f steps/s ETA %s\033[K", strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac, rate, eta)
	} else {
		fmt.Fprintf(w, "progress: %d/%d steps (%.1f%%), %.0f steps/s, ETA %s\n", d, total, 100*frac, rate, eta)
	}
}

// plural is "1 sampler" or "n samplers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// hookPoint names a hand-off between Run and its trial goroutines, where
// tests inject pauses (at; a no-op in the product, see inject_off.go).
type hookPoint int

const (
	hookDispatch   hookPoint = iota // Run: about to hand out a trial
	hookTrialStart                  // trial goroutine: received a trial
	hookTrialEnd                    // trial goroutine: finished a trial
	hookJoined                      // Run: every trial goroutine has returned
	hookPoints
)
