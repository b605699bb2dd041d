// Package logz estimates ln Z(beta) = ln sum_x exp(-beta E(x)), the log
// partition function of any model the program reads (E in the model's own
// convention, offsets included: what exact.Enumerate's LnZ is), with a
// standard error, beyond the reach of exact enumeration: the free energy
// -ln Z / beta, and an RBM's log-likelihood ln p(v) = ln f_beta(v) - ln Z
// of data (FreeEnergies sums the hidden units out exactly). docs/logz.md
// is the user's account; this is why the estimators are right.
//
// # Annealed importance sampling (AIS)
//
// Neal (2001): with unnormalized densities p*_0, ..., p*_K from a base
// of known Z_0 to the target, x_0 drawn exactly from p_0 and x_k from a
// kernel T_k that leaves p_k invariant applied to x_{k-1}, the weight
//
//	w = prod_{k=1..K} p*_k(x_{k-1}) / p*_{k-1}(x_{k-1})
//
// has E[w] = Z_K / Z_0 exactly, for any K and any kernels (the extended
// state space argument: w is the ratio of the reversed chain's density to
// the forward one's). So Z_K = Z_0 mean(w) over independent runs is
// unbiased; ln of it is biased low by about half its variance (Jensen),
// negligible once the error is small. The error of ln mean(w) is the
// delta method's sd(w) / (sqrt(R) mean(w)) over the R runs, which needs
// the weights' variance to be finite and well estimated: the Kish
// effective sample size (sum w)^2 / sum w^2 says when it is not (a few
// runs dominate), and AIS warns below R/4.
//
// The temperature path (chainPath) is p*_k = exp(-beta_k E), beta_0 = 0:
// Z_0 = 2^M for M binary variables, x_0 uniform, the increments -(beta_k
// - beta_{k-1}) E(x_{k-1}), and T_k one step of any registered sampler
// that can change its temperature (sampler.Tempered), each a correct
// kernel at its beta by that sampler's own tests. On an RBM the default
// (rbmPath) anneals the visible units with the hidden ones summed out
// (Salakhutdinov and Murray 2008), from a base-rate model; rbm.go gives
// the path and why its block Gibbs step is a kernel on v alone, which the
// weights need.
//
// The intermediate points are chosen from a pilot (schedule.go): the
// variance an increment adds is about (Delta lambda)^2 Var(g), g the
// derivative of ln p* along the path, and for a given number of points
// the sum is least at a density of points proportional to sd(g): equal
// thermodynamic length per step. The pilot's size is fixed, so a run of
// --steps S is a deterministic function of the seed.
//
// # Replica exchange and Bennett's acceptance ratio
//
// Replica exchange (package replica) samples every rung of a ladder 0 =
// beta_0 < ... < beta_{R-1} = beta at once, each rung's states exactly
// distributed at equilibrium. Between neighbours, Bennett's acceptance
// ratio (Bennett 1976; Shirts, Bair, Hooker and Pande 2003) is the
// minimum-variance estimator of Delta f from the works of both
// directions, here (beta_{k+1} - beta_k) E; it is consistent for
// correlated samples, and the differences telescope: ln Z(beta) = M ln 2
// + sum_k (ln Z_{k+1} - ln Z_k) (LadderBAR). Its asymptotic
// variance formula assumes independent samples, so the error comes
// instead from independent ladders: the jackknife over them (leave one
// ladder out, re-solve every pair), which counts the samples' correlation
// and the pairs' covariance through the shared rungs. With T ladders the
// error has T - 1 degrees of freedom (TestLadderBARCalibrated checks the
// coverage that implies on exact samples).
//
// # Streams and threads
//
// AIS run i draws only from rng.Sub(seed, i, keyAIS), pilot run i from
// keyPilot's stream, replica-exchange ladder i from keyRE's: runs are
// computed side by side on up to Config.Threads threads and combined in
// the order of i, so the output is bit for bit the same whatever the
// threads (TestSameOutputAnyThreads).
//
// # When they fail
//
// Both estimators assume that every intermediate distribution is
// sampled, AIS by its runs' annealing and replica exchange by its
// ladders' mixing. Along a path through a first-order transition (or any
// mode that appears abruptly as beta grows) neither does: the runs stay
// in the phase they came from, the weights and works never see the other
// one, and the estimate is low, with an error bar that need not show it
// (docs/logz.md has a measured example). A ladder with too few rungs for
// its energy spreads gives pairs whose distributions barely overlap; RE
// warns when a pair swaps less than 10% of the time.
//
// References: R. M. Neal, Annealed importance sampling, Statistics and
// Computing 11 (2001) 125-139. R. Salakhutdinov and I. Murray, On the
// quantitative analysis of deep belief networks, ICML 2008. C. H.
// Bennett, Efficient estimation of free energy differences from Monte
// Carlo data, J. Comput. Phys. 22 (1976) 245-268. M. R. Shirts, E. Bair,
// G. Hooker and V. S. Pande, Equilibrium free energies from
// nonequilibrium measurements using maximum-likelihood methods, Phys.
// Rev. Lett. 91 (2003) 140601. B. Efron, The Jackknife, the Bootstrap
// and Other Resampling Plans (SIAM, 1982).
package logz
