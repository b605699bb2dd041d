//go:build !purego

package sparse

import "unsafe"

// bucketAsm selects the assembly kernels of bucket_amd64.s for new Bucket
// engines. They need only the baseline amd64 instruction set, do the same
// integer work and the same floating-point operations in the same order
// as the Go code (the reference, which -tags purego selects), and give
// the same bits.
const bucketAsm = true

// The kernels index the per-class arrays with fixed strides: bclass must
// be {base, cnt int32} (8 bytes) and bbit 16 bytes (these fail to compile
// otherwise).
var (
	_ [unsafe.Offsetof(bclass{}.cnt) - 4]struct{}
	_ [4 - unsafe.Offsetof(bclass{}.cnt)]struct{}
	_ [unsafe.Sizeof(bclass{}) - 8]struct{}
	_ [8 - unsafe.Sizeof(bclass{})]struct{}
	_ [unsafe.Sizeof(bbit{}) - 16]struct{}
	_ [16 - unsafe.Sizeof(bbit{})]struct{}
)

// walkAsm8 and walkAsm32 are the loop of walk (int8 and int32 couplings),
// from flip a.t on.
//
//go:noescape
func walkAsm8(bk *Bucket, a *walkArgs)

//go:noescape
func walkAsm32(bk *Bucket, a *walkArgs)

// reverseAsm8 and reverseAsm32 are ReverseLogProbs after its checks (int8
// and int32 couplings).
//
//go:noescape
func reverseAsm8(bk *Bucket, a *revAllArgs)

//go:noescape
func reverseAsm32(bk *Bucket, a *revAllArgs)

// prefetchAll prefetches the n addresses at p.
//
//go:noescape
func prefetchAll(p *uintptr, n int)

// takeAsm8 and takeAsm32 are take (int8 and int32 couplings).
//
//go:noescape
func takeAsm8(bk *Bucket, l int32) int32

//go:noescape
func takeAsm32(bk *Bucket, l int32) int32

// pcgFill fills u[:n] with draws of the PCG whose state is st (see
// drawPCG) and leaves st at the state after them.
//
//go:noescape
func pcgFill(st *[2]uint64, u *uint64, n int)
