//go:build !amd64 || purego

package denseising

import "sardonics/dense"

const (
	useAVX2 = false
	useFMA  = false
)

func updateAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, q *int16, w *uint64, n int, m int32, bs0, bs1 *uint64, row *float32) float64 {
	panic("denseising: no AVX2")
}

func weighAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, w *uint64, n int, bs0, bs1 *uint64) {
	panic("denseising: no AVX2")
}

func addQAVX2(F *int32, q *int16, n int, m int32)           { panic("denseising: no AVX2") }
func dot32AVX2(row *float32, s *int8, n int) float64        { panic("denseising: no AVX2") }
func dot64AVX2(row *float64, s *int8, n int) float64        { panic("denseising: no AVX2") }
func axpy32AVX2(f *float64, row *float32, n int, c float64) { panic("denseising: no AVX2") }
func axpy64AVX2(f *float64, row *float64, n int, c float64) { panic("denseising: no AVX2") }
