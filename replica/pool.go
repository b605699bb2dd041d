package replica

import (
	"runtime"
	"sync/atomic"
	"time"

	"sardonics/internal/handoff"
	"sardonics/topology"
)

// pool runs a round's members on up to W threads, worker 0 being the
// caller (the coordinator), and decides each round how many take part
// (the active count a, from its handoff.Policy): thread i of a runs the
// share of jobs i, i+a, i+2a, ... Members draw only from their own
// streams, so the results depend neither on a nor on which thread runs
// which share. Workers other than the caller are locked to their threads,
// pinned to their CPU when one is given, and report their thread ids for
// CPU accounting.
//
// A round (16 Metropolis sweeps of a 729-spin glass) can cost less than
// the hand-offs that would split it: waking a parked thread costs tens of
// microseconds on a virtual machine, and a worker whose CPU was given to
// another program makes everyone wait. So the pool measures itself: the
// policy tries more threads only when the calibrated spin hand-off could
// pay, keeps a count only while its rounds measure faster on the wall
// clock than with fewer, and goes back to the caller alone at once when a
// thread sees itself descheduled (handoff.Spell). Inactive workers stay
// parked: they are woken only when the policy makes them active again.
//
// The round is published as one word, seq << 16 | a, after the share
// function it runs: a worker learns whether it is active and its share
// from the same load. Each share is taken once, through a
// compare-and-swap of its claim to the round's seq, by its worker or by
// the coordinator: once the coordinator has run its own share it takes
// every share whose worker has not claimed it yet (a worker that is still
// waking up, or that has no CPU), so a slow worker costs the round at most
// the serial time, never a wait for the OS. The coordinator then waits
// only for the shares workers claimed (their done reaches the round's seq).
//
// Waiting correctness rests on two rules (see waiter):
//   - a wake-up is only a hint: every waiter re-checks its condition after
//     it wakes and parks again if it does not hold. A notify can arrive
//     late (its sender was descheduled between making the condition true
//     and notifying), after the waiter has seen the condition by spinning,
//     returned and started waiting for the next one; it must not be taken
//     for that next condition (issue 21: the coordinator returned from a
//     round its worker had not run, and then both parked forever);
//   - each parked spell consumes exactly the one token sent for it, so no
//     token is ever left over for a later spell, and a send never blocks
//     for long (the buffer of one is empty whenever asleep is set).
//
// The conditions change only with the round word: a worker's "a round it
// has not seen, and it is active in it" becomes true only when the
// coordinator publishes such a round, which then wakes the worker if it
// announced it parks (a round can also end, its share taken, before the
// worker looks: it then waits for the next like any other); the
// coordinator's "every claimed share done" stays true until it publishes
// the next round.
type pool struct {
	round atomic.Uint64 // seq << 16 | a, stored after share
	share func(i int)   // the current round's work of thread i (written before round)
	quit  atomic.Bool
	seq   uint64 // rounds published (the coordinator's copy)

	slots []*slot // one per thread; slots[0] is the caller's (waiting time only)
	coord *waiter
	pol   *handoff.Policy
	stole []bool

	// A waiter spins for spin ns before it parks: long enough to bridge
	// a round and the gap to the next (the caller's swaps and its own
	// work), as running means measured while more than one thread works,
	// and a wake-up's price at least (see spinFor).
	spin      atomic.Int64
	parkNs    int64 // the calibrated park hand-off
	roundNs   int64 // mean ns of a round (publish to return)
	gap, end0 int64 // mean ns between rounds; the clock at the last round's end (0: not timed)

	// Tests only (see inject_on.go; every use is behind injecting, so
	// the product's build holds none).
	hook   func(hookPoint, int) // the package's hook when the pool was built
	chaos  func(uint64) int     // the package's chaos when the pool was built
	broken bool                 // brokenActive when the pool was built
	// activeBroken is the broken variant's separately published count.
	activeBroken atomic.Int32
}

// slot is one thread's part of the hand-off, on its own cache lines.
type slot struct {
	_      [64]byte
	claim  atomic.Uint64 // the last round whose share was taken, by the worker or the coordinator
	done   atomic.Uint64 // the last round whose share the worker ran itself
	waitNs atomic.Int64  // CPU ns spent waiting: spinning, parking, waking others
	tid    atomic.Int32
	cpu0   float64 // the thread's CPU time when it started (written before tid)
	w      *waiter
	_      [64]byte
}

// spinFor is how long a waiter spins before it parks (ns): twice a mean
// round and gap, so that a worker that finished its share (or found it
// taken) catches the next round spinning, and at least the calibrated
// park hand-off (a wake-up costs that much on the critical path anyway),
// within [minSpin, maxSpin]. A parked worker is woken when the next
// round is published, and a wake-up of a thread locked to its goroutine
// takes the Go scheduler two thread wake-ups (an idle P's thread takes
// the goroutine, then hands it to its own thread): 75 us on a 2-core
// virtual machine, longer than a 16-member round of a 729-spin glass, so
// the caller would take its share every round and the worker park again
// every round; spinning through the round breaks that circle. A longer
// wait is the caller's own work, which a spinning worker would only slow
// down on a busy machine.
const (
	minSpin = 20_000
	maxSpin = 200_000
)

func spinFor(park, round, gap int64) int64 { return min(max(park, 2*(round+gap), minSpin), maxSpin) }

// hookPoint names a step of the hand-off protocol, where tests inject
// pauses (hook, in inject_on.go).
type hookPoint int

const (
	hookParkAnnounced hookPoint = iota // await: asleep set, condition not yet re-checked
	hookWoken                          // await: a token received, condition not yet re-checked
	hookNotifySwapped                  // notify: asleep taken, token not yet sent
	hookPublished                      // run: round published, workers not yet notified
	hookSeen                           // worker: saw a round it is active in, not yet claimed
	hookClaimed                        // worker: claimed its share, not yet run
	hookShareDone                      // worker: share run, done not yet stored
	hookDoneStored                     // worker: done stored, coordinator not yet notified
	hookStolen                         // run: a worker's share claimed by the coordinator, not yet run
	hookInactive                       // worker: saw a round it is not active in, about to park
	hookPoints
)

// at runs the pool's hook at h (no code in the product: injecting is
// false there).
func (p *pool) at(h hookPoint, i int) {
	if injecting && p.hook != nil {
		p.hook(h, i)
	}
}

// waiter is one goroutine's parking place: it parks only after announcing
// it (asleep) and checking its condition once more, and whoever makes the
// condition true wakes it if it announced.
type waiter struct {
	asleep atomic.Bool
	wake   chan struct{} // buffered 1
	broken bool          // brokenAwait when the pool was built (tests only)
}

// await returns once ready() holds: spinning for spin ns (not at all
// while parkNow() holds, nor once the thread, or the thread watch names
// (0: none), lost its CPU, which it tells the policy), then parked,
// re-checking ready() after every wake-up. It adds the CPU time it waited
// to *ns.
func (p *pool) await(w *waiter, i int, ready, parkNow func() bool, watch func() int, ns *atomic.Int64) {
	if ready() {
		return
	}
	var sp handoff.Spell
	sp.Start(true)
	if watch != nil {
		sp.Watch(watch)
	}
	for !ready() {
		if parkNow != nil && parkNow() {
			p.at(hookInactive, i)
		} else if stop, lost := sp.Poll(p.spin.Load()); !stop {
			continue
		} else if lost && p.pol != nil {
			p.pol.Lost()
		}
		spun, _ := sp.End()
		c0, tid := handoff.ThreadCPUID()
		p.park(w, i, ready)
		if c1, tid1 := handoff.ThreadCPUID(); tid1 == tid { // else the goroutine moved: the park's few us are not counted
			spun += c1 - c0
		}
		ns.Add(spun)
		return
	}
	spun, _ := sp.End()
	ns.Add(spun)
}

// park parks w until ready() holds.
func (p *pool) park(w *waiter, i int, ready func() bool) {
	for {
		w.asleep.Store(true)
		p.at(hookParkAnnounced, i)
		if ready() {
			// A notifier that took asleep owes this spell a token:
			// take it, so that none is left for a later spell.
			if !w.asleep.Swap(false) {
				<-w.wake
			}
			return
		}
		<-w.wake // the notifier cleared asleep
		p.at(hookWoken, i)
		if injecting && w.broken || ready() {
			return
		}
	}
}

// notify wakes w if it parked (or is about to); thread i is the
// notifier, whose waiting time counts the wake-up's cost.
func (p *pool) notify(w *waiter, i int) {
	if w.asleep.Swap(false) {
		t := handoff.Now()
		p.at(hookNotifySwapped, i)
		w.wake <- struct{}{}
		p.slots[i].waitNs.Add(handoff.Now() - t)
	}
}

func newPool(w int, cpus []int) *pool {
	pr := handoff.Cached()
	h, c := injected()
	p := &pool{slots: make([]*slot, w), coord: &waiter{wake: make(chan struct{}, 1), broken: brokenAwait},
		parkNs: int64(pr.ParkOr(30 * time.Microsecond)), stole: make([]bool, w), hook: h, chaos: c, broken: brokenActive}
	p.spin.Store(spinFor(p.parkNs, 0, 0))
	if p.chaos == nil {
		p.pol = handoff.NewPolicy(w, pr)
		p.pol.SetCost(p.waitNs)
	}
	for i := range p.slots {
		p.slots[i] = &slot{w: &waiter{wake: make(chan struct{}, 1), broken: brokenAwait}}
	}
	for i := 1; i < w; i++ {
		go p.worker(i, cpus)
	}
	return p
}

// active is the active count of round word r (or of the broken variant's
// separate word).
func (p *pool) active(r uint64) int {
	if injecting && p.broken {
		return int(p.activeBroken.Load())
	}
	return int(r & 0xffff)
}

func (p *pool) worker(i int, cpus []int) {
	runtime.LockOSThread()
	if i < len(cpus) {
		_ = topology.Pin(cpus[i]) // a failure only costs speed
	}
	sl := p.slots[i]
	tid := topology.ThreadID()
	sl.cpu0 = topology.ThreadCPU(tid)
	sl.tid.Store(int32(tid))
	// last is the round the worker last took (or saw it was not active
	// in), seen the round word that ready found it active in: the round
	// may be over, and the next published, by the time it claims, so it
	// claims the round it saw.
	var last, seen uint64
	ready := func() bool {
		if p.quit.Load() {
			return true
		}
		r := p.round.Load()
		if r>>16 != last && i < p.active(r) {
			seen = r
			return true
		}
		return false
	}
	inactive := func() bool {
		r := p.round.Load()
		return r>>16 != last && i >= p.active(r)
	}
	for {
		p.await(sl.w, i, ready, inactive, nil, &sl.waitNs)
		if p.quit.Load() {
			return
		}
		s := seen >> 16
		last = s
		p.at(hookSeen, i)
		// Only this round can be claimed: a claim at or past s means the
		// coordinator took it (and maybe later ones).
		if c := sl.claim.Load(); c >= s || !sl.claim.CompareAndSwap(c, s) {
			continue
		}
		p.at(hookClaimed, i)
		p.share(i)
		p.at(hookShareDone, i)
		sl.done.Store(s)
		p.at(hookDoneStored, i)
		p.notify(p.coord, i)
	}
}

// run calls job(j) for j < n, thread i of the round's a taking j = i,
// i+a, ..., and returns once every job has returned.
func (p *pool) run(n int, job func(int)) {
	var a int
	if injecting && p.chaos != nil {
		a = p.chaos(p.seq + 1)
	} else {
		a = p.pol.Tick()
	}
	a = max(1, min(a, n, len(p.slots)))
	p.seq++
	s := p.seq
	if a == 1 && !(injecting && p.broken) {
		// Published all the same, so that a worker still spinning from
		// an earlier round sees it is not active and parks at once.
		p.round.Store(s<<16 | 1)
		p.end0 = 0
		for j := range n {
			job(j)
		}
		return
	}
	start := handoff.Now()
	if p.end0 != 0 { // the gap since the last round, both on more than one thread
		p.gap += (start - p.end0 - p.gap) / 8
		p.spin.Store(spinFor(p.parkNs, p.roundNs, p.gap))
	}
	p.share = func(i int) {
		for j := i; j < n; j += a {
			job(j)
		}
	}
	p.round.Store(s<<16 | uint64(a)) // publishes share
	p.at(hookPublished, 0)
	if injecting && p.broken {
		p.activeBroken.Store(int32(a))
	}
	for i := 1; i < a; i++ {
		p.notify(p.slots[i].w, 0)
	}
	p.share(0)
	for i := 1; i < a; i++ {
		sl := p.slots[i]
		c := sl.claim.Load()
		p.stole[i] = c < s && sl.claim.CompareAndSwap(c, s)
		if p.stole[i] {
			p.at(hookStolen, 0)
			p.share(i)
		}
	}
	ready := func() bool {
		for i := 1; i < a; i++ {
			if !p.stole[i] && p.slots[i].done.Load() != s {
				return false
			}
		}
		return true
	}
	// The worker the coordinator waits for is computing its share: if
	// its thread does not get its CPU, the coordinator parks at once.
	watch := func() int {
		for i := 1; i < a; i++ {
			if sl := p.slots[i]; !p.stole[i] && sl.done.Load() != s {
				return int(sl.tid.Load())
			}
		}
		return 0
	}
	p.await(p.coord, 0, ready, nil, watch, &p.slots[0].waitNs)
	p.end0 = handoff.Now()
	p.roundNs += (p.end0 - start - p.roundNs) / 8
}

// cpuSeconds is the CPU time so far of the workers' threads (not the
// caller's) since they started working for the pool: a thread that the Go
// runtime ran other goroutines on before (another trial's, a finished
// pool's caller) does not bring their CPU time.
func (p *pool) cpuSeconds() float64 {
	t := 0.0
	for _, sl := range p.slots[1:] {
		if tid := sl.tid.Load(); tid > 0 {
			if c := topology.ThreadCPU(int(tid)); c > 0 { // 0: the thread is gone (after close)
				t += c - sl.cpu0
			}
		}
	}
	return t
}

// waitSeconds is the CPU time so far that the pool's threads, the
// caller's included, spent waiting for each other: spinning, parking and
// waking a parked thread (see Chain.WaitCPUSeconds).
func (p *pool) waitSeconds() float64 { return float64(p.waitNs()) / 1e9 }

// waitNs is waitSeconds in ns.
func (p *pool) waitNs() int64 {
	var ns int64
	for _, sl := range p.slots {
		ns += sl.waitNs.Load()
	}
	return ns
}

func (p *pool) close() {
	p.quit.Store(true)
	for i := 1; i < len(p.slots); i++ {
		p.notify(p.slots[i].w, 0)
	}
}
