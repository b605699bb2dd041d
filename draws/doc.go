// Package draws keeps what a trial records after each step in memory that
// does not grow with its length: at most Cap draws of each phase (the
// burn-in, then the steps after it), evenly spaced over the whole phase
// by a thinning interval that doubles whenever the buffer fills
// (Thinning), and the exact moments of the observables over every step of
// the phase, not only the kept ones (Moments, IntMoments).
//
// Why doubling: with draws kept at steps o+k, o+2k, ..., o+Cap*k, keeping
// every other one leaves Cap/2 draws at o+2k, o+4k, ...: equally spaced
// again, at twice the interval, so that after S steps the kept draws are
// between Cap/2 and Cap, every max(1, 2^ceil(log2(S/Cap))) steps, whatever
// S. A run shorter than Cap steps keeps every step, as before thinning
// existed. The estimators that need a series (ESS, R-hat, tau_int) run on
// the kept draws; those that need only sums (means, variances) use every
// step.
//
// Nothing here is safe for concurrent use: a trial's goroutine owns its
// record.
package draws
