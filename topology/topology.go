package topology

import (
	"fmt"
	"runtime"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/unix"
)

// maxCPU is the number of CPU ids a unix.CPUSet can hold.
const maxCPU = 1024

// CPUs returns the ids of the CPUs in the calling thread's affinity mask
// (inherited from the process's launcher), in increasing order.
func CPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("topology: reading the CPU affinity mask: %w", err)
	}
	var ids []int
	for c := 0; c < maxCPU; c++ {
		if set.IsSet(c) {
			ids = append(ids, c)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("topology: empty CPU affinity mask (expected at least one CPU)")
	}
	return ids, nil
}

// startCPUs is the number of CPUs in the affinity mask at the start of
// the process (0: unknown): Describe reports it, not the mask of the
// thread it runs on, which a trial may have pinned to one CPU (a summary
// once said "1 CPUs usable" on a 2-CPU machine).
var startCPUs = func() int {
	ids, err := CPUs()
	if err != nil {
		return 0
	}
	return len(ids)
}()

// PhysicalCores is the number of physical cores of the machine's CPU as
// CPUID reports it, or runtime.NumCPU() when CPUID cannot tell.
func PhysicalCores() int {
	if n := cpuid.CPU.PhysicalCores; n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// Caches holds cache sizes in bytes; -1 means unknown.
type Caches struct {
	L1D, L2, L3 int
}

// CacheSizes reports the data cache sizes (per core or shared, as CPUID
// gives them).
func CacheSizes() Caches {
	c := cpuid.CPU.Cache
	return Caches{L1D: c.L1D, L2: c.L2, L3: c.L3}
}

// Brand is the CPU's brand string (empty when unknown).
func Brand() string { return cpuid.CPU.BrandName }

// Describe is a one-line description of the machine for benchmark reports,
// e.g. "Intel(R) Xeon(R) ..., 2 CPUs usable, 1 physical cores, L1d 48 KiB,
// L2 2048 KiB, L3 105 MiB".
func Describe() string {
	n := runtime.NumCPU()
	if startCPUs > 0 {
		n = startCPUs
	}
	c := CacheSizes()
	brand := Brand()
	if brand == "" {
		brand = "unknown CPU"
	}
	return fmt.Sprintf("%s, %d CPUs usable, %d physical cores, L1d %s, L2 %s, L3 %s",
		brand, n, PhysicalCores(), size(c.L1D), size(c.L2), size(c.L3))
}

func size(b int) string {
	switch {
	case b < 0:
		return "unknown"
	case b >= 16<<20:
		return fmt.Sprintf("%d MiB", b>>20)
	default:
		return fmt.Sprintf("%d KiB", b>>10)
	}
}

// Pin locks the calling goroutine to its OS thread (runtime.LockOSThread)
// and restricts that thread to CPU cpu. The goroutine stays locked even when
// setting the affinity fails (the error says why); it is released by
// runtime.UnlockOSThread or by the goroutine's exit, which ends the thread.
func Pin(cpu int) error {
	runtime.LockOSThread()
	if cpu < 0 || cpu >= maxCPU {
		return fmt.Errorf("topology: CPU %d out of range (expected 0..%d)", cpu, maxCPU-1)
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("topology: pinning to CPU %d: %w", cpu, err)
	}
	return nil
}

// PinFor pins the calling goroutine like Pin and returns the function that
// undoes it: the thread's previous affinity is restored before the
// goroutine is unlocked, so the thread can go back to the runtime's pool.
// The coordinator of a parallel engine uses it: left floating, it migrates
// between CPUs (losing its section's cache) or lands on a worker's CPU.
func PinFor(cpu int) (undo func(), err error) {
	var old unix.CPUSet
	getErr := unix.SchedGetaffinity(0, &old)
	err = Pin(cpu)
	return func() {
		if getErr == nil {
			_ = unix.SchedSetaffinity(0, &old)
			runtime.UnlockOSThread()
		}
		// Without the old mask the thread stays locked and ends with its
		// goroutine rather than return to the pool pinned.
	}, err
}

// ThreadID is the calling OS thread's id (meaningful while the goroutine
// is locked to its thread).
func ThreadID() int { return unix.Gettid() }

// ThreadCPU is the CPU time in seconds of OS thread tid of this process,
// read from its CPU clock (Linux's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED):
// (~tid << 3) | 6), so that one thread can account for another's work; 0
// if the thread is gone.
func ThreadCPU(tid int) float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(^tid<<3|6), &ts); err != nil {
		return 0
	}
	return float64(ts.Nano()) / 1e9
}
