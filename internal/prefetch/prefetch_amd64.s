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
