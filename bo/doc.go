// Package bo maximizes noisy, expensive objectives on a box by Bayesian
// optimization: a Gaussian process surrogate (GP), expected improvement
// maximized by DIRECT, a Latin-hypercube initial design, and the Boltzmann
// policy that turns the fitted surrogate into a distribution over settings.
//
// The package knows nothing about samplers: callers map the unit-cube points
// it proposes to parameters with a Space, measure a reward, and report it back
// through Optimizer.Observe (an ask/tell loop). All randomness comes from an
// injected *rand.PCG, so a run is reproducible from its seed, and an
// Optimizer's state (history, design, hyperparameters, RNG) marshals to JSON
// for checkpointing.
//
// Nothing here is safe for concurrent use: a GP or Optimizer belongs to one
// goroutine at a time. Direct, ExpectedImprovement and LatinHypercube are
// pure functions of their arguments (and the RNG they are given).
package bo
