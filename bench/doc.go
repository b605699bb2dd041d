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
package bench
