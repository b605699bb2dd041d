//go:build !purego

#include "textflag.h"

// The weight kernels follow dense/update_amd64.s (the same class
// arithmetic and tables); here the layer is the whole model, the row an
// int16 fixed-point row, the weights are stored as the table's pairs
// (w0 | w1<<32) and the flipped spin's dot product rides along.
//
// Register use of update and weigh:
//   AX: the weight table, both biases interleaved (4096 uint64: w0 | w1<<32)
//   CX: spins (int8), DX: fixed-point fields (int32), R8: the row (int16),
//   R9: the float32 row of the dot product, R10: the pairs out (uint64),
//   R12: count, R13: index, BX, R15: block sums out (uint64)
//   X8: shift count, Y11: the multiplier m, Y0-Y3: the dot's partial sums
//   (elements 0-3, 4-7, 8-11, 12-15 of every 16), Y6: the sum of the
//   pairs (mod 2^64), Y7: the sum of their high halves (w1).

DATA c2048<>+0(SB)/8, $0x0000080000000800
DATA c2048<>+8(SB)/8, $0x0000080000000800
DATA c2048<>+16(SB)/8, $0x0000080000000800
DATA c2048<>+24(SB)/8, $0x0000080000000800
GLOBL c2048<>(SB), RODATA|NOPTR, $32

DATA c4095<>+0(SB)/8, $0x00000fff00000fff
DATA c4095<>+8(SB)/8, $0x00000fff00000fff
DATA c4095<>+16(SB)/8, $0x00000fff00000fff
DATA c4095<>+24(SB)/8, $0x00000fff00000fff
GLOBL c4095<>(SB), RODATA|NOPTR, $32

// FIELDS: Y9 = F + m q, stored back; Y12 = the spins (int32).
#define FIELDS \
	VPMOVSXBD (CX)(R13*1), Y12 \
	VPMOVSXWD (R8)(R13*2), Y9 \
	VPMULLD Y11, Y9, Y9 \
	VPADDD (DX)(R13*4), Y9, Y9 \
	VMOVDQU Y9, (DX)(R13*4)

// DOT8 adds row_j s_j (exact, widened to float64) of the 8 spins to the
// partial sums A (the first 4) and B.
#define DOT8(A, B) \
	VCVTDQ2PS Y12, Y4 \
	VMULPS (R9)(R13*4), Y4, Y4 \
	VCVTPS2PD X4, Y5 \
	VEXTRACTF128 $1, Y4, X4 \
	VCVTPS2PD X4, Y4 \
	VADDPD Y5, A, A \
	VADDPD Y4, B, B

// WEIGH: Y9 holds 8 fields, Y12 their spins; computes their classes
// clamp(s F >> shift + 2048, 0, 4095), gathers the weight pairs (two
// 4-lane 64-bit gathers), stores them and adds them to Y6, their high
// halves to Y7.
#define WEIGH \
	VPSIGND Y12, Y9, Y9 \
	VPSRAD X8, Y9, Y9 \
	VPADDD c2048<>(SB), Y9, Y9 \
	VPXOR Y13, Y13, Y13 \
	VPMAXSD Y13, Y9, Y9 \
	VPMINSD c4095<>(SB), Y9, Y9 \
	VEXTRACTI128 $1, Y9, X10 \
	VPCMPEQD Y13, Y13, Y13 \
	VPGATHERDQ Y13, (AX)(X9*8), Y14 \
	VPCMPEQD Y13, Y13, Y13 \
	VPGATHERDQ Y13, (AX)(X10*8), Y15 \
	VMOVDQU Y14, (R10)(R13*8) \
	VMOVDQU Y15, 32(R10)(R13*8) \
	VPADDQ Y14, Y6, Y6 \
	VPADDQ Y15, Y6, Y6 \
	VPSRLQ $32, Y14, Y14 \
	VPSRLQ $32, Y15, Y15 \
	VPADDQ Y14, Y7, Y7 \
	VPADDQ Y15, Y7, Y7

// FLUSH stores the block's sums at (BX) and (R15): sum w1 = the sum of
// the high halves, sum w0 = the sum of the pairs - (sum w1) << 32 (exact
// mod 2^64, and the true sum is below 2^64); moves to the next block and
// clears the sums.
#define FLUSH \
	VEXTRACTI128 $1, Y6, X9 \
	VPADDQ X9, X6, X6 \
	VPSHUFD $0x4e, X6, X9 \
	VPADDQ X9, X6, X6 \
	VEXTRACTI128 $1, Y7, X10 \
	VPADDQ X10, X7, X7 \
	VPSHUFD $0x4e, X7, X10 \
	VPADDQ X10, X7, X7 \
	VPSLLQ $32, X7, X10 \
	VPSUBQ X10, X6, X6 \
	VMOVQ X6, (BX) \
	VMOVQ X7, (R15) \
	ADDQ $8, BX \
	ADDQ $8, R15 \
	VPXOR Y6, Y6, Y6 \
	VPXOR Y7, Y7, Y7

// REDUCE combines the partial sums Y0..Y3 as dotGo does: ((Y0 + Y1) +
// (Y2 + Y3)), then its lanes (u0 + u2) + (u1 + u3), into X0.
#define REDUCE \
	VADDPD Y1, Y0, Y0 \
	VADDPD Y3, Y2, Y2 \
	VADDPD Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD X1, X0, X0 \
	VPERMILPD $1, X0, X1 \
	VADDSD X1, X0, X0

// func updateAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, q *int16, w *uint64, n int, m int32, bs0, bs1 *uint64, row *float32) float64
// n is a multiple of 8; row nil: no dot product (0 returned). The dot
// product takes 16 spins at a time, then a last 8 into Y0, Y1 (dotGo's
// order).
TEXT ·updateAVX2(SB), NOSPLIT, $0-96
	MOVQ pairs+0(FP), AX
	VMOVQ sh+8(FP), X8
	MOVQ s+16(FP), CX
	MOVQ F+24(FP), DX
	MOVQ q+32(FP), R8
	MOVQ w+40(FP), R10
	MOVQ n+48(FP), R12
	MOVL m+56(FP), R14
	VMOVD R14, X11
	VPBROADCASTD X11, Y11
	MOVQ bs0+64(FP), BX
	MOVQ bs1+72(FP), R15
	MOVQ row+80(FP), R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ R13, R13
	MOVQ R12, R11
	ANDQ $-16, R11
	TESTQ R9, R9
	JEQ nloop

dloop:
	CMPQ R13, R11
	JGE drest
	FIELDS
	DOT8(Y0, Y1)
	WEIGH
	ADDQ $8, R13
	FIELDS
	DOT8(Y2, Y3)
	WEIGH
	ADDQ $8, R13
	TESTQ $63, R13
	JNE dloop
	FLUSH
	JMP dloop

drest:
	CMPQ R13, R12
	JGE ulast
	FIELDS
	DOT8(Y0, Y1)
	WEIGH
	ADDQ $8, R13
	JMP ulast

nloop:
	CMPQ R13, R12
	JGE ulast
	FIELDS
	WEIGH
	ADDQ $8, R13
	TESTQ $63, R13
	JNE nloop
	FLUSH
	JMP nloop

ulast:
	TESTQ $63, R13
	JEQ udone
	FLUSH

udone:
	REDUCE
	VZEROUPPER
	MOVSD X0, ret+88(FP)
	RET

// func weighAVX2(pairs *[dense.Classes]uint64, sh uint64, s *int8, F *int32, w *uint64, n int, bs0, bs1 *uint64)
// n is a multiple of 8.
TEXT ·weighAVX2(SB), NOSPLIT, $0-64
	MOVQ pairs+0(FP), AX
	VMOVQ sh+8(FP), X8
	MOVQ s+16(FP), CX
	MOVQ F+24(FP), DX
	MOVQ w+32(FP), R10
	MOVQ n+40(FP), R12
	MOVQ bs0+48(FP), BX
	MOVQ bs1+56(FP), R15
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ R13, R13
	TESTQ R12, R12
	JEQ wdone

wloop:
	VPMOVSXBD (CX)(R13*1), Y12
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

// func dot32AVX2(row *float32, s *int8, n int) float64 (n a multiple of
// 8: 16 at a time, then a last 8 into Y0, Y1)
TEXT ·dot32AVX2(SB), NOSPLIT, $0-32
	MOVQ row+0(FP), R9
	MOVQ s+8(FP), CX
	MOVQ n+16(FP), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ R13, R13
	MOVQ R12, R11
	ANDQ $-16, R11

d32loop:
	CMPQ R13, R11
	JGE d32rest
	VPMOVSXBD (CX)(R13*1), Y12
	DOT8(Y0, Y1)
	ADDQ $8, R13
	VPMOVSXBD (CX)(R13*1), Y12
	DOT8(Y2, Y3)
	ADDQ $8, R13
	JMP d32loop

d32rest:
	CMPQ R13, R12
	JGE d32sum
	VPMOVSXBD (CX)(R13*1), Y12
	DOT8(Y0, Y1)

d32sum:
	REDUCE
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func dot64AVX2(row *float64, s *int8, n int) float64 (n a multiple of
// 8, as dot32AVX2)
TEXT ·dot64AVX2(SB), NOSPLIT, $0-32
	MOVQ row+0(FP), SI
	MOVQ s+8(FP), CX
	MOVQ n+16(FP), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ R13, R13
	MOVQ R12, R11
	ANDQ $-16, R11

d64loop:
	CMPQ R13, R11
	JGE d64rest
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
	JMP d64loop

d64rest:
	CMPQ R13, R12
	JGE d64sum
	VPMOVSXBD (CX)(R13*1), X8
	VCVTDQ2PD X8, Y8
	VMULPD (SI)(R13*8), Y8, Y8
	VADDPD Y8, Y0, Y0
	VPMOVSXBD 4(CX)(R13*1), X8
	VCVTDQ2PD X8, Y8
	VMULPD 32(SI)(R13*8), Y8, Y8
	VADDPD Y8, Y1, Y1

d64sum:
	REDUCE
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func axpy32AVX2(f *float64, row *float32, n int, c float64) (n a
// multiple of 8; FMA: c row is exact, so the fused add rounds as the Go
// loop's add does)
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
	VMOVUPD (SI)(R13*8), Y10
	VFMADD231PD Y9, Y0, Y10
	VMOVUPD Y10, (SI)(R13*8)
	VCVTPS2PD 16(R8)(R13*4), Y11
	VMOVUPD 32(SI)(R13*8), Y12
	VFMADD231PD Y11, Y0, Y12
	VMOVUPD Y12, 32(SI)(R13*8)
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
	VMOVUPD (SI)(R13*8), Y10
	VFMADD231PD (R8)(R13*8), Y0, Y10
	VMOVUPD Y10, (SI)(R13*8)
	VMOVUPD 32(SI)(R13*8), Y12
	VFMADD231PD 32(R8)(R13*8), Y0, Y12
	VMOVUPD Y12, 32(SI)(R13*8)
	ADDQ $8, R13
	CMPQ R13, R12
	JLT x64loop

x64done:
	VZEROUPPER
	RET
