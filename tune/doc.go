// Package tune adapts the SARDONICS sampler with Bayesian optimization (the
// paper's section 4): it maps the search space of Table I onto package bo,
// scores each setting on a window of chain steps, and then sets the chain's
// kernels to K settings drawn from a Boltzmann policy. Three rewards: ess
// (the command line's default: estimated effective sample size of the
// energy per modeled CPU-second, starting at the default theta, stopping
// when expected improvement is negligible and falling back to the default
// theta unless a clear gain is predicted), acf (the paper's area under the
// energy autocorrelation, with its protocol; the zero Config) and cost. It
// also reads and writes policy files. A tuner is used by one trial's
// goroutine, locked to its OS thread (the tuner's CPU clock is the
// thread's).
package tune
