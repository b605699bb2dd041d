//go:build !purego

package sparse

import "unsafe"

// bucketAsm selects the assembly kernels of bucket_amd64.s for new Bucket
// engines. They need only the baseline amd64 instruction set, do the same
// integer work and the same floating-point operations in the same order
// as the Go code (the reference, which -tags purego selects), and give
// the same bits.
const bucketAsm = true

// The kernels load two classes' counts at once from cla: bclass must be
// {base, cnt int32}, 8 bytes (these fail to compile otherwise).
var (
	_ [unsafe.Offsetof(bclass{}.cnt) - 4]struct{}
	_ [4 - unsafe.Offsetof(bclass{}.cnt)]struct{}
	_ [unsafe.Sizeof(bclass{}) - 8]struct{}
	_ [8 - unsafe.Sizeof(bclass{})]struct{}
)

// takeAsm is Bucket.takeGo.
//
//go:noescape
func takeAsm(bk *Bucket, l int32) int32

// walkAsm is the loop of Bucket.walkGo, with the draws taken beforehand.
//
//go:noescape
func walkAsm(bk *Bucket, a *walkArgs)

// reverseAsm is Bucket.reverseGo.
//
//go:noescape
func reverseAsm(bk *Bucket, a *revArgs)
