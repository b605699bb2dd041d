// Package hybrid is the mixture kernel "hybrid" (issue 24): one Step is a
// fixed cycle of A Metropolis sweeps followed by M SARDONICS moves, either
// of which may be 0 but not both. Each component leaves exp(-beta E)
// invariant at the chain's beta, so their fixed composition does too (it
// is not reversible, which exactness does not need). Both components are
// built through the sampler registry ("metropolis" from package baseline,
// "sardonics" from package runner, which must be linked in for New to find
// it); the SARDONICS settings (Options.SAW) are passed through untouched.
//
// The two components hold their own copies of the state; only the one that
// ran last is current, and a component is brought to the current spins
// before it runs (once per component switch, never per move): nothing when
// they agree (a phase that changed nothing), the differing bits flipped in
// place when they are at most N/4 and the component can (the SARDONICS
// engine's Flip, about 2 to 3 times a Reset's cost per bit, but only for
// the bits that changed), else a sampler.Resetter Reset, which recomputes
// everything from the model. The Metropolis chain has no such Flip and is
// always Reset (O(N + edges); about 2 sweeps on frustrated2d:L=60).
// Energy and Spins are the current component's, so the energy is exact for
// the current spins. Both components draw from the chain's one random
// stream, in a fixed order, so the stream and the state (AppendState:
// the cycle, which component is current, both components' states)
// determine the future.
//
// Opts are an Options (or *Options); nil is the default cycle with the
// sardonics defaults, and a value of any other type is taken as the SAW
// opts with the default cycle (the runner hands every sampler its
// sardonics settings). The default cycle (also an Options with A = M = 0;
// the thetas are the SAW opts' ThetaSource, else saw.DefaultTheta) is
// one sweep and one sweep-equivalent of SARDONICS flips: A = 1,
// M = ceil(N / f), where f = n (kl + ku) is the mean number of bits a
// move's 2n walks flip (uniform lengths kl..ku clamped to N; averaged over
// a policy's thetas), 11 for the default theta. Proposed flips are the project's unit of work
// (Stats.Flips; the swap clock of issue 24), and they do not depend on the
// machine, so the default is the same everywhere and gives both kernels an
// equal share of the proposed changes. It is not equal CPU: a SARDONICS
// flip costs about 25 Metropolis flips (README), so this default spends
// most of its time in SARDONICS; trading the two by CPU is the tuner's job
// (issue 24, item 3).
//
// The rule in sample: --mix A:M fixes the cycle; without --mix the cycle
// is chosen during the burn-in from replica.CandidateCycles(M0) with M0
// the default cycle's M (1:0, 0:M0, 1:M0/4 and 1:M0). Inside replica
// exchange (replica.CycleTuner, issue 35 item 6) every rung runs 1:0 for
// the first half of the burn-in, while an adaptive ladder moves, and the
// second half, at most the CPU 1:0 would spend on it, compares whole
// assignments of cycles to rungs by the target's slow observable (q^2
// with two sets, else |m|) and round trips per modelled CPU-second,
// keeping 1:0 wherever no other is shown to pay. A single chain's cycle is
// chosen once half the burn-in has run (replica.TuneChain, so that it has
// relaxed from its starting state), by the energy's effective samples per
// modelled CPU-second with successive halving.
// The untuned default, what --mix 1:M0 runs (1:328 on frustrated2d:L=60,
// 1:67 on spinglass3d:L=9), is the cycle above; the tuners' candidates
// include it.
//
// A chain can hold a cycle per inverse temperature (SetCycles, issue 24,
// item 3): SetBeta then also sets the cycle of the beta it is given (a
// beta not in the table keeps the current cycle), so that inside replica
// exchange, where swaps exchange temperatures, each rung keeps its own
// cycle whichever member holds it. Every cycle is exact, so the table
// changes the cost and the mixing, never the distribution. A component the
// table needs and the chain was built without is built by SetCycles, at
// the current spins, with the stream put back afterwards (a build that
// draws must not shift the chain's future), so that SetBeta stays O(1).
// The state then also holds the built cycle, which components exist and
// the table (format version 2); a chain without a table saves exactly the
// version 1 state, and RestoreState builds or releases components to match
// the state, so a resumed chain continues bit for bit.
//
// Stats sums the components' counters, each in its own convention: Flips
// is the sweeps' N proposed flips each plus the SARDONICS walks' flips (so
// it stays proposed single-bit changes); Proposed and Accepted count
// Metropolis-Hastings proposals of either kind (one per site per sweep,
// one per SARDONICS move). Parts gives them apart.
package hybrid
