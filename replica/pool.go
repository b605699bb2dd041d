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
type pool struct {
	seq   atomic.Uint64 // rounds published
	share func(int)     // the current round's work of worker i
	left  atomic.Int32  // workers still working on the current round
	quit  atomic.Bool

	workers []*waiter // index 0 unused
	coord   *waiter
	tids    []atomic.Int32
}

// spinFor is how long a waiter spins before it parks.
const spinFor = 50 * time.Microsecond

// waiter is one goroutine's parking place: it parks only after announcing
// it (asleep) and checking its condition once more, and whoever makes the
// condition true wakes it if it announced.
type waiter struct {
	asleep atomic.Bool
	wake   chan struct{} // buffered 1
}

func newWaiter() *waiter { return &waiter{wake: make(chan struct{}, 1)} }

// await returns once ready() holds: spinning for spinFor, then parked.
func (w *waiter) await(ready func() bool) {
	start := time.Now()
	for i := 0; !ready(); i++ {
		if i&255 == 255 && time.Since(start) > spinFor {
			w.asleep.Store(true)
			if ready() { // raced with the waker: take the token back if it sent one
				if !w.asleep.Swap(false) {
					<-w.wake
				}
				return
			}
			<-w.wake
			return
		}
	}
}

// notify wakes w if it parked (or is about to).
func (w *waiter) notify() {
	if w.asleep.Swap(false) {
		w.wake <- struct{}{}
	}
}

func newPool(w int, cpus []int) *pool {
	p := &pool{workers: make([]*waiter, w), tids: make([]atomic.Int32, w)}
	p.coord = newWaiter()
	for i := 1; i < w; i++ {
		p.workers[i] = newWaiter()
		go func() {
			runtime.LockOSThread()
			if i < len(cpus) {
				_ = topology.Pin(cpus[i]) // a failure only costs speed
			}
			p.tids[i].Store(int32(topology.ThreadID()))
			var last uint64
			for {
				p.workers[i].await(func() bool { return p.seq.Load() != last || p.quit.Load() })
				if p.quit.Load() {
					return
				}
				last = p.seq.Load()
				p.share(i)
				if p.left.Add(-1) == 0 {
					p.coord.notify()
				}
			}
		}()
	}
	return p
}

// run calls job(j) for j < n, worker i taking j = i, i+W, ...
func (p *pool) run(n int, job func(int)) {
	w := len(p.workers)
	p.share = func(i int) {
		for j := i; j < n; j += w {
			job(j)
		}
	}
	p.left.Store(int32(w - 1))
	p.seq.Add(1) // publishes share and left
	for i := 1; i < w; i++ {
		p.workers[i].notify()
	}
	p.share(0)
	p.coord.await(func() bool { return p.left.Load() == 0 })
}

// cpuSeconds is the CPU time so far of the workers' threads (not the
// caller's).
func (p *pool) cpuSeconds() float64 {
	t := 0.0
	for i := 1; i < len(p.tids); i++ {
		if tid := p.tids[i].Load(); tid > 0 {
			t += topology.ThreadCPU(int(tid))
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
