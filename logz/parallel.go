package logz

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// parallel runs f(0), ..., f(n-1) on up to threads goroutines (each on
// its own OS thread) and returns their thread CPU in seconds and the
// first error. Each index draws only from its own stream and writes only
// its own results, so what is computed does not depend on threads.
func parallel(ctx context.Context, n, threads int, f func(i int) error) (float64, error) {
	w := max(1, min(threads, n))
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	cpu := make([]float64, w)
	var wg sync.WaitGroup
	for j := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := threadCPU()
			defer func() { cpu[j] = threadCPU() - start }()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					next.Store(int64(n)) // the others stop at their next index
					return
				}
			}
		}()
	}
	wg.Wait()
	total := 0.0
	for _, c := range cpu {
		total += c
	}
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return total, first
}

// threadCPU is the calling OS thread's CPU time in seconds.
func threadCPU() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}
