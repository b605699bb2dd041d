package replica

import (
	"runtime"
	"sync"
	"sync/atomic"

	"sardonics/topology"
)

// pool runs a round's members on several goroutines: job j goes to worker
// j mod W, worker 0 being the caller, so the assignment (and with it every
// member's thread) is fixed. Members draw only from their own streams, so
// the results do not depend on W. Workers other than the caller are
// locked to their threads, pinned to their CPU when one is given, and
// report their thread ids for CPU accounting.
type pool struct {
	start []chan func(int) // workers 1..W-1
	done  sync.WaitGroup
	tids  []atomic.Int32
}

func newPool(w int, cpus []int) *pool {
	p := &pool{start: make([]chan func(int), w), tids: make([]atomic.Int32, w)}
	for i := 1; i < w; i++ {
		p.start[i] = make(chan func(int))
		go func() {
			runtime.LockOSThread()
			if i < len(cpus) {
				_ = topology.Pin(cpus[i]) // a failure only costs speed
			}
			p.tids[i].Store(int32(topology.ThreadID()))
			for f := range p.start[i] {
				f(i)
				p.done.Done()
			}
		}()
	}
	return p
}

// run calls job(j) for j < n, worker i taking j = i, i+W, ...
func (p *pool) run(n int, job func(int)) {
	w := len(p.start)
	share := func(i int) {
		for j := i; j < n; j += w {
			job(j)
		}
	}
	p.done.Add(w - 1)
	for i := 1; i < w; i++ {
		p.start[i] <- share
	}
	share(0)
	p.done.Wait()
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
	for i := 1; i < len(p.start); i++ {
		close(p.start[i])
	}
}
