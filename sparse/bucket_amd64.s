//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// The Bucket kernels. Each does the work of its Go counterpart in
// bucket.go or reverse.go (the reference) with the same integer updates
// in the same order and the same floating-point operations in the same
// order, so that both give the same bits. Indices are trusted: the Go
// callers have checked them or took them from the engine's own tables.

// TAKE is Bucket.takeGo: it flips bit AX (already removed from its class)
// of the engine at DI and moves its neighbours to their new classes (an
// unavailable one only changes the counts tca). Out: BX = dE/(2g).
// Clobbers AX, CX, DX, SI, R8-R15 (and DI when the bit has neighbours).
// Its labels are take*: one use per function.
//
// In the neighbour loop: SI is the edge, CX the edges left, DX the new
// spin, R8 bits, R9 mem, R10 cla (and tca beyond it), R11 the result,
// R12 cls, AX the neighbour j, DI 16 j (bits[j] is at (R8)(DI*1)), R13
// its old class, R14 its new one, R15 its position. Classes need no mask
// here: every entry of cls (and so every bbit.c) is below maxClasses by
// construction (classes.derive).
#define TAKE \
	MOVQ Bucket_bits(DI), R8 \
	MOVQ Bucket_cls(DI), R12 \
	MOVQ AX, SI \
	SHLQ $4, SI \
	ADDQ R8, SI \
	MOVL Bucket_r(DI), CX \
	MOVL bbit_qb(SI), BX \
	SUBL CX, BX \
	MOVLQSX BX, R13 \
	IMULQ Bucket_g(DI), R13 \
	SHLQ $1, R13 \
	ADDQ R13, Bucket_eInt(DI) \
	MOVWLSX bbit_s(SI), DX \
	NEGL DX \
	MOVW DX, bbit_s(SI) \
	MOVQ Bucket_s(DI), R13 \
	MOVB DX, (R13)(AX*1) \
	SUBL BX, CX \
	MOVL CX, bbit_qb(SI) \
	MOVBLZX (R12)(CX*1), R14 \
	MOVB R14, bbit_c(SI) \
	ANDL $(const_maxClasses-1), R14 \
	INCL Bucket_tca(DI)(R14*4) \
	MOVQ Bucket_start(DI), R13 \
	MOVLQSX (R13)(AX*4), R14 \
	MOVLQSX 4(R13)(AX*4), CX \
	SUBQ R14, CX \
	JLE takedone \
	MOVQ Bucket_edges(DI), SI \
	LEAQ (SI)(R14*8), SI \
	MOVQ Bucket_mem(DI), R9 \
	LEAQ Bucket_cla(DI), R10 \
	MOVL BX, R11 \
takeloop: \
	MOVL 0(SI), AX \
	MOVL 4(SI), BX \
	ADDQ $8, SI \
	MOVQ AX, DI \
	SHLQ $4, DI \
	MOVWLSX bbit_s(R8)(DI*1), R13 \
	IMULL DX, R13 \
	IMULL R13, BX \
	ADDL bbit_qb(R8)(DI*1), BX \
	MOVL BX, bbit_qb(R8)(DI*1) \
	MOVBLZX bbit_c(R8)(DI*1), R13 \
	MOVBLZX (R12)(BX*1), R14 \
	CMPL R13, R14 \
	JEQ takenext \
	MOVB R14, bbit_c(R8)(DI*1) \
	MOVL bbit_pos(R8)(DI*1), R15 \
	TESTL R15, R15 \
	JS takeunavail \
	DECL bclass_cnt(R10)(R13*8) \
	MOVL bclass_cnt(R10)(R13*8), BX \
	ADDL bclass_base(R10)(R13*8), BX \
	MOVL (R9)(BX*4), BX \
	MOVL BX, (R9)(R15*4) \
	SHLQ $4, BX \
	MOVL R15, bbit_pos(R8)(BX*1) \
	MOVL bclass_cnt(R10)(R14*8), BX \
	LEAL 1(BX), R13 \
	MOVL R13, bclass_cnt(R10)(R14*8) \
	ADDL bclass_base(R10)(R14*8), BX \
	MOVL AX, (R9)(BX*4) \
	MOVL BX, bbit_pos(R8)(DI*1) \
	JMP takenext \
takeunavail: \
	DECL (Bucket_tca-Bucket_cla)(R10)(R13*4) \
	INCL (Bucket_tca-Bucket_cla)(R10)(R14*4) \
takenext: \
	DECQ CX \
	JNZ takeloop \
	MOVL R11, BX \
takedone:

// LOGPROD is logProd.mul at both biases: X0 = [z0, z1] into the walkSums
// at off(R11). Clobbers AX, BX, DX, SI, R13, X1.
#define LOGPROD(off) \
	MOVUPD (off+walkSums_m)(R11), X1 \
	MULPD X0, X1 \
	MOVQ X1, AX \
	UNPCKHPD X1, X1 \
	MOVQ X1, BX \
	MOVQ $0x800fffffffffffff, SI \
	MOVQ $0x3fe0000000000000, R13 \
	MOVQ AX, DX \
	SHRQ $52, DX \
	ANDL $0x7ff, DX \
	SUBQ $1022, DX \
	ADDQ DX, (off+walkSums_e)(R11) \
	ANDQ SI, AX \
	ORQ R13, AX \
	MOVQ AX, (off+walkSums_m)(R11) \
	MOVQ BX, DX \
	SHRQ $52, DX \
	ANDL $0x7ff, DX \
	SUBQ $1022, DX \
	ADDQ DX, (off+walkSums_e+8)(R11) \
	ANDQ SI, BX \
	ORQ R13, BX \
	MOVQ BX, (off+walkSums_m+8)(R11)

// NORMS sums X0 = [z0, z1] = sum over classes c in order of
// [f_c w[c][0], f_c w[c][1]] (each lane the same multiply and add as the
// Go loops), two classes at a time and then the last one if their number
// CX is odd. The macro LOAD2 puts the counts f of classes BX, BX+1 as
// int32 in the low quadword of X1, LOAD1 the count of class BX in AX. In: R12 = &w[0],
// R10 = cla, R8 = the record's row, DI the engine. Clobbers AX, BX, DX,
// R12, X1-X4. Its labels are pair, tail and done.
#define NORMS(LOAD2, LOAD1, pair, tail, done) \
	XORPS X0, X0 \
	XORL BX, BX \
	MOVQ CX, DX \
	ANDQ $~1, DX \
	JZ tail \
pair: \
	LOAD2 \
	CVTPL2PD X1, X1 \
	MOVAPD X1, X2 \
	UNPCKLPD X1, X1 \
	UNPCKHPD X2, X2 \
	MOVUPD (R12), X3 \
	MULPD X3, X1 \
	ADDPD X1, X0 \
	MOVUPD 16(R12), X3 \
	MULPD X3, X2 \
	ADDPD X2, X0 \
	ADDQ $32, R12 \
	ADDQ $2, BX \
	CMPQ BX, DX \
	JLT pair \
tail: \
	CMPQ BX, CX \
	JGE done \
	LOAD1 \
	CVTSL2SD AX, X1 \
	UNPCKLPD X1, X1 \
	MOVUPD (R12), X3 \
	MULPD X3, X1 \
	ADDPD X1, X0 \
	JMP done

// Walk's counts: cla[c].cnt (bclass is {base, cnt int32}: see the layout
// check in bucket_amd64.go).
#define LOADCNT2 \
	MOVOU (R10)(BX*8), X1 \
	PSHUFD $0xDD, X1, X1
#define LOADCNT1 \
	MOVL bclass_cnt(R10)(BX*8), AX

// Walk's counts, recording cnt + tca in the row.
#define LOADREC2 \
	LOADCNT2 \
	MOVQ (Bucket_tca-Bucket_cla)(R10)(BX*4), X4 \
	PADDL X1, X4 \
	MOVQ X4, (R8)(BX*4)
#define LOADREC1 \
	LOADCNT1 \
	MOVL (Bucket_tca-Bucket_cla)(R10)(BX*4), DX \
	ADDL AX, DX \
	MOVL DX, (R8)(BX*4)

// The reverse's counts: the row less fca.
#define LOADREV2 \
	MOVQ (R8)(BX*4), X1 \
	MOVQ Bucket_fca(DI)(BX*4), X4 \
	PSUBL X4, X1
#define LOADREV1 \
	MOVL (R8)(BX*4), AX \
	SUBL Bucket_fca(DI)(BX*4), AX

// func takeAsm(bk *Bucket, l int32) int32
TEXT ·takeAsm(SB), NOSPLIT, $0-20
	MOVQ bk+0(FP), DI
	MOVLQSX l+8(FP), AX
	TAKE
	MOVL BX, ret+16(FP)
	RET

// func walkAsm(bk *Bucket, a *walkArgs)
//
// Per step i (the loop of Bucket.walkGo): X0 = [z0, z1] summed over the
// classes in order (writing the record's row i-1 on the way when there is
// one), the logProd products, x = u[i] z_b, the class scan, the member
// pick, the log-weights, remove, TAKE. Across TAKE only the frame and the
// arguments survive: i at i-8(SP), [z0, z1] at z-24(SP).
TEXT ·walkAsm(SB), NOSPLIT, $32-16
	MOVQ $0, i-8(SP)

step:
	MOVQ bk+0(FP), DI
	MOVQ a+8(FP), R11
	MOVQ i-8(SP), R9
	MOVQ Bucket_cl+8(DI), CX
	LEAQ Bucket_cla(DI), R10
	LEAQ Bucket_w(DI), R12
	MOVQ walkArgs_rec(R11), R8
	TESTQ R8, R8
	JZ sum
	TESTQ R9, R9
	JZ sum
	LEAQ -1(R9), AX
	IMULQ CX, AX
	LEAQ (R8)(AX*4), R8

sumrec:
	NORMS(LOADREC2, LOADREC1, sumrecpair, sumrectail, summed)

sum:
	NORMS(LOADCNT2, LOADCNT1, sumpair, sumtail, summed)

summed:
	MOVUPD X0, z-24(SP)

	// logProd.mul at both biases.
	LOGPROD(walkArgs_walkSums)

	// x = u[i] z_b; R12 = &w[0][b].
	MOVQ walkArgs_b(R11), BX
	MOVQ walkArgs_u(R11), AX
	MOVSD (AX)(R9*8), X3
	MULSD z-24(SP)(BX*8), X3
	LEAQ Bucket_w(DI)(BX*8), R12

	// The class scan: SI = c, R13 = the last class with members.
	XORL SI, SI
	MOVQ $-1, R13

scan:
	MOVL bclass_cnt(R10)(SI*8), AX
	TESTL AX, AX
	JZ scannext
	MOVQ SI, R13
	CVTSL2SD AX, X1
	MULSD (R12), X1
	UCOMISD X3, X1
	JA found
	SUBSD X1, X3

scannext:
	ADDQ $16, R12
	INCQ SI
	CMPQ SI, CX
	JLT scan
	MOVQ R13, SI
	XORPS X3, X3

found:
	// The member: i = min(int32(x / w[c][b]), cnt-1), l = mem[base+i].
	LEAQ Bucket_w(DI)(BX*8), R12
	MOVQ SI, R13
	SHLQ $4, R13
	DIVSD (R12)(R13*1), X3
	CVTTSD2SL X3, AX
	MOVL bclass_cnt(R10)(SI*8), BX
	DECL BX
	CMPL AX, BX
	CMOVLGT BX, AX
	ADDL bclass_base(R10)(SI*8), AX
	MOVQ Bucket_mem(DI), R8
	MOVLQSX AX, AX
	MOVL (R8)(AX*4), DX

	// sl += lw[c].
	MOVUPD Bucket_lw(DI)(R13*1), X1
	MOVUPD (walkArgs_walkSums+walkSums_sl)(R11), X2
	ADDPD X1, X2
	MOVUPD X2, (walkArgs_walkSums+walkSums_sl)(R11)

	// remove(l, c).
	DECL bclass_cnt(R10)(SI*8)
	MOVL bclass_cnt(R10)(SI*8), BX
	ADDL bclass_base(R10)(SI*8), BX
	MOVL (R8)(BX*4), BX
	MOVQ Bucket_bits(DI), R9
	MOVQ DX, R13
	SHLQ $4, R13
	MOVLQSX bbit_pos(R9)(R13*1), AX
	MOVL BX, (R8)(AX*4)
	SHLQ $4, BX
	MOVL AX, bbit_pos(R9)(BX*1)
	MOVL $-1, bbit_pos(R9)(R13*1)

	// path[i] = l; flip it.
	MOVQ walkArgs_path(R11), R8
	MOVQ i-8(SP), R9
	MOVL DX, (R8)(R9*4)
	MOVQ DX, AX
	TAKE
	MOVQ a+8(FP), R11
	MOVLQSX BX, BX
	ADDQ BX, walkArgs_dq(R11)
	MOVQ i-8(SP), R9
	INCQ R9
	MOVQ R9, i-8(SP)
	CMPQ R9, walkArgs_k(R11)
	JLT step

	// release: insert the path's bits back in order.
	MOVQ bk+0(FP), DI
	MOVQ walkArgs_path(R11), SI
	MOVQ walkArgs_k(R11), CX
	MOVQ Bucket_bits(DI), R8
	MOVQ Bucket_mem(DI), R9
	LEAQ Bucket_cla(DI), R10

release:
	MOVL (SI), AX
	MOVQ AX, DX
	SHLQ $4, DX
	MOVBLZX bbit_c(R8)(DX*1), BX
	ANDL $(const_maxClasses-1), BX
	MOVL bclass_cnt(R10)(BX*8), R13
	MOVL bclass_base(R10)(BX*8), R14
	ADDL R13, R14
	MOVL AX, (R9)(R14*4)
	MOVL R14, bbit_pos(R8)(DX*1)
	INCL R13
	MOVL R13, bclass_cnt(R10)(BX*8)
	DECL (Bucket_tca-Bucket_cla)(R10)(BX*4)
	ADDQ $4, SI
	DECQ CX
	JNZ release

	// The record's last row: the counts after the walk.
	MOVQ walkArgs_rec(R11), R8
	TESTQ R8, R8
	JZ wdone
	MOVQ Bucket_cl+8(DI), CX
	MOVQ walkArgs_k(R11), AX
	DECQ AX
	IMULQ CX, AX
	LEAQ (R8)(AX*4), R8
	XORL BX, BX

lastrow:
	MOVL bclass_cnt(R10)(BX*8), AX
	MOVL AX, (R8)(BX*4)
	INCQ BX
	CMPQ BX, CX
	JLT lastrow

wdone:
	RET

// func reverseAsm(bk *Bucket, a *revArgs)
//
// Bucket.ReverseLogProbs past its checks: the path bits' overlay, then
// each walk, last first (the loop of Bucket.reverseGo: per flip, last
// first, X0 = [z0, z1] from the record's row less fca, the logProd
// products, the log-weights, and the bit's un-flip on the overlay, moving
// the counts of its used neighbours), then the overlay's marks cleared.
// Across steps only the frame and the arguments survive: the walk wk at
// wk-8(SP), the flip m at m-16(SP), the walk's first flip at lo-24(SP),
// its sums at s-32(SP).
TEXT ·reverseAsm(SB), NOSPLIT, $32-16
	MOVQ bk+0(FP), DI
	MOVQ a+8(FP), R11

	// The overlay: each path bit's q and spin, once.
	MOVQ revArgs_path(R11), SI
	MOVQ revArgs_n(R11), CX
	MOVQ Bucket_bits(DI), R8
	MOVQ Bucket_ovl(DI), R13
	XORL BX, BX

ovset:
	MOVL (SI), AX
	SHLQ $4, AX
	ADDQ R8, AX
	MOVL bbit_ov(AX), DX
	TESTL DX, DX
	JNS ovnext
	MOVL BX, bbit_ov(AX)
	LEAQ (BX)(BX*2), DX
	LEAQ (R13)(DX*4), DX
	MOVL bbit_qb(AX), R14
	MOVL R14, bover_qb(DX)
	MOVWLSX bbit_s(AX), R14
	MOVL R14, bover_s(DX)
	MOVB $0, bover_used(DX)
	INCL BX

ovnext:
	ADDQ $4, SI
	DECQ CX
	JNZ ovset

	MOVQ revArgs_nw(R11), AX
	DECQ AX
	MOVQ AX, wk-8(SP)

walk:
	MOVQ bk+0(FP), DI
	MOVQ a+8(FP), R11
	MOVQ wk-8(SP), AX
	MOVQ revArgs_bounds(R11), SI
	MOVQ (SI)(AX*8), R9
	MOVQ R9, lo-24(SP)
	MOVQ 8(SI)(AX*8), R10
	MOVQ revArgs_sums(R11), R12
	IMUL3Q $walkSums__size, AX, AX
	ADDQ AX, R12
	MOVQ R12, s-32(SP)
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, walkSums_m(R12)
	MOVQ AX, (walkSums_m+8)(R12)
	MOVQ $0, walkSums_e(R12)
	MOVQ $0, (walkSums_e+8)(R12)
	MOVQ $0, walkSums_sl(R12)
	MOVQ $0, (walkSums_sl+8)(R12)
	MOVQ Bucket_cl+8(DI), CX
	XORL BX, BX

clear:
	MOVL $0, Bucket_fca(DI)(BX*4)
	INCQ BX
	CMPQ BX, CX
	JLT clear

	DECQ R10
	MOVQ R10, m-16(SP)
	CMPQ R10, R9
	JLT unused

rstep:
	MOVQ bk+0(FP), DI
	MOVQ s-32(SP), R11
	MOVQ m-16(SP), R9
	MOVQ Bucket_cl+8(DI), CX
	MOVQ R9, AX
	IMULQ CX, AX
	MOVQ Bucket_rec(DI), R8
	LEAQ (R8)(AX*4), R8
	LEAQ Bucket_w(DI), R12

	NORMS(LOADREV2, LOADREV1, rsumpair, rsumtail, rsummed)

rsummed:
	LOGPROD(0)

	// l = path[m], SI = its overlay, sl += lw[its class].
	MOVQ a+8(FP), AX
	MOVQ revArgs_path(AX), AX
	MOVLQSX (AX)(R9*4), AX
	MOVQ Bucket_bits(DI), R8
	MOVQ AX, BX
	SHLQ $4, BX
	MOVLQSX bbit_ov(R8)(BX*1), BX
	LEAQ (BX)(BX*2), BX
	MOVQ Bucket_ovl(DI), R13
	LEAQ (R13)(BX*4), SI
	MOVQ Bucket_cls(DI), R12
	MOVL bover_qb(SI), BX
	MOVBLZX (R12)(BX*1), DX
	ANDL $(const_maxClasses-1), DX
	SHLQ $4, DX
	MOVUPD Bucket_lw(DI)(DX*1), X1
	MOVUPD walkSums_sl(R11), X2
	ADDPD X1, X2
	MOVUPD X2, walkSums_sl(R11)

	// Un-flip l; DX = its new spin.
	MOVL bover_s(SI), DX
	NEGL DX
	MOVL DX, bover_s(SI)
	MOVL Bucket_r(DI), R15
	SHLL $1, R15
	SUBL BX, R15
	MOVL R15, bover_qb(SI)

	// Its neighbours on the path: R15 the edge, CX the edges left.
	MOVQ Bucket_start(DI), R15
	MOVLQSX (R15)(AX*4), R14
	MOVLQSX 4(R15)(AX*4), CX
	SUBQ R14, CX
	JLE rnbdone
	MOVQ Bucket_edges(DI), R15
	LEAQ (R15)(R14*8), R15

rnb:
	MOVL 0(R15), AX
	SHLQ $4, AX
	MOVLQSX bbit_ov(R8)(AX*1), AX
	TESTQ AX, AX
	JS rnbnext
	LEAQ (AX)(AX*2), AX
	LEAQ (R13)(AX*4), AX
	MOVL bover_qb(AX), BX
	MOVL 4(R15), R14
	IMULL DX, R14
	IMULL bover_s(AX), R14
	ADDL BX, R14
	MOVL R14, bover_qb(AX)
	CMPB bover_used(AX), $0
	JEQ rnbnext
	MOVBLZX (R12)(BX*1), BX
	ANDL $(const_maxClasses-1), BX
	DECL Bucket_fca(DI)(BX*4)
	MOVBLZX (R12)(R14*1), R14
	ANDL $(const_maxClasses-1), R14
	INCL Bucket_fca(DI)(R14*4)

rnbnext:
	ADDQ $8, R15
	DECQ CX
	JNZ rnb

rnbdone:
	MOVB $1, bover_used(SI)
	MOVL bover_qb(SI), BX
	MOVBLZX (R12)(BX*1), BX
	ANDL $(const_maxClasses-1), BX
	INCL Bucket_fca(DI)(BX*4)
	MOVQ m-16(SP), R9
	DECQ R9
	MOVQ R9, m-16(SP)
	CMPQ R9, lo-24(SP)
	JGE rstep

unused:
	// The walk's bits are available again to the walk before it.
	MOVQ bk+0(FP), DI
	MOVQ a+8(FP), R11
	MOVQ wk-8(SP), AX
	MOVQ revArgs_bounds(R11), SI
	MOVQ (SI)(AX*8), R9
	MOVQ 8(SI)(AX*8), CX
	SUBQ R9, CX
	JLE nextwalk
	MOVQ revArgs_path(R11), SI
	LEAQ (SI)(R9*4), SI
	MOVQ Bucket_bits(DI), R8
	MOVQ Bucket_ovl(DI), R13

unuse:
	MOVL (SI), AX
	SHLQ $4, AX
	MOVLQSX bbit_ov(R8)(AX*1), AX
	LEAQ (AX)(AX*2), AX
	MOVB $0, bover_used(R13)(AX*4)
	ADDQ $4, SI
	DECQ CX
	JNZ unuse

nextwalk:
	MOVQ wk-8(SP), AX
	DECQ AX
	MOVQ AX, wk-8(SP)
	JGE walk

	// Clear the overlay's marks.
	MOVQ revArgs_path(R11), SI
	MOVQ revArgs_n(R11), CX
	MOVQ Bucket_bits(DI), R8

reset:
	MOVL (SI), AX
	SHLQ $4, AX
	MOVL $-1, bbit_ov(R8)(AX*1)
	ADDQ $4, SI
	DECQ CX
	JNZ reset
	RET
