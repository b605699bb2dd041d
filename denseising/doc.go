// Package denseising is the dense engine for Ising models of any symmetric
// coupling matrix (Sherrington-Kirkpatrick glasses, dense QUBOs): the
// SARDONICS engine (saw.Engine) and the local fields that the dense
// Metropolis and Gibbs chains of package baseline keep.
//
// # The SARDONICS engine
//
// It is the RBM engine of package dense with one layer instead of two: a
// flip of spin k changes every local field, f_i += 2 s_k' J_ik (s_k' the
// new spin), so every spin's pick weight is recomputed in one pass over
// row k. The weights are those of package dense (the same argument, the
// same tables, dense.Bias):
//
//   - Fixed-point fields. Quant holds every coupling times 2^S rounded to
//     an int16 (half the memory of int32, so that the matrix of an N = 8192
//     model takes 128 MiB) and every field times 2^S rounded to an int32,
//     S as large as keeps both in range; the fixed-point field
//     F_i = Hq_i + sum_j Q_ij s_j is an exact integer sum, updated in place
//     by a flip (F += 2 s_k' Q_k), so it is the same function of the spins
//     however the state was reached. dE_i = 2 s_i f_i ~ s_i F_i 2^-(S-1),
//     so the classes are dense.Bias's at scale S-1. Couplings below 2^-16
//     of the largest round to zero in the weights only: the weight is any
//     positive function of the state, so the chain stays exact (they only
//     make it a poorer guide).
//   - Integer weights and exact uint64 sums, per block of 64 spins and in
//     all, so a draw picks l with probability w_l / Z exactly and the
//     reverse walk's normalizers are rebuilt from the forward walk's
//     recorded sums (ReverseLogProbs) to the bit of a replay.
//   - Energies in float64 from the model's own couplings: a flip's dE is
//     2 s_k (h_k + J_k . s), a dot product over row k in a fixed lane
//     order (Dot32, Dot64), so no float64 field needs keeping; the energy
//     is refreshed from scratch every refreshEvery flips.
//
// # Per flip
//
// A flip of spin k is one pass over row k (update): F += 2 s_k' Q_k, each
// spin's class, its weight pair gathered from dense.Bias.Pairs and stored
// whole, the block sums and, for a float32 matrix, J_k . s. Spins the walk
// has taken get weights like the others and are zeroed after the pass
// (O(k)). The pass runs in AVX2 assembly when the CPU has it (cpuid at run
// time); -tags purego (and other architectures) gives the Go loops, which
// give the same bits (TestKernelsAgree): the kernels do integer work,
// exact products by +-1 and +-2, and float64 sums in one fixed order. The
// engine implements saw.FastReverser as the RBM engine does: the reverse
// walks are scored from the forward walks' recorded sums, and a rejected
// move is undone by flipping its spins' fixed-point rows back.
//
// # The fields of the single-site chains
//
// Package baseline's dense Metropolis and Gibbs keep every local field
// f_i = h_i + sum_j J_ij s_j, so that a proposal reads one number (a
// rejection is O(1)) and an accepted flip adds 2 s_k' J_k to all of them
// in one vectorised pass (AddRow32, AddRow64; Field computes one from
// scratch in Dot32's order).
//
// An Engine is not safe for concurrent use; a Quant and the model's
// matrix are read-only and shared by every engine of a model.
package denseising
