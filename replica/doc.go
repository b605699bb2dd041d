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
// rounds 32, 64, 128, ... while the steps done are at most Adapt. Auto
// chooses the number of rungs before a run from a pilot's communication
// barrier, the sum of its swap rejection rates (barrier.go).
//
// With Sets = 2 the Chain runs two independent ladders and reports the spin
// overlap q = (1/N) sum_i s_i s'_i of their target rungs each step (the
// spin glass order parameter); its energy and spins are the first set's.
//
// # The cluster move
//
// With Sets = 2 and Config.Cluster = ICM, every swap round is followed, at
// every rung where the move is on, by one Houdayer move between the two
// members at that rung (Houdayer 2001; restricted to chosen rungs it is
// the isoenergetic cluster move of Zhu, Ochoa and Katzgraber 2015). With
// a and b their states and q_i = a_i b_i the local overlap, a seed is drawn
// uniformly among the sites with q_i = -1 (none: no move), the cluster C is
// the connected component of q = -1 sites containing it over the model's
// coupling graph (Config.Graph), and C is flipped in both replicas.
//
// Why it is exact. On C, b = -a; flipping C in both replicas exchanges
// their values there: a' = b and b' = a on C, unchanged elsewhere. A
// coupling inside C or outside it keeps its term in each replica (both
// ends flip, or neither). A coupling J_ij with i in C and j outside has
// q_j = +1 (else j would be in C), so a_j = b_j = s_j, and its terms
// -J_ij s_j (a_i + b_i) sum to zero before and after, as a_i + b_i = 0. A
// field's terms -h_i (a_i + b_i) vanish on C for the same reason, so
// fields h are allowed. Hence E(a') + E(b') = E(a) + E(b): the joint
// weight exp(-beta (E(a) + E(b))) of two replicas at the same beta is
// unchanged. The move is its own reverse: flipping C in both leaves every
// q_i as it was, so the q = -1 set, its components, and their number of
// sites m are the same from (a', b'), where the seed drawn in C (again
// with probability |C| / m) gives back C and flipping it returns (a, b).
// So P((a,b) -> (a',b')) = |C| / m = P((a',b') -> (a,b)) and the weights
// are equal: detailed balance holds with acceptance 1.
//
// The q = +1 side. On a model without fields (Graph.Even), when more sites
// differ than agree, the move grows its cluster among the sites where the
// two agree instead (seed uniform among them, component of q = +1 sites).
// A coupling leaving such a C joins a site with q_j = -1, b_j = -a_j, and
// its terms -J_ij a_i (a_j + b_j) vanish before and after; C has no field
// terms to keep. So E_a + E_b is kept again, and the argument above holds
// with the q = +1 sites for the q = -1 ones. The side is chosen from the
// count of q = -1 sites, which the move does not change, so the reverse
// move takes the same side: the move is a mixture, chosen by q, of two
// exact moves. It is the same move as flipping one replica whole (exact
// when E(-s) = E(s)) before and after a q = -1 move: it spares the search
// of the near-spanning clusters that two replicas in opposite valleys give
// (spinglass3d:L=8 at beta 2: 75-90 sites a move instead of about 400 of
// 512, BenchmarkICM), which would mostly exchange the two states. The move is drawn
// from the chain's swap stream, after the swaps (each exact on its own),
// so the product of the rungs' distributions stays invariant for both
// sets together, and each set's target rung is still exact on its own.
//
// Where it runs. A cluster that covers every q = -1 site exchanges the
// two states, which changes nothing at equal beta, at the cost of a search
// over the cluster. Where the q = -1 sites percolate (about half the sites
// differ at a hot rung, above the site percolation threshold of a 3D
// lattice, 0.31, below the square lattice's, 0.59), the seed nearly always
// lands in the percolating cluster and the move is close to that exchange.
// So with ClusterBetaMin = 0 the move runs at every rung during the
// burn-in and measures at each rung the share of the q = -1 sites its
// clusters cover (and their size and the fraction of q = -1 sites), over
// the rounds after the ladder stops moving (the last half to three
// quarters of them: rounds are counted in segments [2^j, 2^(j+1)) and the
// last two are kept); at the first round after CountFrom it keeps the move
// only where the mean share is at most MaxClusterShare (or where no q = -1
// site was seen), which gives the whole ladder on the 2D glass and the
// cold rungs on the 3D one (MaxClusterShare has the measurements). The
// choice depends on the burn-in only; from then on the rungs are fixed and
// the chain is one fixed exact kernel. ClusterBetaMin = B > 0 runs it at
// every rung with beta >= B instead. Report.Cluster gives per rung whether
// it runs, its tries, moves, mean cluster and share after burn-in, and what
// the burn-in measured.
//
// Cost. A move reads both states 8 sites at a time to count the q = -1
// sites and mark its side's sites open to the search, finds the seed among
// them, searches the cluster breadth first without a branch per
// neighbour, visiting only the cluster and its boundary, and flips it in
// both members: at once where they are of one kind (sampler.PairFlipper:
// the second's energy changes by minus the first's, its spins are only
// negated), else each through sampler.Flipper (O(the cluster's degrees); a
// member without it is Reset). It allocates nothing (the queue and marks
// are made once). BenchmarkICM prices it in thread CPU against a
// Metropolis sweep of one member (spinglass2d:L=32 and spinglass3d:L=8);
// the search dominates, at 30-50 ns per cluster site against 10 ns per site
// of a sweep. The members' counters are untouched, so the work clock does
// not count it; its CPU is the caller's thread's.
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
// invariant exactly as with one kernel. Config.Tune (CycleTuner, issue 35
// item 6) chooses the cycles during the burn-in: every rung runs the cheap
// cycle (1:0) until CycleTuner.From, while an adaptive ladder moves (swap
// acceptance and energy spread belong to the rungs' distributions, not to
// the kernel, so the cheapest exact kernel places the rungs as well as
// any); on the fixed ladder, each candidate then runs at every rung, and
// after them the assignment that gives each rung the candidate its own
// slow observable preferred, each for the modelled CPU the cheap cycle
// spends on a share of CycleTuner.Window steps. They are scored by what
// the run reports: the target rung's slow observable, q^2 of the two
// sets' target replicas (or |m| with one set), its effective samples per
// modelled CPU-second over all but the first quarter of the assignment's
// rounds, then round trips per CPU-second where that cannot tell; an
// assignment replaces the cheap cycle only where it is better beyond its
// measurement's error, and an unresolved score (a tau the window cannot
// see the end of) is an upper bound, never a value. From then on the
// cycles are frozen, so the sampling phase is a fixed exact kernel; the
// tuning's phase and measurements are in the chain's state, so a chain
// restored mid-tuning continues bit for bit (see tuneControl for the
// schedule, the scores and why). Report.Cycles says what it measured.
package replica
