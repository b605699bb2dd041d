// Package sampler defines the chain every sampler implements (Chain), its
// counters, its saved state (Stateful, Resetter, Flipper), and the registry of
// samplers (Kind, Register, Lookup, Names): each sampler registers itself
// from its own package, and the command line, the runner and the tools
// find it by name. A chain owns its state, its random stream and its
// counters; it is used by one goroutine at a time. The runner only calls
// Step and reads.
package sampler
