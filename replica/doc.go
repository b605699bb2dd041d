// Package replica is replica exchange (parallel tempering) around any
// kernel that can change its temperature in place (sampler.Tempered).
//
// A Chain holds R member chains on one model at the inverse temperatures
// of a ladder beta_0 < ... < beta_{R-1} = the target. A round runs every
// member SwapEvery steps (in parallel on up to Workers goroutines when
// asked, as many as measure faster on this machine, see pool.go: members
// draw only from their own streams, so the result does not depend on the
// number of workers), then proposes swaps between neighbouring
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
// chain is a fixed, exact Markov chain. With Spacing = ByVariance the
// rungs move instead by each rung's energy spread sigma_k, measured at the
// ends of the rounds of the last three quarters of each segment between
// moves (whether its neighbours swap or not), so that Delta beta * sigma_E
// is the same between neighbours (VarianceLadder; ladder.go gives the
// formulas, the acceptance they predict and the rung count a range needs,
// RungsNeeded, which Report gives as rungs_needed). Both ladders move at
// rounds 32, 64, 128, ... while the steps done are at most Adapt.
//
// With Sets = 2 the Chain runs two independent ladders and reports the spin
// overlap q = (1/N) sum_i s_i s'_i of their target rungs each step (the
// spin glass order parameter); its energy and spins are the first set's.
//
// # The work clock
//
// A step costs what its kernel makes it cost: a Metropolis step is a
// sweep (N proposed flips), a SARDONICS step one move (about 11 flips for
// the default theta, at about 25 times a Metropolis flip's CPU), a hybrid
// step A sweeps and M moves. A swap round every SwapEvery steps thus
// gives kernels, and hybrid rungs with different cycles, very different
// amounts of work between swaps. With Config.Work = W > 0 the rounds are
// on the work clock instead (issue 24, item 2): each round, every member
// runs the fewest steps whose proposed single-bit changes reach W N (W
// sweep-equivalents), read from its counters (sampler.Stats: Flips, or
// Proposed where Flips < 0; a step that moves neither counts as a sweep).
// So every rung does the same work between swaps whatever its kernel, and
// the number of steps varies by member and by round. The chain's own step
// is the target rung's: a round is as many steps of the Chain (Step,
// Energy, Spins, CountFrom, Adapt) as the member at the target ran in it;
// with Sets = 2, step i of set 0's target is paired for the overlap with
// the step of set 1's at the same fraction of the round.
//
// Why this rule keeps the chain exact: the work a step proposes does not
// depend on the state (a sweep proposes N flips; a SARDONICS move's walk
// lengths and theta are drawn before it looks at the spins), and given
// that work each step still leaves the rung's distribution invariant (a
// move and its reverse propose the same number of flips, so detailed
// balance holds for each count separately). The round's number of steps
// is then a stopping time of those state-independent draws alone, and a
// random number of pi-invariant steps, chosen without looking at the
// states, is pi-invariant. Each round starts from zero: carrying a
// member's excess work into the next round would make the round's length
// depend on the member's past, which the swaps (accepted by energy) tie to
// the state it now holds at its rung, and a kernel run for a
// state-dependent number of steps is biased. A kernel whose counters
// depended on the state (counting accepted flips, say) would be biased for
// the same reason; every kernel here counts proposals. Members still draw
// only from their own streams, so the rounds, and the result, do not
// depend on Workers; the clock reads counters, never time, so the same
// seed gives the same chain.
//
// # A cycle per rung
//
// Hybrid members (replica.Cycler: package hybrid) can hold a cycle A:M per
// inverse temperature (SetCycles); SetBeta, which every accepted swap
// calls, then also sets the member's cycle, so that the kernel belongs to
// the rung, not to the member: whichever member holds rung k runs rung k's
// fixed exact cycle, and the product of the rungs' distributions stays
// invariant exactly as with one kernel. TuneCycles chooses the cycles
// during burn-in, after the ladder stops moving: it gives every rung each
// candidate in turn for the same modelled CPU, measures each rung's
// energy autocorrelation time and cost, and keeps per rung the candidate
// with the most effective samples per CPU-second; from then on the cycles
// are frozen, so the sampling phase is a fixed exact kernel (see
// TuneCycles for the search, the cost model and why).
package replica
