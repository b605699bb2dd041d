// Package parallelsaw is the partitioned parallel SAW engine for RBMs (the
// paper's "computational considerations"): each layer is split into P
// contiguous sections (section p holds visible units [pV/P, (p+1)V/P) and
// hidden units [pH/P, (p+1)H/P), so every flip gives every section the
// same work). Section p keeps its units' fields, pick weights at both biases
// and sums, and its own slices of W and of its transpose.
//
// Per flip: the coordinator (the goroutine calling Walk, which also runs
// section 0) flips the spin and publishes the bit and a uniform u; every
// section updates its fields (one axpy over its slice) and weights, and
// reports its sums s_p at both biases and a candidate drawn within the
// section with u; the coordinator picks section p with probability
// s_p / sum s using a second uniform and takes its candidate. Given the
// section, the candidate has probability w_l / s_p, so the pick has
// probability w_l / sum s: the same distribution as package dense, and the
// same log-probabilities (dense.LogWeight of the pick minus log sum s) up to
// rounding. Both uniforms come from the walk's random stream and every sum
// is taken in a fixed order, so the output is bit-identical for a fixed
// seed and P (it differs between values of P only by rounding).
//
// Concurrency: sections 1..P-1 run on worker goroutines, each locked to its
// OS thread and pinned to cpus[p] when given (a pinning failure is not
// fatal; see PinError). Coordinator and workers synchronize by spinning on
// cache-line-padded atomic sequence numbers, yielding (runtime.Gosched)
// after a few thousand spins and parking on a channel after a short idle
// spell, so an oversubscribed machine neither deadlocks nor burns a core
// between walks. An Engine is not safe for concurrent use; call Close when
// done (an unreachable Engine's workers are also stopped by a cleanup).
package parallelsaw
