// Package bench is the benchmark suite behind `sardonics bench`: kernel
// speeds (ns per spin update, per proposed flip, per SW step, per block-Gibbs
// sweep, the parallel RBM engine's speedup) and ESS per CPU-second of every
// sampler on the paper's sparse models. Every figure is measured in thread
// CPU time on the machine it names; nothing is a test.
//
// The trial group prices whole trials: each line runs `sample`'s own trial
// (runner.RunTrial, burn-in 0, one trial) and divides its cpu_seconds by
// its flips, so chain building, energy records and the runner's blocks are
// counted, not only the move. Beside them it compiles (with gcc, caching
// the binary) and times the C yardstick bench/cref/metropolis.c, a tight
// single-spin Metropolis sweep, in the same run, and reports each line's
// ratio to the C ns per update on its 2D torus; without gcc the yardstick
// is reported as n/a and the Go lines are measured all the same.
//
// The handoff group prices a hand-off between two threads on the machine
// at hand (internal/handoff.Measure): one way, in ns, between two
// spinning threads and to a parked one, the prices behind the replica
// pool's and the parallel engine's choice of how many threads to use.
//
// The scale group prices the same whole trials at the sizes users run
// (10^6 spins on frustrated2d:L=1000, 262,144 on spinglass3d:L=64, a
// real-valued chimera of 259,200 qubits) beside the small model of each
// engine, with the ratio and each line's peak RSS: the process's high-water
// mark, reset (clear_refs) after freeing the earlier lines' memory, so it
// includes the model, the chain and the Go runtime. Its trials have fixed
// lengths (10^5 SARDONICS moves; 3.6 x 10^7 Metropolis updates) whatever
// --budget is, so that building the chain weighs alike at every size.
package bench
