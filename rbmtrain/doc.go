// Package rbmtrain trains the bundled restricted Boltzmann machine of the
// paper's RBM experiment by stochastic maximum likelihood (persistent
// contrastive divergence, Tieleman 2008) on binarized natural image patches.
//
// It holds the patch set format (LoadPatches, WritePatches, ExtractPatches),
// the trainer (Train, with its pseudo-log-likelihood monitor), the filter
// figure (FiltersPNG), a float32 .npz writer (WriteNPZ32) and Run, which does
// all of it for `sardonics train-rbm`. cmd/mkpatches rebuilds
// data/patches/patches.bin from scikit-image's photographs; cmd/trainrbm
// rebuilds data/paper-rbm.npz and data/rbm-filters.png (byte for byte).
//
// Training is deterministic: the same Config, data and random stream give
// bit-identical weights on every run. All draws come from the one *rand.PCG
// passed in, in a documented order; the matrix products use gonum's blas64
// Gemm, whose parallel split does not depend on scheduling. Nothing here is
// safe for concurrent use of one value; separate calls are independent.
package rbmtrain
