//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// The Bucket kernels. Each does the work of its Go counterpart in walk.go
// (the reference) with the same integer updates in the same order and the
// same floating-point operations in the same order, so that both give the
// same bits. Indices are trusted: the Go callers have checked them or took
// them from the engine's own tables. Every entry of cls (and so every
// bbit.c) is below maxClasses by construction (classes.derive), so class
// indices need no mask.

// bkconst: 1022 twice, the mantissa mask twice, 0.5's bits twice
// (walkSums.mul on both lanes), 2^-53, and 1 twice (0.5 and 1 are
// newWalkSums).
DATA bkconst<>+0(SB)/8, $1022
DATA bkconst<>+8(SB)/8, $1022
DATA bkconst<>+16(SB)/8, $0x000fffffffffffff
DATA bkconst<>+24(SB)/8, $0x000fffffffffffff
DATA bkconst<>+32(SB)/8, $0x3fe0000000000000
DATA bkconst<>+40(SB)/8, $0x3fe0000000000000
DATA bkconst<>+48(SB)/8, $0x3ca0000000000000
DATA bkconst<>+56(SB)/8, $1
DATA bkconst<>+64(SB)/8, $1
GLOBL bkconst<>(SB), RODATA|NOPTR, $72

// TAKE is take: it flips bit AX (already removed from its class) of the
// engine at DI and moves its neighbours to their new classes (an
// unavailable one only changes the counts tca). JLOAD and JSCALE load one
// coupling 2J/g of the array at JQ(DI). Out: q-8(SP) = dE/(2g). Clobbers
// every general register but SP and BP. Its labels are take*: one use per
// function.
//
// In the neighbour loop: SI is &adj[hi] and R15 &jq[hi], CX the edge
// index from -(row length) up to 0, DX the new spin, R8 bits, R9 mem, R10
// cla (and tca beyond it), R12 cls, AX the neighbour j, DI 16 j (bits[j]
// is at (R8)(DI*1)), R13 its old class, R14 its new one, R11 its
// position.
#define TAKE(JLOAD, JSCALE, JQ) \
	MOVQ Bucket_bits(DI), R8 \
	MOVQ Bucket_cls(DI), R12 \
	MOVQ AX, SI \
	SHLQ $4, SI \
	ADDQ R8, SI \
	MOVL Bucket_r(DI), CX \
	MOVL bbit_qb(SI), BX \
	SUBL CX, BX \
	MOVQ BX, q-8(SP) \
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
	INCL Bucket_tca(DI)(R14*4) \
	MOVLQSX Bucket_deg(DI), CX \
	TESTQ CX, CX \
	JZ takecsr \
	MOVQ AX, R14 \
	IMULQ CX, R14 \
	JMP takerow \
takecsr: \
	MOVQ Bucket_start(DI), R13 \
	MOVLQSX (R13)(AX*4), R14 \
	MOVLQSX 4(R13)(AX*4), CX \
	SUBQ R14, CX \
	JLE takedone \
takerow: \
	ADDQ CX, R14 \
	MOVQ Bucket_adj(DI), SI \
	LEAQ (SI)(R14*4), SI \
	MOVQ JQ(DI), R15 \
	LEAQ (R15)(R14*JSCALE), R15 \
	NEGQ CX \
	MOVQ Bucket_mem(DI), R9 \
	LEAQ Bucket_cla(DI), R10 \
takeloop: \
	MOVL (SI)(CX*4), AX \
	JLOAD (R15)(CX*JSCALE), BX \
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
	MOVL bbit_pos(R8)(DI*1), R11 \
	TESTL R11, R11 \
	JS takeunavail \
	DECL bclass_cnt(R10)(R13*8) \
	MOVL bclass_cnt(R10)(R13*8), BX \
	ADDL bclass_base(R10)(R13*8), BX \
	MOVL (R9)(BX*4), BX \
	MOVL BX, (R9)(R11*4) \
	SHLQ $4, BX \
	MOVL R11, bbit_pos(R8)(BX*1) \
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
	INCQ CX \
	JNZ takeloop \
takedone:

// WALK is the loop of walk from flip a.t to a.k, then the release of the
// path (last bit first, as release) and the record's last row; or it
// stops at the flip whose member draw has every field rejected by pick
// (a.t and a.n say which; the Go caller draws afresh and calls again).
// Per flip: the prefix sums of count_c [w_c(L), w_c(H)] in X2 and pre
// (with the record's row), the class (SBB counts the prefixes at or below
// x: no branch on the data), the member (pick's fields: no divide), the
// sums (X6 mantissas, X7 exponents, X8 log-weights), the bit's removal
// from its class, its path slot, and TAKE. Between flips only a.t, the
// sums in X6-X8 and the constants in X9-X12 live in registers.
#define WALK(JLOAD, JSCALE, JQ) \
	MOVQ a+8(FP), SI \
	MOVUPD (walkArgs_ws+walkSums_m)(SI), X6 \
	MOVUPD (walkArgs_ws+walkSums_e)(SI), X7 \
	MOVUPD (walkArgs_ws+walkSums_sl)(SI), X8 \
	MOVUPD bkconst<>+0(SB), X9 \
	MOVUPD bkconst<>+16(SB), X10 \
	MOVUPD bkconst<>+32(SB), X11 \
	MOVSD bkconst<>+48(SB), X12 \
walkstep: \
	MOVQ bk+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ walkArgs_t(SI), R8 \
	CMPQ R8, walkArgs_k(SI) \
	JGE walkend \
	MOVQ (Bucket_cl+8)(DI), CX \
	LEAQ Bucket_cla(DI), R10 \
	LEAQ Bucket_w(DI), R11 \
	LEAQ Bucket_pre(DI), R12 \
	XORPS X2, X2 \
	XORL AX, AX \
	MOVQ walkArgs_rec(SI), R13 \
	TESTQ R13, R13 \
	JZ walkzplain \
	TESTQ R8, R8 \
	JZ walkzplain \
	LEAQ -1(R8), BX \
	IMULQ CX, BX \
	LEAQ (R13)(BX*4), R13 \
walkzrec: \
	MOVL bclass_cnt(R10)(AX*8), BX \
	MOVL Bucket_tca(DI)(AX*4), DX \
	ADDL BX, DX \
	MOVL DX, (R13)(AX*4) \
	CVTSL2SD BX, X0 \
	UNPCKLPD X0, X0 \
	MOVUPD (R11), X1 \
	MULPD X1, X0 \
	ADDPD X0, X2 \
	MOVUPD X2, (R12) \
	ADDQ $16, R11 \
	ADDQ $16, R12 \
	INCQ AX \
	CMPQ AX, CX \
	JLT walkzrec \
	JMP walkclass \
walkzplain: \
	MOVL bclass_cnt(R10)(AX*8), BX \
	CVTSL2SD BX, X0 \
	UNPCKLPD X0, X0 \
	MOVUPD (R11), X1 \
	MULPD X1, X0 \
	ADDPD X0, X2 \
	MOVUPD X2, (R12) \
	ADDQ $16, R11 \
	ADDQ $16, R12 \
	INCQ AX \
	CMPQ AX, CX \
	JLT walkzplain \
walkclass: \
	MOVQ walkArgs_b(SI), BX \
	MOVQ walkArgs_u(SI), R9 \
	MOVQ R8, DX \
	SHLQ $4, DX \
	ADDQ DX, R9 \
	MOVQ (R9), DX \
	SHRQ $11, DX \
	CVTSQ2SD DX, X3 \
	MULSD X12, X3 \
	MULSD -16(R12)(BX*8), X3 \
	LEAQ Bucket_pre(DI)(BX*8), R12 \
	XORL AX, AX \
	MOVQ CX, DX \
walkcount: \
	UCOMISD (R12), X3 \
	SBBQ $-1, AX \
	ADDQ $16, R12 \
	DECQ DX \
	JNZ walkcount \
	CMPQ AX, CX \
	JGE walklast \
walkpick: \
	MOVL bclass_cnt(R10)(AX*8), R11 \
	MOVQ 8(R9), DX \
	LEAL -1(R11), CX \
	XORL R14, R14 \
	TESTL CX, CX \
	JZ walkgot \
	BSRL CX, CX \
	INCL CX \
	MOVQ $1, BX \
	SHLQ CX, BX \
	DECQ BX \
	MOVL $64, R13 \
walkfield: \
	SUBL CX, R13 \
	JS walkbail \
	MOVQ DX, R14 \
	ANDQ BX, R14 \
	CMPQ R14, R11 \
	JCS walkgot \
	SHRQ CX, DX \
	JMP walkfield \
walklast: \
	LEAQ -1(CX), AX \
walklastloop: \
	TESTQ AX, AX \
	JZ walkpick \
	CMPL bclass_cnt(R10)(AX*8), $0 \
	JNE walkpick \
	DECQ AX \
	JMP walklastloop \
walkbail: \
	MOVQ R11, walkArgs_n(SI) \
	JMP walksums \
walkgot: \
	MOVL bclass_base(R10)(AX*8), R12 \
	ADDL R14, R12 \
	MOVQ Bucket_mem(DI), R13 \
	MOVL (R13)(R12*4), R15 \
	MULPD X2, X6 \
	MOVAPD X6, X4 \
	PSRLQ $52, X4 \
	PADDQ X4, X7 \
	PSUBQ X9, X7 \
	ANDPD X10, X6 \
	ORPD X11, X6 \
	MOVQ AX, BX \
	SHLQ $4, BX \
	MOVUPD Bucket_lw(DI)(BX*1), X0 \
	ADDPD X0, X8 \
	DECL bclass_cnt(R10)(AX*8) \
	MOVL bclass_cnt(R10)(AX*8), BX \
	ADDL bclass_base(R10)(AX*8), BX \
	MOVL (R13)(BX*4), BX \
	MOVL BX, (R13)(R12*4) \
	SHLQ $4, BX \
	MOVQ Bucket_bits(DI), R14 \
	MOVL R12, bbit_pos(R14)(BX*1) \
	MOVQ R15, BX \
	SHLQ $4, BX \
	MOVL $-1, bbit_pos(R14)(BX*1) \
	MOVQ walkArgs_path(SI), BX \
	MOVL R15, (BX)(R8*4) \
	MOVQ R15, AX \
	TAKE(JLOAD, JSCALE, JQ) \
	MOVQ a+8(FP), SI \
	MOVLQSX q-8(SP), BX \
	ADDQ BX, walkArgs_dq(SI) \
	INCQ walkArgs_t(SI) \
	JMP walkstep \
walkend: \
	MOVQ walkArgs_path(SI), R9 \
	MOVQ walkArgs_k(SI), CX \
	MOVQ Bucket_bits(DI), R8 \
	MOVQ Bucket_mem(DI), R11 \
	LEAQ Bucket_cla(DI), R10 \
walkrel: \
	DECQ CX \
	JS walkrow \
	MOVL (R9)(CX*4), AX \
	MOVQ AX, DX \
	SHLQ $4, DX \
	MOVBLZX bbit_c(R8)(DX*1), BX \
	MOVL bclass_cnt(R10)(BX*8), R12 \
	LEAL 1(R12), R13 \
	MOVL R13, bclass_cnt(R10)(BX*8) \
	ADDL bclass_base(R10)(BX*8), R12 \
	MOVL AX, (R11)(R12*4) \
	MOVL R12, bbit_pos(R8)(DX*1) \
	DECL Bucket_tca(DI)(BX*4) \
	JMP walkrel \
walkrow: \
	MOVQ walkArgs_rec(SI), R13 \
	TESTQ R13, R13 \
	JZ walksums \
	MOVQ (Bucket_cl+8)(DI), CX \
	MOVQ walkArgs_k(SI), BX \
	DECQ BX \
	IMULQ CX, BX \
	LEAQ (R13)(BX*4), R13 \
walkrowc: \
	DECQ CX \
	JS walksums \
	MOVL bclass_cnt(R10)(CX*8), BX \
	MOVL BX, (R13)(CX*4) \
	JMP walkrowc \
walksums: \
	MOVQ a+8(FP), SI \
	MOVUPD X6, (walkArgs_ws+walkSums_m)(SI) \
	MOVUPD X7, (walkArgs_ws+walkSums_e)(SI) \
	MOVUPD X8, (walkArgs_ws+walkSums_sl)(SI)

// func walkAsm8(bk *Bucket, a *walkArgs)
TEXT ·walkAsm8(SB), NOSPLIT, $16-16
	WALK(MOVBLSX, 1, Bucket_edges)
	RET

// func walkAsm32(bk *Bucket, a *walkArgs)
TEXT ·walkAsm32(SB), NOSPLIT, $16-16
	WALK(MOVL, 4, Bucket_edges32)
	RET


// REVERSEALL is ReverseLogProbs after its checks: it sets up the overlay
// (ovl, 12-byte entries, indexed by bits[l].ov) for the move's path, scores
// each walk's reverse, last walk first, into sums[wk] as reverse does (fca
// cleared first), clears the used flags of the walk's bits after it, and
// resets every ov to -1. Per flip of a reverse walk, last first: Z from
// the record less fca (X2), the sums (X6-X8, as WALK), the bit's
// log-weight, its un-flip, then its path neighbours (ov >= 0): their q on
// the overlay and, for those the reverse walk has already flipped, fca. In
// the neighbour loop: SI &adj[hi], R15 &jq[hi], CX the edge index from
// -(row length) up to 0, DX the bit's new spin, R9 bits, R11 ovl, R12 cls,
// DI the engine; R8 is the flip and R10 its overlay entry. The frame holds
// the walk wk and its bits' and record rows' addresses.
#define REVERSEALL(JLOAD, JSCALE, JQ) \
	MOVQ bk+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVUPD bkconst<>+0(SB), X9 \
	MOVUPD bkconst<>+16(SB), X10 \
	MOVUPD bkconst<>+32(SB), X11 \
	MOVQ revAllArgs_path(SI), R9 \
	MOVQ revAllArgs_n(SI), CX \
	MOVQ Bucket_bits(DI), R8 \
	MOVQ Bucket_ovl(DI), R11 \
	XORL R10, R10 \
	XORL AX, AX \
revinit: \
	CMPQ AX, CX \
	JGE revinitdone \
	MOVLQSX (R9)(AX*4), BX \
	SHLQ $4, BX \
	MOVL bbit_ov(R8)(BX*1), DX \
	TESTL DX, DX \
	JNS revinitnext \
	MOVL R10, bbit_ov(R8)(BX*1) \
	LEAQ (R10)(R10*2), DX \
	LEAQ (R11)(DX*4), DX \
	MOVL bbit_qb(R8)(BX*1), R12 \
	MOVL R12, bover_qb(DX) \
	MOVWLSX bbit_s(R8)(BX*1), R12 \
	MOVL R12, bover_s(DX) \
	MOVB $0, bover_used(DX) \
	INCQ R10 \
revinitnext: \
	INCQ AX \
	JMP revinit \
revinitdone: \
	MOVQ revAllArgs_nw(SI), AX \
	MOVQ AX, wk-8(SP) \
revwalk: \
	MOVQ bk+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ wk-8(SP), AX \
	DECQ AX \
	JS revalldone \
	MOVQ AX, wk-8(SP) \
	MOVQ (Bucket_cl+8)(DI), CX \
revclr: \
	DECQ CX \
	JS revclrdone \
	MOVL $0, Bucket_fca(DI)(CX*4) \
	JMP revclr \
revclrdone: \
	MOVQ revAllArgs_bounds(SI), BX \
	MOVQ (BX)(AX*8), R13 \
	MOVQ 8(BX)(AX*8), R8 \
	SUBQ R13, R8 \
	MOVQ revAllArgs_path(SI), BX \
	LEAQ (BX)(R13*4), BX \
	MOVQ BX, seg-16(SP) \
	IMULQ (Bucket_cl+8)(DI), R13 \
	MOVQ Bucket_rec(DI), BX \
	LEAQ (BX)(R13*4), BX \
	MOVQ BX, rec-24(SP) \
	MOVQ R8, len-32(SP) \
	MOVAPD X11, X6 \
	MOVUPD bkconst<>+56(SB), X7 \
	XORPS X8, X8 \
revstep: \
	DECQ R8 \
	JS revwalkend \
	MOVQ (Bucket_cl+8)(DI), CX \
	MOVQ R8, BX \
	IMULQ CX, BX \
	MOVQ rec-24(SP), R13 \
	LEAQ (R13)(BX*4), R13 \
	LEAQ Bucket_w(DI), R11 \
	XORPS X2, X2 \
	XORL AX, AX \
revz: \
	MOVL (R13)(AX*4), BX \
	SUBL Bucket_fca(DI)(AX*4), BX \
	CVTSL2SD BX, X0 \
	UNPCKLPD X0, X0 \
	MOVUPD (R11), X1 \
	MULPD X1, X0 \
	ADDPD X0, X2 \
	ADDQ $16, R11 \
	INCQ AX \
	CMPQ AX, CX \
	JLT revz \
	MULPD X2, X6 \
	MOVAPD X6, X4 \
	PSRLQ $52, X4 \
	PADDQ X4, X7 \
	PSUBQ X9, X7 \
	ANDPD X10, X6 \
	ORPD X11, X6 \
	MOVQ seg-16(SP), BX \
	MOVLQSX (BX)(R8*4), AX \
	MOVQ Bucket_bits(DI), R9 \
	MOVQ AX, BX \
	SHLQ $4, BX \
	MOVLQSX bbit_ov(R9)(BX*1), BX \
	LEAQ (BX)(BX*2), BX \
	MOVQ Bucket_ovl(DI), R11 \
	LEAQ (R11)(BX*4), R10 \
	MOVQ Bucket_cls(DI), R12 \
	MOVL bover_qb(R10), CX \
	MOVBLZX (R12)(CX*1), BX \
	SHLQ $4, BX \
	MOVUPD Bucket_lw(DI)(BX*1), X0 \
	ADDPD X0, X8 \
	MOVL bover_s(R10), DX \
	NEGL DX \
	MOVL DX, bover_s(R10) \
	MOVL Bucket_r(DI), BX \
	SHLL $1, BX \
	SUBL CX, BX \
	MOVL BX, bover_qb(R10) \
	MOVLQSX Bucket_deg(DI), CX \
	TESTQ CX, CX \
	JZ revcsr \
	MOVQ AX, R14 \
	IMULQ CX, R14 \
	JMP revrow \
revcsr: \
	MOVQ Bucket_start(DI), R13 \
	MOVLQSX (R13)(AX*4), R14 \
	MOVLQSX 4(R13)(AX*4), CX \
	SUBQ R14, CX \
	JLE revself \
revrow: \
	ADDQ CX, R14 \
	MOVQ Bucket_adj(DI), SI \
	LEAQ (SI)(R14*4), SI \
	MOVQ JQ(DI), R15 \
	LEAQ (R15)(R14*JSCALE), R15 \
	NEGQ CX \
revloop: \
	MOVL (SI)(CX*4), AX \
	SHLQ $4, AX \
	MOVLQSX bbit_ov(R9)(AX*1), AX \
	TESTQ AX, AX \
	JS revnext \
	LEAQ (AX)(AX*2), AX \
	LEAQ (R11)(AX*4), AX \
	JLOAD (R15)(CX*JSCALE), BX \
	IMULL DX, BX \
	IMULL bover_s(AX), BX \
	MOVL bover_qb(AX), R13 \
	ADDL R13, BX \
	MOVL BX, bover_qb(AX) \
	CMPB bover_used(AX), $0 \
	JEQ revnext \
	MOVBLZX (R12)(R13*1), R13 \
	DECL Bucket_fca(DI)(R13*4) \
	MOVBLZX (R12)(BX*1), BX \
	INCL Bucket_fca(DI)(BX*4) \
revnext: \
	INCQ CX \
	JNZ revloop \
revself: \
	MOVB $1, bover_used(R10) \
	MOVL bover_qb(R10), BX \
	MOVBLZX (R12)(BX*1), BX \
	INCL Bucket_fca(DI)(BX*4) \
	JMP revstep \
revwalkend: \
	MOVQ a+8(FP), SI \
	MOVQ revAllArgs_sums(SI), BX \
	MOVQ wk-8(SP), AX \
	IMULQ $walkSums__size, AX \
	ADDQ AX, BX \
	MOVUPD X6, walkSums_m(BX) \
	MOVUPD X7, walkSums_e(BX) \
	MOVUPD X8, walkSums_sl(BX) \
	MOVQ seg-16(SP), SI \
	MOVQ len-32(SP), CX \
	MOVQ Bucket_bits(DI), R9 \
	MOVQ Bucket_ovl(DI), R11 \
revused: \
	DECQ CX \
	JS revwalk \
	MOVLQSX (SI)(CX*4), AX \
	SHLQ $4, AX \
	MOVLQSX bbit_ov(R9)(AX*1), AX \
	LEAQ (AX)(AX*2), AX \
	MOVB $0, bover_used(R11)(AX*4) \
	JMP revused \
revalldone: \
	MOVQ revAllArgs_path(SI), R9 \
	MOVQ revAllArgs_n(SI), CX \
	MOVQ Bucket_bits(DI), R8 \
revreset: \
	DECQ CX \
	JS revret \
	MOVLQSX (R9)(CX*4), AX \
	SHLQ $4, AX \
	MOVL $-1, bbit_ov(R8)(AX*1) \
	JMP revreset \
revret:

// func reverseAsm8(bk *Bucket, a *revAllArgs)
TEXT ·reverseAsm8(SB), NOSPLIT, $32-16
	REVERSEALL(MOVBLSX, 1, Bucket_edges)
	RET

// func reverseAsm32(bk *Bucket, a *revAllArgs)
TEXT ·reverseAsm32(SB), NOSPLIT, $32-16
	REVERSEALL(MOVL, 4, Bucket_edges32)
	RET

// func prefetchAll(p *uintptr, n int)
TEXT ·prefetchAll(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE pfdone
pfloop:
	MOVQ (SI), AX
	PREFETCHT0 (AX)
	ADDQ $8, SI
	DECQ CX
	JNZ pfloop
pfdone:
	RET

// func takeAsm8(bk *Bucket, l int32) int32
TEXT ·takeAsm8(SB), NOSPLIT, $16-20
	MOVQ bk+0(FP), DI
	MOVLQSX l+8(FP), AX
	TAKE(MOVBLSX, 1, Bucket_edges)
	MOVQ q-8(SP), BX
	MOVL BX, ret+16(FP)
	RET

// func takeAsm32(bk *Bucket, l int32) int32
TEXT ·takeAsm32(SB), NOSPLIT, $16-20
	MOVQ bk+0(FP), DI
	MOVLQSX l+8(FP), AX
	TAKE(MOVL, 4, Bucket_edges32)
	MOVQ q-8(SP), BX
	MOVL BX, ret+16(FP)
	RET

// func pcgFill(st *[2]uint64, u *uint64, n int)
//
// pcgFill is n draws of math/rand/v2's PCG from the state st = {hi, lo}
// into u[:n], and the state after them into st: the 128-bit LCG step
// state = state * mul + inc and the DXSM output, as (*rand.PCG).Uint64,
// with the state and the constants in registers.
TEXT ·pcgFill(SB), NOSPLIT, $0-24
	MOVQ st+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ 0(DI), R8
	MOVQ 8(DI), R9
	MOVQ $4865540595714422341, R10
	MOVQ $2549297995355413924, R11
	MOVQ $1442695040888963407, R12
	MOVQ $6364136223846793005, R13
	MOVQ $0xda942042e4dd58b5, R14
	TESTQ CX, CX
	JLE pcgdone
pcgloop:
	MOVQ R9, AX
	MULQ R10
	IMULQ R10, R8
	IMULQ R11, R9
	ADDQ R9, R8
	ADDQ DX, R8
	ADDQ R12, AX
	ADCQ R13, R8
	MOVQ AX, R9
	MOVQ R8, BX
	MOVQ R8, DX
	SHRQ $32, DX
	XORQ DX, BX
	IMULQ R14, BX
	MOVQ BX, DX
	SHRQ $48, DX
	XORQ DX, BX
	MOVQ R9, DX
	ORQ $1, DX
	IMULQ DX, BX
	MOVQ BX, (SI)
	ADDQ $8, SI
	DECQ CX
	JNZ pcgloop
pcgdone:
	MOVQ R8, 0(DI)
	MOVQ R9, 8(DI)
	RET
