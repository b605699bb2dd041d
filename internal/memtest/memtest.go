// Package memtest measures the memory code allocates, for tests that bound
// it per item so that a copy brought back fails them.
package memtest

import "runtime"

// Allocated is the bytes f allocates. It counts every goroutine's
// allocations, so a test must not run it beside others (no t.Parallel).
func Allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}
