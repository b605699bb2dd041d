//go:build !purego

#include "textflag.h"

// The weight kernels follow dense/update_amd64.s (the same tables, the
// same WEIGH step); here the row is an int16 fixed-point row of one layer.
//
// Register use of update and weigh:
//   AX: the weight table, both biases interleaved (4096 uint64: w0 | w1<<32)
//   CX: spins (int8), DX: fixed-point fields (int32), DI: masks (uint32)
//   R8: the row (int16), R10, R11: weights out (uint32), R12: count (a
//   multiple of 8), R13: index, BX, R15: block sums out (uint64)
//   Y0: the multiplier m, X2: shift count, Y3/Y4: -2048/2047, Y5: 2048,
//   Y6/Y7: sums (4 x uint64), Y8: 0x00000000ffffffff in each quadword.

#define SETUP_CONSTS \
	MOVL $-2048, R14 \
	VMOVD R14, X3 \
	VPBROADCASTD X3, Y3 \
	MOVL $2047, R14 \
	VMOVD R14, X4 \
	VPBROADCASTD X4, Y4 \
	MOVL $2048, R14 \
	VMOVD R14, X5 \
	VPBROADCASTD X5, Y5 \
	VPXOR Y6, Y6, Y6 \
	VPXOR Y7, Y7, Y7 \
	VPCMPEQD Y8, Y8, Y8 \
	VPSRLQ $32, Y8, Y8

// WEIGH: Y9 holds 8 fields; computes their classes, gathers the weight
// pairs, splits them into w0 and w1, masks and stores them and adds them
// to Y6, Y7.
#define WEIGH \
	VPMOVSXBD (CX)(R13*1), Y12 \
	VPSIGND Y12, Y9, Y9 \
	VPSRAD X2, Y9, Y9 \
	VPMAXSD Y3, Y9, Y9 \
	VPMINSD Y4, Y9, Y9 \
	VPADDD Y5, Y9, Y9 \
	VEXTRACTI128 $1, Y9, X10 \
	VPCMPEQD Y13, Y13, Y13 \
	VPGATHERDQ Y13, (AX)(X9*8), Y14 \
	VPCMPEQD Y13, Y13, Y13 \
	VPGATHERDQ Y13, (AX)(X10*8), Y15 \
	VSHUFPS $0x88, Y15, Y14, Y10 \
	VSHUFPS $0xDD, Y15, Y14, Y15 \
	VPERMQ $0xD8, Y10, Y14 \
	VPERMQ $0xD8, Y15, Y15 \
	VMOVDQU (DI)(R13*4), Y12 \
	VPAND Y12, Y14, Y14 \
	VPAND Y12, Y15, Y15 \
	VMOVDQU Y14, (R10)(R13*4) \
	VMOVDQU Y15, (R11)(R13*4) \
	VPAND Y8, Y14, Y12 \
	VPSRLQ $32, Y14, Y14 \
	VPADDQ Y12, Y6, Y6 \
	VPADDQ Y14, Y6, Y6 \
	VPAND Y8, Y15, Y12 \
	VPSRLQ $32, Y15, Y15 \
	VPADDQ Y12, Y7, Y7 \
	VPADDQ Y15, Y7, Y7

#define SUMS \
	VEXTRACTI128 $1, Y6, X9 \
	VPADDQ X9, X6, X6 \
	VPSHUFD $0x4e, X6, X9 \
	VPADDQ X9, X6, X6 \
	VEXTRACTI128 $1, Y7, X10 \
	VPADDQ X10, X7, X7 \
	VPSHUFD $0x4e, X7, X10 \
	VPADDQ X10, X7, X7

// FLUSH stores the sums of the block just done at (BX) and (R15), moves
// them to the next block and clears the sums.
#define FLUSH \
	SUMS \
	VMOVQ X6, (BX) \
	VMOVQ X7, (R15) \
	ADDQ $8, BX \
	ADDQ $8, R15 \
	VPXOR Y6, Y6, Y6 \
	VPXOR Y7, Y7, Y7

// func updateAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, mask *uint32, q *int16, w0, w1 *uint32, n int, m int32, bs0, bs1 *uint64)
TEXT ·updateAVX2(SB), NOSPLIT, $0-96
	MOVQ pairs+0(FP), AX
	VMOVQ sh+8(FP), X2
	MOVQ s+16(FP), CX
	MOVQ F+24(FP), DX
	MOVQ mask+32(FP), DI
	MOVQ q+40(FP), R8
	MOVQ w0+48(FP), R10
	MOVQ w1+56(FP), R11
	MOVQ n+64(FP), R12
	MOVL m+72(FP), R14
	VMOVD R14, X0
	VPBROADCASTD X0, Y0
	MOVQ bs0+80(FP), BX
	MOVQ bs1+88(FP), R15
	SETUP_CONSTS
	XORQ R13, R13
	TESTQ R12, R12
	JEQ udone

uloop:
	// F += m q (exact: |F| stays below 2^31)
	VPMOVSXWD (R8)(R13*2), Y9
	VPMULLD Y0, Y9, Y9
	VPADDD (DX)(R13*4), Y9, Y9
	VMOVDQU Y9, (DX)(R13*4)
	WEIGH
	ADDQ $8, R13
	TESTQ $63, R13
	JNE ucont
	FLUSH

ucont:
	CMPQ R13, R12
	JLT uloop
	TESTQ $63, R13
	JEQ udone
	FLUSH

udone:
	VZEROUPPER
	RET

// func weighAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, mask *uint32, w0, w1 *uint32, n int, bs0, bs1 *uint64)
TEXT ·weighAVX2(SB), NOSPLIT, $0-80
	MOVQ pairs+0(FP), AX
	VMOVQ sh+8(FP), X2
	MOVQ s+16(FP), CX
	MOVQ F+24(FP), DX
	MOVQ mask+32(FP), DI
	MOVQ w0+40(FP), R10
	MOVQ w1+48(FP), R11
	MOVQ n+56(FP), R12
	MOVQ bs0+64(FP), BX
	MOVQ bs1+72(FP), R15
	SETUP_CONSTS
	XORQ R13, R13
	TESTQ R12, R12
	JEQ wdone

wloop:
	VMOVDQU (DX)(R13*4), Y9
	WEIGH
	ADDQ $8, R13
	TESTQ $63, R13
	JNE wcont
	FLUSH

wcont:
	CMPQ R13, R12
	JLT wloop
	TESTQ $63, R13
	JEQ wdone
	FLUSH

wdone:
	VZEROUPPER
	RET

// func addQAVX2(F *int32, q *int16, n int, m int32)
TEXT ·addQAVX2(SB), NOSPLIT, $0-28
	MOVQ F+0(FP), DX
	MOVQ q+8(FP), R8
	MOVQ n+16(FP), R12
	MOVL m+24(FP), R14
	VMOVD R14, X0
	VPBROADCASTD X0, Y0
	XORQ R13, R13
	TESTQ R12, R12
	JEQ adone

aloop:
	VPMOVSXWD (R8)(R13*2), Y9
	VPMULLD Y0, Y9, Y9
	VPADDD (DX)(R13*4), Y9, Y9
	VMOVDQU Y9, (DX)(R13*4)
	ADDQ $8, R13
	CMPQ R13, R12
	JLT aloop

adone:
	VZEROUPPER
	RET

// REDUCE combines the partial sums Y0..Y3 (elements 0-3, 4-7, 8-11, 12-15
// of every 16) as dotGo does: ((Y0 + Y1) + (Y2 + Y3)), then its lanes
// (u0 + u2) + (u1 + u3), into X0.
#define REDUCE \
	VADDPD Y1, Y0, Y0 \
	VADDPD Y3, Y2, Y2 \
	VADDPD Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD X1, X0, X0 \
	VPERMILPD $1, X0, X1 \
	VADDSD X1, X0, X0 \
	VZEROUPPER

// func dot32AVX2(row *float32, s *int8, n int) float64 (n a multiple of 16)
TEXT ·dot32AVX2(SB), NOSPLIT, $0-32
	MOVQ row+0(FP), SI
	MOVQ s+8(FP), CX
	MOVQ n+16(FP), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ R13, R13
	TESTQ R12, R12
	JEQ d32sum

d32loop:
	// +-J_j in float32 (exact), widened to float64
	VPMOVSXBD (CX)(R13*1), Y8
	VCVTDQ2PS Y8, Y8
	VMULPS (SI)(R13*4), Y8, Y8
	VCVTPS2PD X8, Y9
	VEXTRACTF128 $1, Y8, X10
	VCVTPS2PD X10, Y10
	VADDPD Y9, Y0, Y0
	VADDPD Y10, Y1, Y1
	VPMOVSXBD 8(CX)(R13*1), Y8
	VCVTDQ2PS Y8, Y8
	VMULPS 32(SI)(R13*4), Y8, Y8
	VCVTPS2PD X8, Y9
	VEXTRACTF128 $1, Y8, X10
	VCVTPS2PD X10, Y10
	VADDPD Y9, Y2, Y2
	VADDPD Y10, Y3, Y3
	ADDQ $16, R13
	CMPQ R13, R12
	JLT d32loop

d32sum:
	REDUCE
	MOVSD X0, ret+24(FP)
	RET

// func dot64AVX2(row *float64, s *int8, n int) float64 (n a multiple of 16)
TEXT ·dot64AVX2(SB), NOSPLIT, $0-32
	MOVQ row+0(FP), SI
	MOVQ s+8(FP), CX
	MOVQ n+16(FP), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ R13, R13
	TESTQ R12, R12
	JEQ d64sum

d64loop:
	VPMOVSXBD (CX)(R13*1), X8
	VCVTDQ2PD X8, Y8
	VMULPD (SI)(R13*8), Y8, Y8
	VADDPD Y8, Y0, Y0
	VPMOVSXBD 4(CX)(R13*1), X8
	VCVTDQ2PD X8, Y8
	VMULPD 32(SI)(R13*8), Y8, Y8
	VADDPD Y8, Y1, Y1
	VPMOVSXBD 8(CX)(R13*1), X8
	VCVTDQ2PD X8, Y8
	VMULPD 64(SI)(R13*8), Y8, Y8
	VADDPD Y8, Y2, Y2
	VPMOVSXBD 12(CX)(R13*1), X8
	VCVTDQ2PD X8, Y8
	VMULPD 96(SI)(R13*8), Y8, Y8
	VADDPD Y8, Y3, Y3
	ADDQ $16, R13
	CMPQ R13, R12
	JLT d64loop

d64sum:
	REDUCE
	MOVSD X0, ret+24(FP)
	RET

// func axpy32AVX2(f *float64, row *float32, n int, c float64) (n a multiple of 8)
TEXT ·axpy32AVX2(SB), NOSPLIT, $0-32
	MOVQ f+0(FP), SI
	MOVQ row+8(FP), R8
	MOVQ n+16(FP), R12
	VBROADCASTSD c+24(FP), Y0
	XORQ R13, R13
	TESTQ R12, R12
	JEQ x32done

x32loop:
	VCVTPS2PD (R8)(R13*4), Y9
	VMULPD Y0, Y9, Y9
	VADDPD (SI)(R13*8), Y9, Y9
	VMOVUPD Y9, (SI)(R13*8)
	VCVTPS2PD 16(R8)(R13*4), Y10
	VMULPD Y0, Y10, Y10
	VADDPD 32(SI)(R13*8), Y10, Y10
	VMOVUPD Y10, 32(SI)(R13*8)
	ADDQ $8, R13
	CMPQ R13, R12
	JLT x32loop

x32done:
	VZEROUPPER
	RET

// func axpy64AVX2(f *float64, row *float64, n int, c float64) (n a multiple of 8)
TEXT ·axpy64AVX2(SB), NOSPLIT, $0-32
	MOVQ f+0(FP), SI
	MOVQ row+8(FP), R8
	MOVQ n+16(FP), R12
	VBROADCASTSD c+24(FP), Y0
	XORQ R13, R13
	TESTQ R12, R12
	JEQ x64done

x64loop:
	VMULPD (R8)(R13*8), Y0, Y9
	VADDPD (SI)(R13*8), Y9, Y9
	VMOVUPD Y9, (SI)(R13*8)
	VMULPD 32(R8)(R13*8), Y0, Y10
	VADDPD 32(SI)(R13*8), Y10, Y10
	VMOVUPD Y10, 32(SI)(R13*8)
	ADDQ $8, R13
	CMPQ R13, R12
	JLT x64loop

x64done:
	VZEROUPPER
	RET
