//go:build !purego

#include "textflag.h"

// Both kernels process n bits (a multiple of 8) and store the sums of each
// block of 64 (the last one possibly shorter) at bs0[i], bs1[i].
//
// Register use of both kernels:
//   AX: the weight table, both biases interleaved (4096 uint64: w0 | w1<<32)
//   CX: spins (int8), DX: fixed-point fields (int32), DI: masks (uint32)
//   R10, R11: weights out (uint32), R12: count (a multiple of 8), R13: index
//   BX, R15: block sums out (uint64)
//   X2: shift count, Y3/Y4: -2048/2047, Y5: 2048, Y6/Y7: sums (4 x uint64),
//   Y8: 0x00000000ffffffff in each quadword.

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
// pairs (two 4-lane 64-bit gathers: on AMD Zen 3 cheaper than two 8-lane
// 32-bit ones), splits them into w0 and w1, masks and stores them and adds
// them to Y6, Y7.
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

// UPDATE_ARGS loads the arguments that updateAVX2 and updateFixAVX2 share
// (the first ones of both: the same offsets), Y1 the sign bit of d.
#define UPDATE_ARGS \
	MOVQ pairs+0(FP), AX \
	VMOVQ sh+8(FP), X2 \
	MOVQ s+16(FP), CX \
	MOVQ F+24(FP), DX \
	MOVQ f+32(FP), SI \
	MOVQ mask+40(FP), DI \
	MOVQ w0+48(FP), R10 \
	MOVQ w1+56(FP), R11 \
	MOVQ n+64(FP), R12 \
	MOVQ neg+72(FP), R14 \
	VMOVQ R14, X1 \
	VPBROADCASTQ X1, Y1 \
	MOVQ bs0+80(FP), BX \
	MOVQ bs1+88(FP), R15

// START begins a kernel's loop at bit 0, or returns for n = 0.
#define START(done) \
	SETUP_CONSTS \
	XORQ R13, R13 \
	TESTQ R12, R12 \
	JEQ done

// ADD_ROWQ: F += d rowq for 8 bits (Y0: d in each lane).
#define ADD_ROWQ \
	VMOVDQU (R8)(R13*4), Y9 \
	VPSIGND Y0, Y9, Y9 \
	VPADDD (DX)(R13*4), Y9, Y9 \
	VMOVDQU Y9, (DX)(R13*4)

// NEXT ends an iteration of a kernel's loop: it moves to the next 8 bits,
// flushes the sums at the end of each block and, after the last bits, of
// the last (shorter) block, and returns.
#define NEXT(loop, cont, done) \
	ADDQ $8, R13 \
	TESTQ $63, R13 \
	JNE cont \
	FLUSH \
cont: \
	CMPQ R13, R12 \
	JLT loop \
	TESTQ $63, R13 \
	JEQ done \
	FLUSH \
done: \
	VZEROUPPER \
	RET

// func updateAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, f *float64, mask *uint32, w0, w1 *uint32, n int, neg uint64, bs0, bs1 *uint64, rowq *int32, row *float64, d int32)
TEXT ·updateAVX2(SB), NOSPLIT, $0-116
	UPDATE_ARGS
	MOVQ rowq+96(FP), R8
	MOVQ row+104(FP), R9
	MOVL d+112(FP), R14
	VMOVD R14, X0
	VPBROADCASTD X0, Y0
	START(udone)
	TESTQ R9, R9
	JEQ qloop // row nil: no float64 fields

uloop:
	ADD_ROWQ
	// f += d row (d row is exact: a sign flip)
	VXORPD (R9)(R13*8), Y1, Y10
	VADDPD (SI)(R13*8), Y10, Y10
	VMOVUPD Y10, (SI)(R13*8)
	VXORPD 32(R9)(R13*8), Y1, Y11
	VADDPD 32(SI)(R13*8), Y11, Y11
	VMOVUPD Y11, 32(SI)(R13*8)
	WEIGH
	NEXT(uloop, ucont, udone)

qloop:
	ADD_ROWQ
	WEIGH
	NEXT(qloop, qcont, qdone)

// updateFixAVX2 is updateAVX2 with rowq = round(row scale), ties to even
// (VCVTPD2DQ under Go's MXCSR, round to nearest even). Y0 holds scale;
// the rounding is of d row (d row scale is exact), which is d rowq, since
// rounding to even is odd-symmetric.
// func updateFixAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, f *float64, mask *uint32, w0, w1 *uint32, n int, neg uint64, bs0, bs1 *uint64, row *float64, scale float64)
TEXT ·updateFixAVX2(SB), NOSPLIT, $0-112
	UPDATE_ARGS
	MOVQ row+96(FP), R9
	VBROADCASTSD scale+104(FP), Y0
	START(fdone)

floop:
	// d row, exact: a sign flip
	VXORPD (R9)(R13*8), Y1, Y10
	VXORPD 32(R9)(R13*8), Y1, Y11
	// F += round(d row scale)
	VMULPD Y0, Y10, Y12
	VMULPD Y0, Y11, Y13
	VCVTPD2DQY Y12, X12
	VCVTPD2DQY Y13, X13
	VINSERTI128 $1, X13, Y12, Y9
	VPADDD (DX)(R13*4), Y9, Y9
	VMOVDQU Y9, (DX)(R13*4)
	// f += d row
	VADDPD (SI)(R13*8), Y10, Y10
	VMOVUPD Y10, (SI)(R13*8)
	VADDPD 32(SI)(R13*8), Y11, Y11
	VMOVUPD Y11, 32(SI)(R13*8)
	WEIGH
	NEXT(floop, fcont, fdone)

// func weighAVX2(pairs *[Classes]uint64, sh uint64, s *int8, F *int32, mask *uint32, w0, w1 *uint32, n int, bs0, bs1 *uint64)
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
	START(wdone)

wloop:
	VMOVDQU (DX)(R13*4), Y9
	WEIGH
	NEXT(wloop, wcont, wdone)
