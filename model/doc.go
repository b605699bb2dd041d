// Package model holds the binary models sardonics samples: the sparse Ising
// representation (CSR adjacency), QUBOs loaded exactly into it, and dense
// RBMs; their generators, file formats and spec parser.
//
// Every model has an exact Ising form over spins s in {-1,+1}:
//
//	E(s) = Offset - sum_(i<j) J_ij s_i s_j - sum_i h_i s_i
//
// QUBO and RBM variables x in {0,1} map to spins by x = (1+s)/2, so an
// energy computed from the Ising form is already in the model's own
// convention (the offset carries the constant). Models are immutable after
// construction and safe for concurrent readers.
//
// Generators are deterministic on every platform: they draw from
// rand.NewPCG(seed, GenStream) using exact integer arithmetic only, and the
// order of draws is documented on each generator; golden hashes under
// testdata/golden pin every instance.
package model
