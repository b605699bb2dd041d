//go:build !purego

package dense

import "github.com/klauspost/cpuid/v2"

// useAVX2 selects the AVX2 kernels, chosen at run time (cpuid). They do
// only integer work and exact float64 additions, so they give the same
// bits as the Go loops.
var useAVX2 = cpuid.CPU.Supports(cpuid.AVX2)

//go:noescape
func updateAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, f *float64, mask *uint32, rowq *int32, row *float64, w0, w1 *uint32, n int, d int32, neg uint64, bs0, bs1 *uint64)

//go:noescape
func weighAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, mask *uint32, w0, w1 *uint32, n int, bs0, bs1 *uint64)
