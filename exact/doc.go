// Package exact computes exact Boltzmann statistics of small models by
// enumerating every state: ln Z, the mean and variance of the energy, the
// energy distribution, the observables sample reports (<m>, <|m|>, C and
// chi, in summary/observables.go's definitions; see observables.go),
// optionally the marginals <s_i> and <s_i s_j> and, for RBMs, the visible
// means. It is the reference that every sampler is tested against and the
// engine of `sardonics exact`.
//
// Ising and QUBO models are enumerated in Gray-code order (one flip and an
// incremental energy update per state) up to M = 30 variables. RBMs are
// enumerated over their smaller layer only, the other layer being summed out
// analytically, so min(V, H) <= 30 suffices. Sums are taken relative to the
// largest weight and with Neumaier compensation, so ln Z and the energy
// moments are accurate to about 1e-12 relative on models of this size.
//
// Functions are safe for concurrent use; Enumerate uses up to four goroutines
// but its results do not depend on how many run.
package exact
