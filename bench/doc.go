// Package bench is the benchmark suite behind `sardonics bench`: kernel
// speeds (ns per spin update, per proposed flip, per SW step, per block-Gibbs
// sweep, the parallel RBM engine's speedup) and ESS per CPU-second of every
// sampler on the paper's sparse models. Every figure is measured in thread
// CPU time on the machine it names; nothing is a test.
package bench
