// Package baseline holds the reference samplers SARDONICS is compared
// against, each a sampler.Chain targeting exp(-beta E) of a model:
//
//   - NewGibbs, NewMetropolis: one Step is a systematic sweep of M
//     single-site heat-bath or Metropolis updates (spins 0..M-1). Sparse
//     models use the CSR form; when every coupling and field is an integer
//     multiple of one unit (integers, QUBO quarters) with few local-field
//     values, probabilities come from a table and the energy is kept exactly
//     in integer units; those sweeps draw their uniforms from a sweep-local
//     xoroshiro128+ seeded by two draws of the chain's PCG (see sweep.go),
//     and regular degree-4 and degree-6 models (2D and 3D tori) with at
//     most 2^16 spins take unrolled, bounds-check-free sweeps that give
//     exactly the generic sweep's results. Otherwise exp is computed per
//     spin. RBMs keep both layers' local fields incrementally (one axpy
//     over a row of W or W' per flip) and recompute them every 1000 steps.
//   - NewSW: one Swendsen-Wang update of any Ising model (QUBOs and RBMs
//     through their exact Ising form), with fields handled exactly by a
//     ghost spin.
//   - NewBlockGibbs: RBMs only; one Step samples h | v, then v | h.
//
// Energies are in the model's own convention (offsets included); Spins are
// in Ising form, visible units first for RBMs. Constructors copy the initial
// state. A chain owns its state, its scratch buffers and the *rand.PCG it
// was given, and Step allocates nothing; a chain is not safe for concurrent
// use, and distinct chains share nothing mutable.
//
// Every chain is a sampler.Stateful and a sampler.Resetter (see state.go):
// its state holds the spins, the counters and whatever depends on its
// history (incrementally updated energies and fields, the step count that
// times their refresh), so a chain restored into one built from other spins
// continues bit for bit given the same random stream, and the runner builds
// each chain once per trial.
package baseline
