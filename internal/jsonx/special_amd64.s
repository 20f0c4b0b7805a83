#include "textflag.h"

// The functions below share their constants and their test of a block,
// written once here.

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

// SPECIAL_AT sets DX to the index in the block Y0 of the lowest byte of
// the mask DX, R9 to the high bits of the block's bytes before it (not
// zero: one of them is 0x80 or more), and adds DX to AX.
#define SPECIAL_AT \
	TZCNTL DX, DX \
	VPMOVMSKB Y0, R9 \
	BZHIL DX, R9, R9 \
	ADDQ DX, AX

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
	SPECIAL_AT
	VPMOVMSKB Y7, R10 // and the blocks passed
	ORL R10, R9
	JMP done

none:
	VPMOVMSKB Y7, R9

done:
	TESTL R9, R9
	SETNE high+32(FP)
	MOVQ  AX, i+24(FP)
	VZEROUPPER
	RET

// func unescapeAVX2(dst, src []byte) (n, m int, high, stopped bool)
//
// Decodes src into dst 32 bytes at a time while src holds a whole block
// past the bytes read and dst has room for one past the bytes written:
// each block is stored whole, and a run of plain bytes ends at the first
// byte of src that is '"', '\\' or below 0x20. An escape that stands for
// one byte (unescapes: \" \\ \/ \b \f \n \r \t) is written as that byte
// and the decoding goes on after it; anything else stops it (stopped) at
// that byte, for the caller to read: '"', a control byte, \u, another
// escape, or a backslash that ends src. n is the bytes written to dst,
// m the bytes of src read; when not stopped, the blocks ran out (src or
// dst). high reports whether a plain byte copied was 0x80 or more.
// Needs AVX2 and BMI2.
TEXT ·unescapeAVX2(SB), NOSPLIT, $0-66
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), BX
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	XORQ AX, AX  // bytes of src read
	XORQ R8, R8  // bytes of dst written
	XORQ R11, R11 // the high bits of the plain bytes of cut blocks, OR-ed
	LEAQ ·unescapes(SB), R13
	SPECIAL_CONSTS

unloop:
	LEAQ 32(AX), R12
	CMPQ R12, CX
	JA   unnone
	LEAQ 32(R8), R12
	CMPQ R12, BX
	JA   unnone
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU Y0, (DI)(R8*1)
	SPECIAL_MASK
	JNZ  unfound
	VPOR Y0, Y7, Y7
	ADDQ $32, AX
	ADDQ $32, R8
	JMP  unloop

unfound:
	SPECIAL_AT
	ORL  R9, R11
	ADDQ DX, R8
	CMPB (SI)(AX*1), $0x5c
	JNE  unstop
	LEAQ 1(AX), R12
	CMPQ R12, CX
	JAE  unstop
	MOVBLZX 1(SI)(AX*1), R10
	MOVBLZX (R13)(R10*1), R10
	TESTL R10, R10
	JZ   unstop
	MOVB R10, (DI)(R8*1)
	ADDQ $2, AX
	INCQ R8
	JMP  unloop

unstop:
	MOVB $1, stopped+65(FP)
	JMP  undone

unnone:
	MOVB $0, stopped+65(FP)

undone:
	VPMOVMSKB Y7, R9
	ORL  R11, R9
	TESTL R9, R9
	SETNE high+64(FP)
	MOVQ AX, m+56(FP)
	MOVQ R8, n+48(FP)
	VZEROUPPER
	RET

// func indexHighAVX2(data []byte) int
//
// Scans data 64 bytes at a time, whole blocks only, for the first byte of
// 0x80 or more, and returns its index, or len(data)&^63 when the whole
// blocks hold none. Needs AVX2 and BMI2.
TEXT ·indexHighAVX2(SB), NOSPLIT, $0-32
	MOVQ data_base+0(FP), SI
	MOVQ data_len+8(FP), CX
	ANDQ $~63, CX
	XORQ AX, AX

hiloop:
	CMPQ AX, CX
	JAE  hidone
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VPOR Y0, Y1, Y2
	VPMOVMSKB Y2, DX
	TESTL DX, DX
	JNZ  hifound
	ADDQ $64, AX
	JMP  hiloop

hifound:
	VPMOVMSKB Y0, DX
	TESTL DX, DX
	JNZ  hiat
	VPMOVMSKB Y1, DX
	ADDQ $32, AX

hiat:
	TZCNTL DX, DX
	ADDQ DX, AX

hidone:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
