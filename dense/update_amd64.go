//go:build !purego

package dense

import "github.com/klauspost/cpuid/v2"

// useAVX2 selects the AVX2 kernels, chosen at run time (cpuid). They do
// only integer work and exact float64 additions, so they give the same
// bits as the Go loops.
var useAVX2 = cpuid.CPU.Supports(cpuid.AVX2)

// updateAVX2 with row nil leaves f alone.
//
//go:noescape
func updateAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, f *float64, mask *uint32, w0, w1 *uint32, n int, neg uint64, bs0, bs1 *uint64, rowq *int32, row *float64, d int32)

//go:noescape
func updateFixAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, f *float64, mask *uint32, w0, w1 *uint32, n int, neg uint64, bs0, bs1 *uint64, row *float64, scale float64)

//go:noescape
func weighAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, mask *uint32, w0, w1 *uint32, n int, bs0, bs1 *uint64)
