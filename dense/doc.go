// Package dense is the serial SAW engine for RBMs (saw.Engine), and the
// weights, tables and kernels it shares with package parallelsaw.
//
// # What a pick weight is
//
// A walk picks an available bit l with probability w_l / Z, Z the sum of
// the available bits' weights. Any positive weight that is a function of
// the state (and the bias) gives an exact chain, provided the
// Metropolis-Hastings ratio uses the very probabilities the walks were
// drawn with, forward and reverse (Tierney 1994; the paper's own argument
// needs nothing else of w). This package chooses the weight for speed and
// exactness rather than as the smooth saw.LogWeight:
//
//   - Fixed-point fields. Quant holds every coupling and bias times 2^S,
//     rounded to an int32 (S as large as keeps every field below 2^30).
//     Each bit's fixed-point field F_l is an integer sum, updated in place
//     by a flip with no rounding, so it is the same function of the spins
//     however the state was reached: no drift, no refresh.
//   - Weight classes. The bit's class is floor(s_l F_l / 2^Shift), clamped
//     to Classes values: its energy change dE = s_l F_l 2^-S lies in a bin
//     of width Delta = 2^(Shift-S), chosen per pair of biases so that
//     gamma Delta is about 1/64 and the classes span |gamma dE| <= 22
//     (Logistic) or 11 (Exp). Its weight is an integer in [1, 2^31] read
//     from a table per bias (Bias): the ideal weight of the bin's midpoint,
//     normalized, rounded, at least 1. So a flip costs no exp at all: one
//     integer add, a shift, a clamp and a table look-up per touched bit.
//     The weight function is a staircase within about 0.4% of the smooth
//     one (TestBiasTables) and positive everywhere.
//   - Exact normalizers. Weights are integers below 2^31, so every block
//     sum, layer sum and Z is an exact uint64: updated in place (Set adds
//     the difference), never re-added, never drifting, and equal to the
//     sum of the weights in any order. A draw takes an exact uniform
//     integer u in [0, Z) (Lemire's method with rejection) and scans the
//     layer, block and bit sums, so it picks l with probability w_l / Z
//     exactly.
//   - The same numbers both ways. A walk's log-probability adds
//     Bias.Log[b][class] - log(float64(Z)) per pick (Z exact, so its
//     conversion is exact below 2^53). The reverse walk's normalizers come
//     from the same integers: Replay recomputes them, and the fast reverse
//     (ReverseLogProbs) rebuilds them from the forward walk's recorded sums
//     plus and minus the path bits' weights, whose fixed-point fields it
//     rebuilds backwards by subtracting the couplings of the undone flips;
//     both give the same bits (TestReplayMatchesNaive). Forward and reverse
//     walks therefore use identical probabilities, and the kernel is exact:
//     saw.Kernel's detailed-balance residual stays below 1e-12 and the
//     chains match exact enumeration.
//
// The energy is not quantized: dE and Energy use float64 fields, updated by
// one axpy per flip and recomputed from scratch every RefreshEvery flips,
// so the target distribution is the model's own.
//
// # Per flip
//
// A flip of bit l updates the other layer in one pass (Table.Update): the
// fixed-point and float64 fields, each bit's class and its weights at both
// biases, and the block and layer sums; the flipped bit itself is taken
// (weight 0) and given its new weight when the walk ends. The pass runs in
// AVX2 assembly when the CPU has it (chosen at run time with
// github.com/klauspost/cpuid; build tag purego disables it): classes in
// 8-lane integer arithmetic, the weight pairs by two 64-bit gathers from a
// table holding both biases. It does only integer work and exact float64
// additions (d row with d = +-1), so it gives the same bits as the Go loop
// (TestKernelsAgree). The engine implements saw.FastReverser: the reverse
// path is scored from the forward walks' record in O(k^2) integer
// operations, and a rejected move is undone by flipping its bits back
// (fields only; the weights are recomputed once at the next walk).
//
// Bits are indexed visible first, then hidden, as in model.RBM.Ising; spins
// s = 2x-1. Energies are in the RBM's convention.
//
// An Engine is not safe for concurrent use; Quant, Bias and the kernels
// are read-only or pure.
package dense
