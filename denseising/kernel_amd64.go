//go:build !purego

package denseising

import (
	"github.com/klauspost/cpuid/v2"

	"sardonics/dense"
)

// useAVX2 selects the AVX2 kernels and useFMA the fused axpy, chosen at
// run time (cpuid). They give the same bits as the Go loops (see
// kernel.go).
var (
	useAVX2 = cpuid.CPU.Supports(cpuid.AVX2)
	useFMA  = useAVX2 && cpuid.CPU.Supports(cpuid.FMA3)
)

//go:noescape
func updateAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, q *int16, w *uint64, n int, m int32, bs0, bs1 *uint64, row *float32) float64

//go:noescape
func weighAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, w *uint64, n int, bs0, bs1 *uint64)

//go:noescape
func addQAVX2(F *int32, q *int16, n int, m int32)

//go:noescape
func dot32AVX2(row *float32, s *int8, n int) float64

//go:noescape
func dot64AVX2(row *float64, s *int8, n int) float64

//go:noescape
func axpy32AVX2(f *float64, row *float32, n int, c float64)

//go:noescape
func axpy64AVX2(f *float64, row *float64, n int, c float64)
