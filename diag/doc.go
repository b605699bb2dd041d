// Package diag holds the MCMC diagnostics of a run.
//
// Per chain: the normalized autocorrelation function (ACF), the integrated
// autocorrelation time with Sokal's automatic window (TauInt), the effective
// sample size n / tau (ESS) and the Monte Carlo standard error (MeanStdErr).
//
// Across chains, as Stan and ArviZ compute them (Vehtari, Gelman, Simpson,
// Carpenter and Bürkner 2021, "Rank-normalization, folding, and
// localization: an improved R-hat for assessing convergence of MCMC",
// Bayesian Analysis 16:667): the bulk and tail effective sample sizes of
// split, rank-normalized chains with Geyer's initial monotone sequence
// (BulkESS, TailESS) and the rank-normalized split R-hat, the larger of the
// bulk and the folded one (SplitRhat); Diagnose gives them all with the
// reason for any value that cannot be estimated (NaN).
//
// Its functions are pure and safe for concurrent use.
package diag
