#include "textflag.h"

// The two functions below share their constants, their test of a block
// and their ending, written once here.

// SPECIAL_CONSTS sets Y1 to '"', Y2 to '\\' and Y3 to 0x1f in every byte,
// Y6 to zero and Y7 (the high bits of the blocks passed, OR-ed) to zero.
// The moves into X registers are VEX-encoded: a legacy MOVD before the
// 256-bit code made every call many times slower (the penalty of a
// transition between SSE and AVX code).
#define SPECIAL_CONSTS \
	MOVL $0x22, DX \
	VMOVD DX, X1 \
	VPBROADCASTB X1, Y1 \
	MOVL $0x5c, DX \
	VMOVD DX, X2 \
	VPBROADCASTB X2, Y2 \
	MOVL $0x1f, DX \
	VMOVD DX, X3 \
	VPBROADCASTB X3, Y3 \
	VPXOR Y6, Y6, Y6 \
	VPXOR Y7, Y7, Y7

// SPECIAL_MASK sets DX to the mask of the bytes of Y0 that are '"', '\\'
// or below 0x20 (x - 0x1f, saturated, is zero for those), and tests it.
#define SPECIAL_MASK \
	VPCMPEQB Y0, Y1, Y4 \
	VPCMPEQB Y0, Y2, Y5 \
	VPOR Y4, Y5, Y4 \
	VPSUBUSB Y3, Y0, Y5 \
	VPCMPEQB Y6, Y5, Y5 \
	VPOR Y4, Y5, Y4 \
	VPMOVMSKB Y4, DX \
	TESTL DX, DX

// SPECIAL_FOUND adds to AX the index in the block Y0 of the lowest byte
// of the mask DX, and sets R9 to the high bits of the bytes before it and
// of the blocks passed (not zero: a byte of 0x80 or more was passed).
#define SPECIAL_FOUND \
	TZCNTL DX, DX \
	VPMOVMSKB Y0, R9 \
	BZHIL DX, R9, R9 \
	ADDQ DX, AX \
	VPMOVMSKB Y7, R10 \
	ORL R10, R9

// func indexSpecialAVX2(data []byte) (i int, high bool)
//
// Scans data 32 bytes at a time, whole blocks only, for the first byte
// that is '"', '\\' or below 0x20. i is that byte's index, or
// len(data)&^31 when the whole blocks hold none; high reports whether a
// byte of 0x80 or more lies in data[:i]. Needs AVX2 and BMI2 (the caller
// checks, special_amd64.go).
TEXT ·indexSpecialAVX2(SB), NOSPLIT, $0-33
	MOVQ data_base+0(FP), SI
	MOVQ data_len+8(FP), CX
	ANDQ $~31, CX
	XORQ AX, AX
	SPECIAL_CONSTS

loop:
	CMPQ AX, CX
	JAE  none
	VMOVDQU (SI)(AX*1), Y0
	SPECIAL_MASK
	JNZ  found
	VPOR Y0, Y7, Y7
	ADDQ $32, AX
	JMP  loop

found:
	SPECIAL_FOUND
	JMP done

none:
	VPMOVMSKB Y7, R9

done:
	TESTL R9, R9
	SETNE high+32(FP)
	MOVQ  AX, i+24(FP)
	VZEROUPPER
	RET

// func copyPlainAVX2(dst, src []byte) (n int, high bool, found bool)
//
// Copies src to dst 32 bytes at a time while both hold a whole block,
// up to the first byte of src that is '"', '\\' or below 0x20 (found):
// n is that byte's index (the block holding it is copied whole, dst[:n]
// is the run before it). When no block held one, n is the bytes copied
// (a multiple of 32) and found is false. high reports whether a byte of
// 0x80 or more lies in src[:n]. Needs AVX2 and BMI2.
TEXT ·copyPlainAVX2(SB), NOSPLIT, $0-58
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), BX
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	CMPQ BX, CX
	CMOVQLT BX, CX // the shorter of the two
	ANDQ $~31, CX
	XORQ AX, AX
	SPECIAL_CONSTS

copyloop:
	CMPQ AX, CX
	JAE  copynone
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU Y0, (DI)(AX*1)
	SPECIAL_MASK
	JNZ  copyfound
	VPOR Y0, Y7, Y7
	ADDQ $32, AX
	JMP  copyloop

copyfound:
	SPECIAL_FOUND
	MOVB $1, found+57(FP)
	JMP  copydone

copynone:
	VPMOVMSKB Y7, R9
	MOVB $0, found+57(FP)

copydone:
	TESTL R9, R9
	SETNE high+56(FP)
	MOVQ  AX, n+48(FP)
	VZEROUPPER
	RET
