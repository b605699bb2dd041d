// Package tune adapts the SARDONICS sampler with Bayesian optimization (the
// paper's section 4): it maps the search space of Table I onto package bo,
// scores each setting by the area under the energy autocorrelation over L
// chain steps, and after I iterations sets the chain's kernels to K
// settings drawn from the Boltzmann policy over the GP mean. It also reads
// and writes policy files. A tuner is used by one trial's goroutine.
package tune
