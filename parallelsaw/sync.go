package parallelsaw

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	pace "sardonics/internal/handoff"
	"sardonics/topology"
)

// Synchronization. The coordinator publishes a command by storing its
// sequence number s in cmd.seq; each section's command is then taken once,
// by its worker or by the coordinator, through a compare-and-swap of the
// section's claim to s. The section's work is the same whoever does it, so
// the results are too, bit for bit.
//
// A worker that is running spins on cmd.seq and claims its command within
// a fraction of a microsecond; the coordinator, after running section 0,
// waits for it (spinning for spinFor, then parked until the worker ends).
// A worker that is not running (parked, or descheduled because the OS gave
// its CPU to another thread) is not waited for: once the worker has had
// graceSpins polls to claim, or at once when it is parked or the
// coordinator ran its previous command and it has not been seen since,
// the coordinator runs the section itself. (A worker that finds its
// command taken says so in seen, and gets its grace again.) So a
// machine with fewer free CPUs than sections costs the parallel speedup,
// never a stall per flip, and the coordinator never waits for a thread that
// has no CPU except while that thread is in the middle of its section.
//
// Workers spin for spinFor waiting for the next command, then park on a
// channel (releasing their CPU and the Go scheduler's P); one that found
// its command taken twice in a row parks at once. The coordinator wakes a
// parked worker when it publishes a command, unless the worker's last
// waking spell was wasted (it ran none of its commands, or the coordinator
// ran most of them from the first one it ran): then
// it is left parked for a number of commands that doubles with each wasted
// spell (4 << pen, up to 4 << maxPen) and resets with a useful one. Every
// sleeper flag is checked by the waker before it pays for a wake-up.
// Workers beyond the threads that can run at once (GOMAXPROCS or the CPUs,
// when P exceeds them) are passive: parked from the start, never woken but
// to quit, their sections always run by the coordinator.
//
// Whether the workers pay (issue 32): a hand-off per flip costs the
// cache line's trip between CPUs at best and a wake-up at worst, against
// a section's share of one flip. The hub's handoff.Policy (imported as
// pace) measures the wall time and the threads' waiting CPU per command
// over windows of commands (about 4 ms) and keeps the number of active
// workers (1..the threads that can run at once) that measured fastest,
// as long as the wall time it saves exceeds the waiting it adds: it
// tries more only when the calibrated spin hand-off could pay, retries
// with exponential back-off, and goes back to the coordinator alone at
// once when a thread sees itself descheduled while it spins
// (handoff.Spell: its CPU time grew at less than half its wall time),
// the thread parking at once. Workers beyond the active count
// are passive for the while: not woken, their sections run by the
// coordinator, which still claims each of them (a deactivated worker may
// still be spinning and claim a command before it sees it taken).
//
// The CPU the threads spend waiting (spinning, parking, waking each
// other) is counted apart (WaitCPUSeconds): a parked spell by its thread
// CPU clock, a spin by its wall time less the gaps in which its thread
// did not run, one spin in 16 timed from its start (a hand-off of a
// microsecond cannot afford two clock reads), weighted by 16.
//
// What makes the parking correct (issue 21 audited it): a wake-up is only a
// hint. Every parked waiter re-checks its condition when it wakes and
// parks again if it does not hold, so a late token (its sender was
// descheduled between making a condition true and sending) cannot be taken
// for a later condition; and each parked spell (a flag set to 1) ends with
// exactly one token consumed, taken by whoever cleared the flag, so none is
// left over for a later spell and no send blocks. TestSyncStress checks it
// under an adversarial scheduler; TestBrokenWaitCaught shows the check
// fails for a coordinator that skips the re-check (both under the tag
// inject, which builds the hook, chaos and broken variants of
// inject_on.go).

// hookPoint names a step of the hand-off protocol, where tests inject
// pauses and check that each section runs each command exactly once
// before the coordinator's run returns (see hook, in inject_on.go).
type hookPoint int

const (
	hookPublished           hookPoint = iota // run: command s published, no worker woken yet
	hookWakeTaken                            // wake: sleeping cleared, token not yet sent
	hookExec                                 // section p is about to run command s (worker or coordinator)
	hookExecuted                             // section p ran command s, done not yet stored
	hookCoordParkAnnounced                   // run: parked flag set, condition not yet re-checked
	hookCoordWoken                           // run: token received, condition not yet re-checked
	hookRoundEnd                             // run: about to return from command s
	hookWorkerParkAnnounced                  // await: sleeping set, seq not yet re-checked
	hookWorkerWoken                          // await: token received, seq not yet re-checked
	hookWorkerDone                           // worker: done stored, parked flag not yet checked
	hookWorkerNotifyTaken                    // worker: parked flag cleared, token not yet sent
	hookStepPublished                        // lockstep walk: section p published a step (s: the line's number)
	hookStepSeen                             // lockstep walk: an executor (p: its first section) saw every section's line of a step, not yet read
	hookInactive                             // run: section p's worker is inactive (the policy), its command about to be claimed by the coordinator (before it is published; in the broken variant, run unclaimed after section 0)
	hookCatchUp                              // lockstep walk's end: an executor (p: its first section) about to do its sections' share of the catch-ups
	hookPoints
)

// handoff is the synchronization words of a section's result line, at
// its head (each engine's result type embeds it), so that the coordinator
// reads the section's results with its done.
type handoff struct {
	done     atomic.Uint64
	seen     atomic.Uint64 // a command the worker found taken (it is running)
	sleeping atomic.Int32
}

// claimLine holds the last sequence number whose command was taken for a
// section, by its worker or by the coordinator, on its own cache line: the
// worker's claim stays in its cache unless the coordinator steals.
type claimLine struct {
	_   [64]byte
	seq atomic.Uint64
	_   [56]byte
}

// waitFlag marks a parked waiter, on its own cache line.
type waitFlag struct {
	_    [64]byte
	flag atomic.Int32
	wake chan struct{}
	_    [64]byte
}

// slot is one section's part of the hand-off, whatever the engine: each
// engine's section embeds it.
type slot struct {
	ho     *handoff // in the section's result line
	claim  claimLine
	do     func() // runs the current command on the section
	wake   chan struct{}
	pinErr error
	tid    atomic.Int32 // the worker's OS thread, once it runs
	cpu0   float64      // that thread's CPU time when the worker started (written before tid)
	waitNs atomic.Int64 // the worker's CPU spent waiting (see WaitCPUSeconds)
	spells uint32       // the worker's spells so far (one in 16 is timed)
	execNs atomic.Int64 // profiling: time running the section's commands
}

// hub is the hand-off's shared state: what the coordinator and the
// workers of one engine see. The engine's command (written by the
// coordinator before it stores the sequence number, read by the workers
// after they load it) sits on the line of cmdSeq.
type hub struct {
	cmdSeq   *atomic.Uint64 // the command's sequence number
	quitting bool           // the command is to quit (written before cmdSeq)
	parked   waitFlag       // the coordinator is parked waiting for a section
	slots    []*slot
	ctl      []control // the coordinator's own record of each worker
	seq      uint64
	wg       sync.WaitGroup
	closed   bool
	steals   uint64                       // sections the coordinator ran for a worker (for tests)
	wakes    uint64                       // wake-ups sent to parked workers (for tests)
	hook     func(hookPoint, int, uint64) // the package's hook when the engine was made (tests only: see inject_on.go)
	broken   bool                         // brokenWait when the engine was made (tests only)
	brokenIn bool                         // brokenInactive when the engine was made (tests only)
	chaos    func(uint64, int) int        // the package's chaos when the engine was made (tests only)
	maxOn    int                          // the threads that can run at once (active at most)
	pol      *pace.Policy                 // nil: at most one thread can run (or chaos)
	active   int                          // workers taking part in the current command, the coordinator's included
	waitNs   atomic.Int64                 // the coordinator's CPU spent waiting
	prof     *profiler                    // nil: not profiling (EnableProfile)
	// together, when set for a command, runs it in lockstep (a
	// lockstep walk): the coordinator runs the sections own (section
	// 0's and those it takes before the first step) all at once, and
	// resolve, called once after their first step, gives each awake
	// worker that has not claimed its section its grace, claims those
	// still unclaimed and returns own with them added.
	together func(own []int, resolve func([]int) []int)
	own      []int // scratch for together
	// togetherNs is the mean wall time of the lockstep commands (the
	// last 8 or so).
	togetherNs int64
	inTogether bool // the current command runs in lockstep (its sections time their steps)
}

// init prepares the hub for the P sections of slots (their ho and do
// set) with its command's sequence number at seq: workers beyond the
// threads that can run at once only take CPU time from the others, so
// they stay parked and the coordinator runs their sections. Of the others
// the policy activates as many as pay (none at first).
func (sh *hub) init(seq *atomic.Uint64, slots []*slot) {
	P := len(slots)
	sh.cmdSeq, sh.slots = seq, slots
	sh.hook, sh.chaos = injected()
	sh.broken, sh.brokenIn = brokenWait, brokenInactive
	sh.parked.wake = make(chan struct{}, 1)
	active := min(P, runtime.GOMAXPROCS(0), numCPU())
	sh.ctl = make([]control, P)
	for p := range sh.ctl {
		sh.ctl[p].awake = p < active
		sh.ctl[p].passive = p >= active
		slots[p].wake = make(chan struct{}, 1)
	}
	sh.active, sh.maxOn = active, active
	if active > 1 && sh.chaos == nil {
		sh.pol = pace.NewPolicy(active, pace.Cached())
		sh.pol.SetCost(sh.waitNanos)
	}
}

// start starts the workers of sections 1..P-1 (worker p pinned to cpus[p]
// when p < len(cpus)), each running build on its own thread, runs
// build(0) on the caller's and returns once every section is built.
func (sh *hub) start(cpus []int, build func(p int)) {
	var started sync.WaitGroup
	for p := 1; p < len(sh.slots); p++ {
		cpu := -1
		if p < len(cpus) {
			cpu = cpus[p]
		}
		sh.wg.Add(1)
		started.Add(1)
		go sh.worker(p, cpu, sh.ctl[p].passive, &started, func() { build(p) })
	}
	build(0)
	started.Wait() // pinned (PinError is final), sections built and thread ids known
}

// workerCPUSeconds is the CPU time so far of the worker threads (see
// Engine.WorkerCPUSeconds).
func (sh *hub) workerCPUSeconds() float64 {
	total := 0.0
	for _, sc := range sh.slots[1:] {
		// Since the worker started: its thread may have run other
		// goroutines before (0: the thread is gone).
		if tid := sc.tid.Load(); tid > 0 {
			if c := topology.ThreadCPU(int(tid)); c > 0 {
				total += c - sc.cpu0
			}
		}
	}
	return total
}

// waitCPUSeconds is the CPU time so far that the coordinator and the
// workers spent waiting for each other (see Engine.WaitCPUSeconds).
func (sh *hub) waitCPUSeconds() float64 { return float64(sh.waitNanos()) / 1e9 }

// waitNanos is waitCPUSeconds in ns.
func (sh *hub) waitNanos() int64 {
	ns := sh.waitNs.Load()
	for _, sc := range sh.slots[1:] {
		ns += sc.waitNs.Load()
	}
	return ns
}

// pinError is the workers' pinning failures (nil if none).
func (sh *hub) pinError() error {
	var errs []error
	for _, sc := range sh.slots {
		errs = append(errs, sc.pinErr)
	}
	return errors.Join(errs...)
}

// at runs the engine's hook at h (no code in the product: injecting is
// false there).
func (sh *hub) at(h hookPoint, p int, s uint64) {
	if injecting && sh.hook != nil {
		sh.hook(h, p, s)
	}
}

// maxMisses is the number of commands in a row a worker may find taken
// before it parks without spinning.
const maxMisses = 2

// maxPen bounds the wake-up back-off exponent.
const maxPen = 12

// sampleEvery is the spells of a thread of which one is timed from its
// start (a power of 2); the timed short ones count that many times.
const sampleEvery = 16

// spellNs is the CPU ns to count for a spell that counted ns: a short
// spell timed as the sample stands for the untimed short ones.
func spellNs(ns int64, long, sampled bool) int64 {
	if sampled && !long {
		return ns * sampleEvery
	}
	return ns
}

// control is the coordinator's record of worker p (the worker never
// touches it).
type control struct {
	passive bool   // never woken: the coordinator runs all its commands
	ran     uint64 // the command the coordinator last ran for it (ran == s-1 at command s: it ran the previous one, so no grace)
	awake   bool   // woken (or started) and not seen parked since
	first   uint64 // the first command it ran itself since then (0: none)
	taken   uint64 // commands the coordinator ran for it since then
	pen     uint8  // wake-up back-off exponent
	next    uint64 // a parked worker is left parked before this sequence number
}

// setActive makes the workers below a active and the others inactive for
// command s: a worker the policy activates starts afresh (no wake-up
// back-off from spells the policy ended), and one it deactivates is not
// judged on its cut spell.
func (sh *hub) setActive(a int) {
	old := sh.active
	for p := min(old, a); p < max(old, a); p++ {
		ct := &sh.ctl[p]
		ct.awake = false
		if p < a {
			ct.pen, ct.next = 0, 0
		}
	}
	sh.active = a
}

// run publishes the command, runs section 0 and the sections of workers
// that are not running, and waits for the others.
func (sh *hub) run() {
	if sh.closed {
		panic("parallelsaw: engine used after Close")
	}
	if sh.prof != nil {
		sh.profStart()
	}
	sh.seq++
	s := sh.seq
	switch {
	case sh.pol != nil:
		if a := sh.pol.Tick(); a != sh.active {
			sh.setActive(a)
		}
	case injecting && sh.chaos != nil:
		if a := min(max(1, sh.chaos(s, sh.maxOn)), sh.maxOn); a != sh.active {
			sh.setActive(a)
		}
	}
	a := sh.active
	secs := sh.slots
	// An inactive worker may still be spinning. Its command is claimed
	// before it is published, so the worker finds it taken and parks
	// (after maxMisses) instead of running, unasked, sections that the
	// policy then measures as the coordinator's: windows at one thread
	// timed with two, which made one thread look as fast as two.
	if !(injecting && sh.brokenIn) {
		for p := a; p < len(secs); p++ {
			if !sh.ctl[p].passive {
				sh.at(hookInactive, p, s)
				sh.claim(p, s)
			}
		}
	}
	sh.inTogether = sh.together != nil // read by the workers after the store
	sh.cmdSeq.Store(s)
	sh.at(hookPublished, 0, s)
	for p := 1; p < a; p++ {
		if secs[p].ho.sleeping.Load() != 0 {
			sh.wake(p, s)
		}
	}
	if sh.together != nil {
		sh.runTogether(s, a)
	} else {
		sh.at(hookExec, 0, s)
		sh.exec(secs[0], true)
		sh.at(hookExecuted, 0, s)
		for p := 1; p < len(secs); p++ {
			ct := &sh.ctl[p]
			switch {
			case p >= a && !ct.passive && injecting && sh.brokenIn:
				sh.at(hookInactive, p, s)
				sh.runUnclaimed(p, s)
			case p >= a && !ct.passive:
				sh.runStolen(p, s) // claimed before it was published
			case ct.passive || secs[p].ho.sleeping.Load() != 0 || ct.ran == s-1 && secs[p].ho.seen.Load() != s-1:
				sh.steal(p, s)
			}
		}
	}
	var w backoff
	var sp pace.Spell
	// One command in sampleEvery times its wait from the start; after a
	// park every spell is timed, and counts once.
	spelling, timed, sampled := false, s%sampleEvery == 0, s%sampleEvery == 0
	for p := 1; p < len(secs); p++ {
		sc, ct := secs[p], &sh.ctl[p]
		if ct.ran == s {
			continue
		}
		claimed := false
		for sc.ho.done.Load() != s {
			if !spelling {
				sp.Start(timed)
				spelling = true
			}
			park, lost := sp.Poll(int64(spinFor))
			if !claimed {
				w.n++
				if !lost && (w.n < graceSpins || w.n&63 != 0) {
					continue
				}
				if sh.steal(p, s) {
					break
				}
				claimed = true // by the worker, which is running its section
			}
			if !park {
				continue
			}
			if lost && sh.pol != nil {
				sh.pol.Lost()
			}
			ns, long := sp.End()
			ns = spellNs(ns, long, sampled)
			timed, sampled = true, false
			c0, tid := pace.ThreadCPUID()
			parked := func() { // the caller's goroutine may resume on another thread
				if c1, tid1 := pace.ThreadCPUID(); tid1 == tid {
					ns += c1 - c0
				}
				sh.waitNs.Add(ns)
			}
			// Park; any worker that finishes wakes us, and we recheck.
			sh.parked.flag.Store(1)
			sh.at(hookCoordParkAnnounced, p, s)
			if sc.ho.done.Load() == s && sh.parked.flag.CompareAndSwap(1, 0) {
				parked()
				spelling = false
				break
			}
			<-sh.parked.wake // a worker cleared the flag and sends once
			parked()
			sh.at(hookCoordWoken, p, s)
			spelling = false
			if injecting && sh.broken {
				break
			}
			w = backoff{n: graceSpins}
		}
		if ct.ran != s {
			if ct.first == 0 {
				ct.first, ct.taken = s, 0
			}
		}
	}
	if spelling {
		ns, long := sp.End()
		sh.waitNs.Add(spellNs(ns, long, sampled))
	}
	sh.at(hookRoundEnd, 0, s)
	if sh.prof != nil {
		sh.profEnd()
	}
}

// steal runs worker p's command s on the calling (coordinator's) thread
// unless the worker has claimed it; it reports whether it did.
func (sh *hub) steal(p int, s uint64) bool {
	if !sh.claim(p, s) {
		return false
	}
	sh.runStolen(p, s)
	return true
}

// claim takes worker p's command s for the coordinator unless the worker
// has claimed it; it reports whether it did.
func (sh *hub) claim(p int, s uint64) bool {
	sc := sh.slots[p]
	c := sc.claim.seq.Load()
	return c != s && sc.claim.seq.CompareAndSwap(c, s)
}

// runStolen runs worker p's command s, which the coordinator claimed.
func (sh *hub) runStolen(p int, s uint64) {
	sc := sh.slots[p]
	sh.at(hookExec, p, s)
	sh.exec(sc, true)
	sh.at(hookExecuted, p, s)
	sh.stolen(p, s)
}

// stolen records that the coordinator ran worker p's command s.
func (sh *hub) stolen(p int, s uint64) {
	ct := &sh.ctl[p]
	ct.ran = s
	ct.taken++
	sh.steals++
}

// runTogether runs command s (a active) in lockstep (see together): the
// coordinator takes, before it starts, the sections of inactive workers
// (claimed before it was published; in the broken variant, unclaimed),
// passive ones and parked ones; after the first step it gives the other
// workers their grace to claim and takes those that did not. Then the
// sections it ran count as stolen, as run's do.
func (sh *hub) runTogether(s uint64, a int) {
	secs := sh.slots
	own := append(sh.own[:0], 0)
	took := func(p int) {
		sh.at(hookExec, p, s)
		own = append(own, p)
	}
	for p := 1; p < len(secs); p++ {
		ct := &sh.ctl[p]
		switch {
		case p >= a && !ct.passive && injecting && sh.brokenIn:
			sh.at(hookInactive, p, s)
			took(p)
		case p >= a && !ct.passive:
			took(p) // claimed before it was published
		case ct.passive:
			if sh.claim(p, s) {
				took(p)
			}
		}
	}
	resolve := func(o []int) []int {
		own = o
		for p := 1; p < a; p++ {
			if slices.Contains(own, p) {
				continue
			}
			// A worker still parked is not waited for. An awake one (a
			// woken one takes a wake-up's time, tens of microseconds
			// and a long tail on a virtual machine) is given
			// graceSpins polls, or up to half a lockstep command's
			// mean wall time (at most a millisecond) when that is
			// longer: a section cannot be taken from its worker once
			// its walk started, and a worker that finds its walk
			// taken has parked again by the end of it.
			sc := secs[p]
			var sp pace.Spell
			sp.Start(true)
			wait := min(sh.togetherNs/2, int64(time.Millisecond))
			for n := 1; sc.claim.seq.Load() != s && sc.ho.sleeping.Load() == 0; n++ {
				if park, _ := sp.Poll(wait); park && n >= graceSpins {
					break
				}
			}
			ns, _ := sp.End()
			sh.waitNs.Add(ns)
			if sh.claim(p, s) {
				took(p)
			}
		}
		return own
	}
	sh.at(hookExec, 0, s)
	t0 := pace.Now()
	sh.together(own, resolve)
	d := pace.Now() - t0
	sh.togetherNs += (d - sh.togetherNs) / 8
	for _, p := range own {
		sh.at(hookExecuted, p, s)
		if p > 0 {
			sh.stolen(p, s)
		}
	}
	sh.own = own
}

// wake wakes parked worker p for command s unless its last waking spell
// was wasted and its back-off has not run out (see above).
func (sh *hub) wake(p int, s uint64) {
	ct := &sh.ctl[p]
	if ct.passive {
		return
	}
	if ct.awake { // parked since it was woken: judge that spell
		ct.awake = false
		if ct.first != 0 && ct.taken*2 <= s-ct.first {
			ct.pen, ct.next = 0, 0
		} else {
			ct.pen = min(ct.pen+1, maxPen)
			ct.next = s + 4<<ct.pen
		}
	}
	if s < ct.next {
		return
	}
	sc := sh.slots[p]
	if sc.ho.sleeping.CompareAndSwap(1, 0) {
		t := pace.Now()
		sh.at(hookWakeTaken, p, s)
		sc.wake <- struct{}{}
		sh.waitNs.Add(pace.Now() - t)
		sh.wakes++
		ct.awake, ct.first = true, 0
	}
}

// quit stops the workers (idempotent).
func (sh *hub) quit() {
	if sh.closed {
		return
	}
	sh.closed = true
	sh.seq++
	sh.quitting = true
	sh.cmdSeq.Store(sh.seq)
	for _, sc := range sh.slots[1:] {
		if sc.ho.sleeping.Load() != 0 && sc.ho.sleeping.CompareAndSwap(1, 0) {
			sc.wake <- struct{}{}
		}
	}
	sh.wg.Wait()
}

func (sh *hub) worker(p, cpu int, passive bool, started *sync.WaitGroup, build func()) {
	defer sh.wg.Done()
	sc := sh.slots[p]
	if cpu >= 0 {
		sc.pinErr = topology.Pin(cpu) // locks the thread even on failure
	} else {
		runtime.LockOSThread()
	}
	tid := topology.ThreadID()
	sc.cpu0 = topology.ThreadCPU(tid)
	sc.tid.Store(int32(tid))
	build()
	started.Done()
	var last uint64
	misses := 0
	for {
		var woken bool
		last, woken = sh.await(p, last, passive || misses >= maxMisses)
		if woken {
			// Woken to take part: if the command it was woken for is
			// taken (the coordinator did not wait for the wake-up), it
			// spins for the next before it parks again (a lockstep
			// walk is taken whole, and the next comes soon).
			misses = 0
		}
		// Only the current command can be claimed: a claim at or past
		// last means the coordinator took it (and maybe later ones).
		if c := sc.claim.seq.Load(); c >= last || !sc.claim.seq.CompareAndSwap(c, last) {
			sc.ho.seen.Store(last)
			misses++
			continue
		}
		misses = 0
		if sh.quitting {
			return
		}
		sh.at(hookExec, p, last)
		sh.exec(sc, false)
		sh.at(hookExecuted, p, last)
		sc.ho.done.Store(last)
		sh.at(hookWorkerDone, p, last)
		if sh.parked.flag.Load() != 0 && sh.parked.flag.CompareAndSwap(1, 0) {
			t := pace.Now()
			sh.at(hookWorkerNotifyTaken, p, last)
			sh.parked.wake <- struct{}{}
			sc.waitNs.Add(pace.Now() - t)
		}
	}
}

// await waits until the command's sequence number differs from last and
// returns it, and whether a wake-up ended a park: spinning for spinFor
// (not at all if park, nor once the thread lost its CPU), then parked
// until the coordinator wakes it, re-checking after every wake-up. It
// counts its CPU time in the slot's waitNs.
func (sh *hub) await(p int, last uint64, park bool) (uint64, bool) {
	seq, sc := sh.cmdSeq, sh.slots[p]
	if s := seq.Load(); s != last {
		return s, false
	}
	woken := false
	sc.spells++
	sampled := sc.spells%sampleEvery == 0
	var sp pace.Spell
	sp.Start(sampled)
	for {
		if s := seq.Load(); s != last {
			ns, long := sp.End()
			sc.waitNs.Add(spellNs(ns, long, sampled))
			return s, woken
		}
		if !park {
			stop, lost := sp.Poll(int64(spinFor))
			if !stop {
				continue
			}
			if lost && sh.pol != nil {
				sh.pol.Lost()
			}
		}
		ns, long := sp.End()
		c0 := pace.ThreadCPU()
		sc.ho.sleeping.Store(1)
		sh.at(hookWorkerParkAnnounced, p, last)
		if seq.Load() != last && sc.ho.sleeping.CompareAndSwap(1, 0) {
			sc.waitNs.Add(spellNs(ns, long, sampled) + pace.ThreadCPU() - c0)
			sp.Start(true) // after a park every spell is timed, and counts once
			sampled = false
			continue
		}
		<-sc.wake // the coordinator cleared sleeping and sends once
		woken = true
		sc.waitNs.Add(spellNs(ns, long, sampled) + pace.ThreadCPU() - c0)
		sh.at(hookWorkerWoken, p, last)
		park = false
		sp.Start(true)
		sampled = false
	}
}

// backoff counts a spin loop's polls (the coordinator's grace before it
// runs a worker's section).
type backoff struct {
	n uint32
}
