// Package diag holds the MCMC diagnostics of a run: the normalized
// autocorrelation function, the integrated autocorrelation time with Sokal's
// automatic window, effective sample size, the Monte Carlo standard error,
// and the rank-normalized split R-hat of Vehtari et al. (2021).
// Its functions are pure and safe for concurrent use.
package diag
