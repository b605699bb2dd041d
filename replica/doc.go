// Package replica is replica exchange (parallel tempering) around any
// kernel that can change its temperature in place (sampler.Tempered).
//
// A Chain holds R member chains on one model at the inverse temperatures
// of a ladder beta_0 < ... < beta_{R-1} = the target. A round runs every
// member SwapEvery steps (in parallel on Workers goroutines when asked:
// members draw only from their own streams, so the result does not depend
// on the number of workers), then proposes swaps between neighbouring
// rungs, alternating the even pairs (0,1),(2,3),... and the odd pairs
// (1,2),(3,4),... from round to round. The swap of the states x at beta_a
// and y at beta_b is accepted with the Metropolis probability
//
//	min(1, exp((beta_a - beta_b) (E(x) - E(y)))),
//
// which leaves the product of the rungs' Boltzmann distributions
// invariant; a swap exchanges the two members' temperatures (SetBeta), not
// their states, so it costs O(1) whatever the model. The Chain is itself a
// sampler.Chain: its energy and spins are the target rung's, whichever
// member holds it.
//
// The ladder is geometric by default. With Adapt > 0 the rungs move during
// the first Adapt steps so that swap acceptance evens out along the ladder
// (the interval between rungs k and k+1 is given the length
// erfcinv(a_k), which for Gaussian energy histograms is proportional to
// the thermodynamic length beta_{k+1} - beta_k times the energy spread, and
// the rungs are placed at equal lengths), then freeze: from there on the
// chain is a fixed, exact Markov chain.
//
// With Sets = 2 the Chain runs two independent ladders and reports the spin
// overlap q = (1/N) sum_i s_i s'_i of their target rungs each step (the
// spin glass order parameter); its energy and spins are the first set's.
package replica
