package replica

import (
	"runtime"
	"sync/atomic"
	"time"

	"sardonics/topology"
)

// pool runs a round's members on several goroutines: job j goes to worker
// j mod W, worker 0 being the caller, so the assignment (and with it every
// member's thread) is fixed. Members draw only from their own streams, so
// the results do not depend on W. Workers other than the caller are
// locked to their threads, pinned to their CPU when one is given, and
// report their thread ids for CPU accounting.
//
// Rounds can be short (16 Metropolis sweeps of a 729-spin glass take about
// 90 us), and waking a parked thread costs tens of microseconds on a
// virtual machine, so both sides spin for spinFor before they park: a
// worker that finished its share catches the next round while spinning,
// and a CPU taken away by the OS costs at most spinFor of spinning before
// everyone blocks.
//
// Correctness rests on two rules (see waiter):
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
// The conditions are monotone within a round: a worker's seq != last
// stays true until it runs the round, and left == 0 stays true until the
// coordinator itself publishes the next round. So a waiter that sees its
// condition true can act on it, whatever tokens are in flight.
type pool struct {
	seq   atomic.Uint64 // rounds published
	share func(int)     // the current round's work of worker i
	left  atomic.Int32  // workers still working on the current round
	quit  atomic.Bool

	workers []*waiter // index 0 unused
	coord   *waiter
	tids    []atomic.Int32
	// cpu0[i] is worker i's thread CPU when it started (written before
	// tids[i]): the thread may have run other goroutines before it.
	cpu0 []float64
}

// spinFor is how long a waiter spins before it parks.
const spinFor = 50 * time.Microsecond

// hookPoint names a step of the hand-off protocol, where tests inject
// pauses (hook).
type hookPoint int

const (
	hookParkAnnounced hookPoint = iota // await: asleep set, condition not yet re-checked
	hookWoken                          // await: a token received, condition not yet re-checked
	hookNotifySwapped                  // notify: asleep taken, token not yet sent
	hookPublished                      // run: round published, workers not yet notified
	hookClaimed                        // worker: saw the round, share not yet run
	hookShareDone                      // worker: share run, left not yet decremented
	hookDecremented                    // worker: left decremented to 0, coordinator not yet notified
	hookPoints
)

// hook, when set by a test, runs at every hookPoint of the pools built
// after it is set (a stand-in for the OS descheduling the thread there).
// It is nil in the product: a load and a predicted branch per hand-off.
var hook func(hookPoint)

// brokenAwait restores the wake-up handling of ddf44e3 (a token ends the
// wait without re-checking the condition); tests use it to show that the
// stress test catches the bug.
var brokenAwait = false

func (w *waiter) at(p hookPoint) {
	if w.hook != nil {
		w.hook(p)
	}
}

// waiter is one goroutine's parking place: it parks only after announcing
// it (asleep) and checking its condition once more, and whoever makes the
// condition true wakes it if it announced.
type waiter struct {
	asleep atomic.Bool
	wake   chan struct{}   // buffered 1
	hook   func(hookPoint) // the package's hook when the pool was built
	broken bool            // brokenAwait when the pool was built
}

func newWaiter() *waiter {
	return &waiter{wake: make(chan struct{}, 1), hook: hook, broken: brokenAwait}
}

// await returns once ready() holds: spinning for spinFor, then parked,
// re-checking ready() after every wake-up.
func (w *waiter) await(ready func() bool) {
	start := time.Now()
	for i := 0; !ready(); i++ {
		if i&255 != 255 || time.Since(start) <= spinFor {
			continue
		}
		for {
			w.asleep.Store(true)
			w.at(hookParkAnnounced)
			if ready() {
				// A notifier that took asleep owes this spell a token:
				// take it, so that none is left for a later spell.
				if !w.asleep.Swap(false) {
					<-w.wake
				}
				return
			}
			<-w.wake // the notifier cleared asleep
			w.at(hookWoken)
			if w.broken || ready() {
				return
			}
		}
	}
}

// notify wakes w if it parked (or is about to).
func (w *waiter) notify() {
	if w.asleep.Swap(false) {
		w.at(hookNotifySwapped)
		w.wake <- struct{}{}
	}
}

func newPool(w int, cpus []int) *pool {
	p := &pool{workers: make([]*waiter, w), tids: make([]atomic.Int32, w), cpu0: make([]float64, w)}
	p.coord = newWaiter()
	for i := 1; i < w; i++ {
		p.workers[i] = newWaiter()
		go func() {
			runtime.LockOSThread()
			if i < len(cpus) {
				_ = topology.Pin(cpus[i]) // a failure only costs speed
			}
			tid := topology.ThreadID()
			p.cpu0[i] = topology.ThreadCPU(tid)
			p.tids[i].Store(int32(tid))
			var last uint64
			for {
				p.workers[i].await(func() bool { return p.seq.Load() != last || p.quit.Load() })
				if p.quit.Load() {
					return
				}
				last = p.seq.Load()
				me := p.workers[i]
				me.at(hookClaimed)
				p.share(i)
				me.at(hookShareDone)
				if p.left.Add(-1) == 0 {
					me.at(hookDecremented)
					p.coord.notify()
				}
			}
		}()
	}
	return p
}

// run calls job(j) for j < n, worker i taking j = i, i+W, ..., and returns
// once every job has returned.
func (p *pool) run(n int, job func(int)) {
	w := len(p.workers)
	p.share = func(i int) {
		for j := i; j < n; j += w {
			job(j)
		}
	}
	p.left.Store(int32(w - 1))
	p.seq.Add(1) // publishes share and left
	p.coord.at(hookPublished)
	for i := 1; i < w; i++ {
		p.workers[i].notify()
	}
	p.share(0)
	p.coord.await(func() bool { return p.left.Load() == 0 })
}

// cpuSeconds is the CPU time so far of the workers' threads (not the
// caller's) since they started working for the pool: a thread that the Go
// runtime ran other goroutines on before (another trial's, a finished
// pool's caller) does not bring their CPU time.
func (p *pool) cpuSeconds() float64 {
	t := 0.0
	for i := 1; i < len(p.tids); i++ {
		if tid := p.tids[i].Load(); tid > 0 {
			if c := topology.ThreadCPU(int(tid)); c > 0 { // 0: the thread is gone (after close)
				t += c - p.cpu0[i]
			}
		}
	}
	return t
}

func (p *pool) close() {
	p.quit.Store(true)
	for i := 1; i < len(p.workers); i++ {
		p.workers[i].notify()
	}
}
