package handoff

import (
	"os"
	"slices"
	"sync/atomic"
	"time"
)

// The policy's constants. A window is the ticks over which the policy
// measures a thread count: at least minTicks and about windowNs, after
// settleTicks (or an eighth of a window) that are not measured after each
// change (a woken thread's first hand-off, a cold cache). At the best
// count, windows in a row are averaged (each new one weighs 1/smooth). A
// count must beat the best by marginPct percent to replace it; a smaller
// count replaces it unless it is slower by that much (the same speed on
// fewer threads is cheaper). A failed probe doubles the windows to the
// next one of its direction, up to 1 << maxExp; probes down from a count
// that pays start at 1 << minDown windows.
const (
	windowNs    = 4_000_000
	minTicks    = 4
	maxTicks    = 1 << 20
	settleTicks = 2
	marginPct   = 5
	maxExp      = 10
	minDown     = 3
	stableRun   = 16
	smooth      = 4
)

// Policy chooses how many of a pool's w threads (the caller's included)
// take part in its next ticks (a round of members, an engine command).
//
// It measures each count over windows of ticks: the wall time per tick,
// gaps between ticks included (so the caller's own work and every
// hand-off are counted), and the CPU its threads spent waiting for each
// other per tick (the cost the pool reports, SetCost). More threads pay
// when they save more wall time than the waiting CPU they add: a count k
// beats a smaller count j when its tick is at least marginPct percent
// shorter and the wall time it saves per tick exceeds the waiting CPU it
// adds per tick. (Two threads that split a round of 10 us into two of 4.5
// and spin 7 us between rounds save 1 us of wall time for 7 of CPU: they
// do not pay.) The counts tried are 1, 2, 4, ... and w. From one thread
// the policy tries the next count up only when the calibrated spin
// hand-off (Price.Spin, twice per tick) could leave the tick cheaper; from
// more, it tries the count below when the count in use no longer beats
// what the count below measured, and otherwise now and then, so that a
// change in the machine's load is seen. Each probe that fails doubles the
// wait before the next in its direction; a probe already slower than the
// best at a quarter, a half or three quarters of its window is given up
// there. A thread that saw itself descheduled while it should run (Lost)
// sends the pool back to one thread at once; the window so far, stall
// included, is the count's measurement, and the wait before trying more
// threads doubles (it halves again after every stableRun windows that
// more threads ran without a loss).
//
// Tick and Active belong to the pool's coordinator; Lost is safe for
// concurrent use.
type Policy struct {
	cands        []int   // the thread counts tried, increasing; cands[0] = 1
	cur, best    int     // indices into cands: in use, measured fastest
	est          []int64 // wall ns per tick at each count, last measured (0: never)
	west         []int64 // waiting CPU ns per tick at each count, last measured
	ticks, limit int     // ticks in the current window (or settling), and its length
	peek         int     // the tick of a probe's next look at its window
	window       int     // measured window length in ticks
	t0, c0       int64   // clock and cost at the window's start
	settling     bool
	kept         bool // the last window ended at the same count (est[cur] is its running mean)
	expUp        int  // back-off exponent of the probes up (and of the return after a loss)
	expDown      int  // back-off exponent of the probes down
	wait         int  // windows to the next probe
	stable       int  // windows in a row at a best count above 1 without a loss
	spin         int64
	fixed        int // > 0: the count of every tick (SARDONICS_HANDOFF)
	lost         atomic.Int64
	seen         int64
	qt0          int64    // clock at the start of the window's current quarter
	qk           int      // ticks at the start of the window's current quarter
	qm           [5]int64 // wall ns per tick of the window's quarters so far
	nq           int
	now          func() int64
	cost         func() int64

	// Probes, Drops and Windows count the probes started, the drops to
	// one thread after Lost and the windows measured.
	Probes, Drops, Windows int
}

// NewPolicy is the policy of a pool of w threads with the hand-off price
// pr (an untrusted spin price counts as 1 us). It starts with one thread.
// The environment variable SARDONICS_HANDOFF, a diagnostic, replaces it:
// "all" runs every tick on the w threads (the pools before issue 32),
// "one" on the caller's alone; the output is the same either way.
func NewPolicy(w int, pr Price) *Policy {
	p := &Policy{spin: int64(pr.SpinOr(time.Microsecond)), now: Now, cost: func() int64 { return 0 },
		window: minTicks, expDown: minDown}
	for a := 1; a < w; a *= 2 {
		p.cands = append(p.cands, a)
	}
	p.cands = append(p.cands, max(1, w))
	p.est = make([]int64, len(p.cands))
	p.west = make([]int64, len(p.cands))
	p.switchTo(0)
	switch os.Getenv("SARDONICS_HANDOFF") {
	case "all":
		p.fixed = max(1, w)
	case "one":
		p.fixed = 1
	}
	return p
}

// SetClock replaces the clock (tests).
func (p *Policy) SetClock(now func() int64) { p.now = now }

// SetCost gives the policy the CPU time (ns, a running total) that the
// pool's threads have spent waiting for each other.
func (p *Policy) SetCost(cost func() int64) { p.cost = cost }

// Active is the thread count in use.
func (p *Policy) Active() int {
	if p.fixed > 0 {
		return p.fixed
	}
	return p.cands[p.cur]
}

// Lost reports that a thread of the pool was descheduled while it spun
// or ran its share: the pool goes back to one thread at its next tick.
func (p *Policy) Lost() { p.lost.Add(1) }

// Tick starts a tick and returns the number of threads to run it on.
func (p *Policy) Tick() int {
	if p.fixed > 0 {
		return p.fixed
	}
	if l := p.lost.Load(); l != p.seen {
		p.seen = l
		if p.cur > 0 {
			p.drop()
		}
	}
	p.ticks++
	switch {
	case p.ticks >= p.limit:
		p.endWindow()
	case p.ticks == p.peek:
		p.quarter()
		p.peekProbe()
	}
	return p.cands[p.cur]
}

// beats reports whether count k, measuring m wall and w waiting ns per
// tick, beats count j as last measured.
func (p *Policy) beats(k int, m, w int64, j int) bool {
	b, bw := p.est[j], p.west[j]
	if k > j {
		return 100*m+marginPct*m < 100*b && b-m > w-bw
	}
	return 100*m < (100+marginPct)*b || m-b < bw-w
}

// quarter closes a quarter of the window: its wall ns per tick.
func (p *Policy) quarter() {
	now := p.now()
	if p.ticks > p.qk && p.nq < len(p.qm) {
		p.qm[p.nq] = (now - p.qt0) / int64(p.ticks-p.qk)
		p.nq++
	}
	p.qt0, p.qk = now, p.ticks
}

// median is the median of the window's quarters so far: a window is
// judged by it, not by its mean, so that one tick that costs far more on
// any count (an engine's periodic refresh, a GC pause) does not make a
// count look slower than it is (issue 33: one such window at two threads
// sent a pool that paid back to one thread for seconds).
func (p *Policy) median() int64 {
	q := p.qm[:p.nq]
	slices.Sort(q)
	if len(q)%2 == 1 {
		return q[len(q)/2]
	}
	return (q[len(q)/2-1] + q[len(q)/2]) / 2
}

// peekProbe looks at a probe's window every quarter: a count that is
// already slower than the best measured is given up at once.
func (p *Policy) peekProbe() {
	p.peek += max(1, p.limit/4)
	if p.cur == p.best || p.settling {
		return
	}
	if m := p.median(); 100*m > (100+marginPct)*p.est[p.best] {
		p.est[p.cur] = m
		p.west[p.cur] = (p.cost() - p.c0) / int64(p.ticks)
		p.Windows++
		p.failProbe()
		p.switchTo(p.best)
	}
}

// failProbe backs off the probes in the direction of the one that failed.
func (p *Policy) failProbe() {
	if p.cur > p.best {
		p.expUp = min(p.expUp+1, maxExp)
		p.wait = 1 << p.expUp
	} else {
		p.expDown = min(p.expDown+1, maxExp)
		p.wait = 1 << p.expDown
	}
}

// drop goes back to one thread after a loss.
func (p *Policy) drop() {
	if !p.settling && p.ticks > 0 {
		p.est[p.cur] = max(1, (p.now()-p.t0)/int64(p.ticks))
		p.west[p.cur] = (p.cost() - p.c0) / int64(p.ticks)
	}
	p.Drops++
	p.best, p.stable = 0, 0
	p.expUp = min(p.expUp+1, maxExp)
	p.wait = 1 << p.expUp
	p.switchTo(0)
}

func (p *Policy) switchTo(k int) {
	p.cur, p.settling, p.ticks, p.kept = k, true, 0, false
	p.limit = max(settleTicks, p.window/8)
	p.peek = -1
}

// startWindow starts a measured window at the current count.
func (p *Policy) startWindow(now int64) {
	p.settling, p.t0, p.c0, p.ticks, p.limit = false, now, p.cost(), 0, p.window
	p.peek = max(1, p.limit/4)
	p.qt0, p.qk, p.nq = now, 0, 0
}

// endWindow is called at the start of the tick that ends a window (or the
// settling ticks): the window's ticks are the ones before it.
func (p *Policy) endWindow() {
	now := p.now()
	if p.settling {
		p.startWindow(now)
		return
	}
	p.quarter()
	m := max(1, p.median())
	w := max(0, (p.cost()-p.c0)/int64(p.ticks))
	p.Windows++
	p.window = int(min(max(windowNs/m, minTicks), maxTicks))
	if p.cur == p.best && p.kept && p.est[p.cur] > 0 {
		// Windows in a row at the best count: a running mean, so that
		// one stalled round (a thread preempted in its share) does not
		// throw away a count that pays.
		m = p.est[p.cur] + (m-p.est[p.cur])/smooth
		w = p.west[p.cur] + (w-p.west[p.cur])/smooth
	}
	p.est[p.cur], p.west[p.cur] = m, w
	next := p.cur
	if p.cur != p.best { // a probe
		up := p.cur > p.best
		switch {
		case !p.beats(p.cur, m, w, p.best):
			p.failProbe()
			next = p.best
		case up:
			p.best, p.stable, p.wait = p.cur, 0, 1<<p.expDown
			if p.cur+1 < len(p.cands) && p.gate(m, p.cur+1) {
				next = p.cur + 1
				p.Probes++
			}
		default:
			// Fewer threads do as well: more pay less than they did.
			p.best, p.stable, p.expDown = p.cur, 0, minDown
			p.expUp = min(p.expUp+1, maxExp)
			p.wait = 1 << p.expUp
		}
	} else {
		if p.cur > 0 {
			if p.stable++; p.stable >= stableRun {
				p.stable, p.expUp = 0, max(0, p.expUp-1)
			}
		}
		switch {
		case p.cur > 0 && p.est[p.cur-1] > 0 && !p.beats(p.cur, m, w, p.cur-1):
			next = p.cur - 1 // no better now than the count below was: measure it again
			p.Probes++
		default:
			if p.wait--; p.wait > 0 {
				break
			}
			switch {
			case p.cur+1 < len(p.cands) && p.gate(m, p.cur+1):
				next = p.cur + 1
				p.Probes++
			case p.cur > 0:
				next = p.cur - 1
				p.Probes++
			default:
				p.wait = 1 << p.expUp
			}
		}
	}
	if next != p.cur {
		p.switchTo(next)
		return
	}
	p.kept = true
	p.startWindow(now)
}

// gate reports whether count k could beat m ns per tick at the current
// count: the same work split over more threads, plus two spin hand-offs.
func (p *Policy) gate(m int64, k int) bool {
	pred := m*int64(p.cands[p.cur])/int64(p.cands[k]) + 2*p.spin
	return 100*pred+marginPct*pred < 100*m
}
