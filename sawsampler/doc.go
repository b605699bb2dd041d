// Package sawsampler is the SARDONICS sampler as the command line and the
// runner see it: its settings (Config: thetas, walk options, engine,
// engine sections and their CPUs), the choice of engine for a model
// (sparse tree or bucket; the dense engine of package denseising for
// dense models, model.UseDense; dense or partitioned parallel for RBMs), and its
// registration as "sardonics" in the sampler registry, beside the chain
// it builds (package saw), as every sampler's registration is beside its
// sampler.
package sawsampler
