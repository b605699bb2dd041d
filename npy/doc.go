// Package npy reads and writes NumPy's .npy arrays and .npz archives: the
// header (Header, Split: format versions 1-3, C or Fortran order), the
// encodings the program writes (float64, float32, uint8, int64), archives
// (WriteArchive, Archive) and an archive entry's bytes without a copy
// where it is stored (Entry). Every .npy or .npz byte the program reads or
// writes goes through it; what an array means (an RBM's W, a dense J, a
// trace) is its caller's.
package npy
