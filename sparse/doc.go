// Package sparse implements the SARDONICS self-avoiding-walk engine
// (saw.Engine) for Ising models on bounded-degree graphs.
//
// Two engines share one contract:
//
//   - Tree keeps every bit's pick weight, at both biases, in a 4-ary
//     sum-tree: O(log M) draws and updates for any real couplings.
//   - Bucket groups the available bits by their energy change dE, which
//     must take few distinct values (integer couplings and fields, at most
//     64 classes; see Qualifies): O(classes) draws and O(1) updates.
//
// New picks one by name ("auto", "tree", "bucket").
//
// Both engines use saw.LogWeight, so they define the same walk distribution
// as every other engine. Weights are a pure function of the current state
// and availability mask (tree parents are recomputed from their children,
// bucket normalizers from the class counts), so a reverse walk sees exactly
// the normalizers of the forward walk it undoes, and the energy returns
// exactly to its previous value when a walk is undone.
//
// Both also implement saw.FastReverser (the tree in table mode): Walk
// records a little per flip (bucket: the class counts of all bits; tree:
// the available weight but the pick's), from which the move's reverse walks
// are scored without replaying them, on an overlay of the path bits'
// states; a rejected move is then undone. The bucket's reverse
// log-probabilities equal Replay's bit for bit; the tree's agree to about
// 1e-15 and it refuses (the move replays) when cancellation could cost more
// than about 1e-11. See reverse.go.
//
// An engine is not safe for concurrent use; run one per goroutine.
package sparse
