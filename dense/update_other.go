//go:build !amd64 || purego

package dense

const useAVX2 = false

func updateAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, f *float64, mask *uint32, w0, w1 *uint32, n int, neg uint64, bs0, bs1 *uint64, rowq *int32, row *float64, d int32) {
	panic("dense: no AVX2")
}

func updateFixAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, f *float64, mask *uint32, w0, w1 *uint32, n int, neg uint64, bs0, bs1 *uint64, row *float64, scale float64) {
	panic("dense: no AVX2")
}

func weighAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, mask *uint32, w0, w1 *uint32, n int, bs0, bs1 *uint64) {
	panic("dense: no AVX2")
}
