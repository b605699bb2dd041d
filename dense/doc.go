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
//   - Fixed-point fields. Every coupling and bias times 2^S, rounded to
//     an int32 (S as large as keeps every field below 2^30): Quant holds
//     the biases and the transpose WT; a visible unit's row is rounded
//     from the model's float64 row as a flip reads it (round(x 2^S) is
//     the same integer computed either way: 2^S is a normal float64, so
//     the product is exact or below 2^-1022, and VCVTPD2DQ rounds to even
//     as math.RoundToEven does; TestFixByScale). Each bit's fixed-point
//     field F_l is an integer sum, updated in place by a flip with no
//     rounding, so it is the same function of the spins however the state
//     was reached: no drift, no refresh.
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
// # Memory
//
// The model's float64 W (V x H, row-major) is shared, not copied. From
// CompactFrom weights on (2048 x 2048), the engine is compact: its only
// matrix is WT in fixed point, 4 bytes per weight (a 4096 x 4096 RBM runs
// in about 12.5 bytes per weight of peak RSS, the model's 8 included).
// A visible flip reads its row of W once for both of the hidden layer's
// fields. A hidden flip needs column j of W for the visible float64
// fields, which a row-major W cannot give at the speed of a row, so it is
// logged instead, and a visible field is caught up when it is read (its
// unit flips, or the state is saved): it adds the logged d W_ij from its
// own row of W, just brought into the cache by the flip's update, in the
// logged order. Those are the very float64 additions, in the very order,
// that an update of every field at every flip makes, so a field has the
// same bits either way. The log starts over at every refresh. Smaller
// engines also keep W in fixed point and the float64 transpose (12 more
// bytes per weight) and update every field at every flip, in the vector
// kernels: there the catching up, a chain of dependent additions, would
// cost more than the updates it saves. Both layouts give the same bits
// (the tests run under both).
//
// # Per flip
//
// A flip of bit l updates the other layer in one pass (Table.Update,
// UpdateFix): the fixed-point and float64 fields (the fixed-point ones
// only, for a compact engine's hidden flips), each bit's class and its
// weights at both biases, and the block and layer sums; the flipped bit
// itself is taken (weight 0) and given its new weight when the walk ends.
// The pass runs in
// AVX2 assembly when the CPU has it (chosen at run time with
// github.com/klauspost/cpuid; build tag purego disables it): classes in
// 8-lane integer arithmetic, the weight pairs by two 64-bit gathers from a
// table holding both biases. It does only integer work, exact float64
// additions (d row with d = +-1) and exact products by 2^S rounded to
// even, so it gives the same bits as the Go loop (TestKernelsAgree,
// TestFixKernelsAgree). The engine implements saw.FastReverser: the reverse
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
