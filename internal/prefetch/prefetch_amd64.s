#include "textflag.h"

// func Line(addr uintptr)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ addr+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func Lines(addrs []uintptr)
TEXT ·Lines(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ addrs_base+0(FP), AX
	MOVQ addrs_len+8(FP), CX
	TESTQ CX, CX
	JLE done
loop:
	MOVQ (AX), DX
	PREFETCHT0 (DX)
	ADDQ $8, AX
	DECQ CX
	JNZ loop
done:
	RET

// func Indexed(base uintptr, idx []int32, size uintptr)
TEXT ·Indexed(SB), NOSPLIT|NOFRAME, $0-40
	MOVQ base+0(FP), AX
	MOVQ idx_base+8(FP), SI
	MOVQ idx_len+16(FP), CX
	MOVQ size+32(FP), DX
	TESTQ CX, CX
	JLE idone
iloop:
	MOVLQSX (SI), BX
	TESTQ BX, BX
	JS iskip
	IMULQ DX, BX
	PREFETCHT0 (AX)(BX*1)
iskip:
	ADDQ $4, SI
	DECQ CX
	JNZ iloop
idone:
	RET
