// Package stattest holds the statistical checks that tests of samplers share:
// Pearson's chi-square goodness of fit and enumeration of all spin states of
// a tiny model in a fixed index order. It is for tests and reference code
// only; its functions are pure and safe for concurrent use.
package stattest
