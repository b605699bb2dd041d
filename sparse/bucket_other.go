//go:build !amd64 || purego

package sparse

const bucketAsm = false

func takeAsm(bk *Bucket, l int32) int32 { panic("sparse: no assembly kernels") }

func walkAsm(bk *Bucket, a *walkArgs) { panic("sparse: no assembly kernels") }

func reverseAsm(bk *Bucket, a *revArgs) { panic("sparse: no assembly kernels") }
