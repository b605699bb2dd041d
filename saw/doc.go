// Package saw implements the SARDONICS move (SPEC section 3; Hamze, Wang
// and de Freitas, sections 3 to 3.2): energy-biased self-avoiding walks
// proposed jointly with their flip sequence and accepted by a
// Metropolis-Hastings rule that satisfies pathwise detailed balance.
//
// The layers, each apart from the next:
//
//   - Engine (engine.go) holds the state and runs one walk at a time,
//     reporting its log-probability at both biases. NewNaive is the slow,
//     obviously correct reference: every pick recomputes every dE from the
//     model. The fast engines live in sparse/ and dense/ and must define
//     the same distribution; LogWeight is the single definition of the
//     weights they all use.
//   - The move (move.go) draws a type and walk lengths, runs the walks,
//     replays the reverse path (which returns the engine to the start
//     state) and accepts with LogAcceptRatio, a pure function shared with
//     the exact kernel so the chain and its proof are one code path.
//   - Chain (chain.go) is a sampler.Chain: engine, RNG, theta (one, or a
//     tuned policy's mixture chosen independently of the state), counters.
//   - Kernel (kernel.go) enumerates the exact one-move transition matrix of
//     any engine on a tiny model; CheckDetailedBalance, CheckStationary and
//     CheckRows turn it into tests every engine package reuses.
//
// Why the reverse path is exact: a walk's probability needs the normalizer
// Z_i over all available bits at each step, and the reverse walk (same bits
// in reverse order, all bits available again) visits the forward states
// in reverse, so replaying it computes its normalizers directly.
//
// Chains and engines are used by one goroutine at a time; the functions
// (LogWeight, LogAcceptRatio, ParseTheta, Kernel) are safe for concurrent
// use. Randomness is always an injected *rand.PCG.
package saw
