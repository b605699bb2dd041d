package handoff

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

var epoch = time.Now()

// Now is the monotonic clock in nanoseconds (since the package's start):
// about 25-60 ns a read, without a system call.
func Now() int64 { return int64(time.Since(epoch)) }

// ThreadCPU is the calling thread's CPU time in nanoseconds
// (CLOCK_THREAD_CPUTIME_ID; 0 if it cannot be read). It is a system call,
// about 0.3-1 us on a virtual machine: the spin loops read it only every
// cpuCheckNs of spinning and around a park.
func ThreadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// ThreadCPUID is ThreadCPU with the calling thread's id: a goroutine not
// locked to its thread may resume on another after it parks, and two CPU
// times are comparable only on the same thread.
func ThreadCPUID() (ns int64, tid int) { return ThreadCPU(), unix.Gettid() }

// Price is what a hand-off between two threads costs on this machine,
// one way: from the moment one thread makes a condition true to the
// moment the other, waiting for it, sees it.
type Price struct {
	// Spin is the hand-off to a thread that spins on the condition: the
	// cache line's trip between the CPUs. 0 when it could not be
	// measured (one usable CPU, or the partner got no CPU).
	Spin time.Duration
	// Park is the hand-off to a thread parked in the Go runtime (a
	// channel receive of a goroutine locked to its thread, as the pools
	// park): the futex wake-up, the OS scheduling the thread on its CPU
	// (on a virtual machine, an inter-processor interrupt and a VM exit
	// when that CPU idles) and the runtime handing it its P.
	Park time.Duration
	// SpinTrips and ParkTrips are the round trips measured.
	SpinTrips, ParkTrips int
}

// minTrips is the round trips below which a price is not trusted (a
// partner that got little CPU while it was measured).
const minTrips = 16

// SpinOr is the spin price, or def when it was not measured or not
// trusted.
func (pr Price) SpinOr(def time.Duration) time.Duration {
	if pr.SpinTrips < minTrips || pr.Spin <= 0 {
		return def
	}
	return pr.Spin
}

// ParkOr is the park price, or def when it was not measured or not
// trusted.
func (pr Price) ParkOr(def time.Duration) time.Duration {
	if pr.ParkTrips < minTrips/2 || pr.Park <= 0 {
		return def
	}
	return pr.Park
}

// Measure prices the hand-offs: spinTrips round trips of a ping-pong on
// two atomics between two goroutines locked to their threads, then
// parkTrips of a ping-pong on two channels (each side parked when the
// other sends), each one-way price being the median round trip over 2.
// Either stops after limit (a partner that gets no CPU); what it measured
// by then is the price, or 0 for a spin with no trip done.
func Measure(spinTrips, parkTrips int, limit time.Duration) Price {
	var pr Price
	if runtime.GOMAXPROCS(0) >= 2 && runtime.NumCPU() >= 2 {
		rt := spinPingPong(spinTrips, limit)
		pr.SpinTrips = len(rt)
		pr.Spin = median(rt) / 2
	}
	rt := parkPingPong(parkTrips, limit)
	pr.ParkTrips = len(rt)
	pr.Park = median(rt) / 2
	return pr
}

func median(x []time.Duration) time.Duration {
	if len(x) == 0 {
		return 0
	}
	slices.Sort(x)
	return x[len(x)/2]
}

// padded is an atomic on its own cache line.
type padded struct {
	_ [64]byte
	v atomic.Uint64
	_ [56]byte
}

// spinPingPong returns the round trips (at most n) of a ping-pong between
// two spinning, locked threads.
func spinPingPong(n int, limit time.Duration) []time.Duration {
	var ping, pong padded
	var stop atomic.Bool
	rt := make([]time.Duration, 0, n)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the echo
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for k := uint64(1); ; k++ {
			for i := 0; ping.v.Load() != k; i++ {
				if i&1023 == 1023 && stop.Load() {
					return
				}
			}
			pong.v.Store(k)
		}
	}()
	go func() {
		defer wg.Done()
		defer stop.Store(true)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0 := Now()
		for k := uint64(1); k <= uint64(n); k++ {
			t := Now()
			ping.v.Store(k)
			for i := 0; pong.v.Load() != k; i++ {
				if i&1023 == 1023 && Now()-t0 > int64(limit) {
					return
				}
			}
			if k > 8 { // the first trips wake the partner's CPU
				rt = append(rt, time.Duration(Now()-t))
			}
		}
	}()
	wg.Wait()
	return rt
}

// parkPingPong returns the round trips (at most n) of a ping-pong between
// two locked goroutines that park on channels.
func parkPingPong(n int, limit time.Duration) []time.Duration {
	ping, pong := make(chan struct{}), make(chan struct{})
	rt := make([]time.Duration, 0, n)
	done := make(chan struct{})
	go func() { // the echo
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for {
			select {
			case <-ping:
				pong <- struct{}{}
			case <-done:
				return
			}
		}
	}()
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0 := Now()
		for k := 0; k < n+2 && Now()-t0 < int64(limit); k++ {
			// Let the echo park and its CPU idle before the send, as a
			// pool's parked worker's does between rounds (a busy wait:
			// a sleep this short takes a timer's resolution).
			for t := Now(); Now()-t < 50_000; {
			}
			t := Now()
			ping <- struct{}{}
			<-pong
			if k >= 2 {
				rt = append(rt, time.Duration(Now()-t))
			}
		}
	}()
	<-ch
	close(done)
	return rt
}

var (
	cachedOnce  sync.Once
	cachedPrice Price
)

// Cached is the price measured once per process (the first call pays
// about 3 ms on a quiet machine): 2000 spin and 24 park round trips, at
// most 10 ms each.
func Cached() Price {
	cachedOnce.Do(func() { cachedPrice = Measure(2000, 24, 10*time.Millisecond) })
	return cachedPrice
}
