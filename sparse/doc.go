// Package sparse implements the SARDONICS self-avoiding-walk engine
// (saw.Engine) for Ising models on bounded-degree graphs.
//
// Two engines share one contract:
//
//   - Tree keeps every bit's pick weight, at both biases, in a 16-ary
//     sum-tree of exact integers: O(log M) draws and updates for any real
//     couplings.
//   - Bucket groups the available bits by their energy change dE, which
//     must take few distinct values (integer couplings and fields, at most
//     64 classes; see Qualifies): O(classes) draws and O(1) updates. A
//     flip takes two uniform draws: the class from all class prefix sums
//     compared at once, the member from the first of the second draw's
//     bit fields below the class's count (pick). That member pick barely
//     moves when the counts change a little, so an engine of 2^17 bits
//     or more guesses a walk's picks before it runs and prefetches the
//     memory they will touch (prefetch.go); the guesses change no result.
//
// New picks one by name ("auto", "tree", "bucket").
//
// Bucket uses saw.LogWeight, so it defines the same walk distribution as
// every other engine; Tree uses quantized weights (below). In both, weights
// are a pure function of the current state and availability mask (bucket
// normalizers are recomputed from the class counts, tree sums are exact
// integers), so a reverse walk sees exactly the normalizers of the forward
// walk it undoes, and the energy returns exactly to its previous value
// when a walk is undone.
//
// # The tree's weights
//
// A walk picks an available bit l with probability w_l / Z, Z the sum of
// the available bits' weights. Any positive weight that is a function of
// the state (and the bias) gives an exact chain, provided the
// Metropolis-Hastings ratio uses the very probabilities the walks were
// drawn with, forward and reverse (Tierney 1994). The tree chooses its
// weights for speed and exactness rather than as the smooth saw.LogWeight,
// as package dense does:
//
//   - Fixed-point fields. Every field and coupling is scaled by 2^S and
//     rounded to an int32 (S as large as keeps every bit's field below
//     2^30; see fix). Each bit keeps x = s F, its spin times its
//     fixed-point field, updated in place by its neighbours' flips with
//     integer adds: the same function of the spins however the state was
//     reached. Any degree works: there are no per-bit tables.
//   - Weight classes. A bit's class is floor(x / 2^sh), clamped to 2048
//     values; its weights at both biases are read from one table of 2048
//     pairs (32 KB) shared by all bits and built per pair of biases (a
//     cache keeps the last 16): integers in [1, 2^wb], the ideal weight of
//     the class's midpoint dE rounded (wtab). With wb = 52 on up to 1024
//     bits, gamma dE spans [-37, 37] (Logistic) or [-18, 18] (Exp) before
//     the weights go flat, in steps of 3.6-7% at the smaller bias. So a
//     neighbour's update costs an integer add, a shift, a clamp and one
//     load from L1, instead of the miss on a per-bit table of 2^(degree+1)
//     entries that the tree had before.
//   - Exact normalizers. Weights are at most 2^wb with n 2^wb <= 2^62, so
//     every node sum is an exact uint64, updated by differences (no drift,
//     no re-summing, the same in any order). A draw takes an exact uniform
//     integer u below the root (Lemire's method with rejection) and
//     descends by the children's sums: bit l is picked with probability
//     w_l / Z exactly.
//   - The same numbers both ways. A walk's log-probability adds the
//     table's log w of each pick and subtracts log Z (Z exact; its
//     logarithm from the product of the Z's as mantissa and exponent, see
//     tlogProd). Replay recomputes the same integers, and the fast reverse
//     rebuilds them (below), so forward walks, replays and the fast reverse
//     use the identical probabilities: the kernel is exact (saw.Kernel's
//     detailed-balance residual stays below 1e-12, chains match exact
//     enumeration). The tests compare the tree with a from-scratch
//     evaluation of these weights (treeRefReplay), not with
//     exp(saw.LogWeight).
//
// The energy is not quantized: each flip's dE is the model's own float64
// field sum, so the target distribution is the model's.
//
// Both engines also implement saw.FastReverser: Walk records a little per
// flip (bucket: the class counts of all bits; tree: the exact available
// weight but the next pick's, the walk bits' states at the walk's end and
// the pairs of walk bits that are neighbours), from which the move's
// reverse walks are scored without replaying them; a rejected move is
// then undone. Both give reverse log-probabilities equal to Replay's bit
// for bit, and the tree never refuses its own walks. See reverse.go and
// tree_reverse.go.
//
// An engine is not safe for concurrent use; run one per goroutine.
package sparse
