// Package topology describes the machine the program runs on and pins
// goroutines to CPUs: the CPUs this process may use (its inherited affinity
// mask, since batch systems hand out arbitrary CPU ids), physical cores,
// cache sizes and the CPU brand (cpuid), and how to split cores between
// parallel trials and engine sections without oversubscribing.
//
// Linux only for CPUs and Pin (sched_getaffinity, sched_setaffinity). All
// functions are safe for concurrent use; Pin affects only the calling
// goroutine's OS thread.
package topology
