// Package dense is the serial SAW engine for RBMs (saw.Engine). It keeps
// the local field of every unit, updates the other layer's fields with one
// axpy per flip (over a row of W for a visible flip, over a row of the
// transposed copy for a hidden flip), recomputes the pick weights of that
// layer at both biases in a Table (block sums of 64 weights, shared with
// package parallelsaw), and draws by layer, block, then bit. Fields and the
// energy are recomputed from scratch every RefreshEvery flips, so rounding
// never accumulates.
//
// Bits are indexed visible first, then hidden, as in model.RBM.Ising; spins
// s = 2x-1. Energies are in the RBM's convention. Pick weights (Weight,
// and the Weights kernel that package parallelsaw shares) equal
// exp(saw.LogWeight(...)) to about 1e-13 relative, computed with a cheap
// table-driven exp and, for the logistic weight, without the logarithm; they
// lie in [exp(-690), exp(690)]: no overflow, no zero for an available bit.
// The log-probabilities of a walk are the logarithms of these stored weights
// (LogWeight below), so the walk the engines draw is exactly the walk whose
// probabilities they report: the approximation changes the proposal by
// 1e-13, never the correctness of the chain.
//
// An Engine is not safe for concurrent use; Weight and Weights are pure.
package dense
