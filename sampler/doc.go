// Package sampler defines the chain every sampler implements (Chain) and its
// counters. A chain owns its state, its random stream and its counters; it is
// used by one goroutine at a time. The runner only calls Step and reads.
package sampler
