//go:build !amd64 || purego

package sparse

const bucketAsm = false

func walkAsm8(bk *Bucket, a *walkArgs)  { panic("sparse: no assembly kernels") }
func walkAsm32(bk *Bucket, a *walkArgs) { panic("sparse: no assembly kernels") }

func reverseAsm8(bk *Bucket, a *revAllArgs)  { panic("sparse: no assembly kernels") }
func reverseAsm32(bk *Bucket, a *revAllArgs) { panic("sparse: no assembly kernels") }

func prefetchAll(p *uintptr, n int) {}

func takeAsm8(bk *Bucket, l int32) int32      { panic("sparse: no assembly kernels") }
func takeAsm32(bk *Bucket, l int32) int32     { panic("sparse: no assembly kernels") }
func pcgFill(st *[2]uint64, u *uint64, n int) { panic("sparse: no assembly kernels") }
