#include "textflag.h"

// func Line(addr uintptr)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVD addr+0(FP), R0
	PRFM (R0), PLDL1KEEP
	RET

// func Lines(addrs []uintptr)
TEXT ·Lines(SB), NOSPLIT|NOFRAME, $0-24
	MOVD addrs_base+0(FP), R0
	MOVD addrs_len+8(FP), R1
	CBZ R1, done
loop:
	MOVD.P 8(R0), R2
	PRFM (R2), PLDL1KEEP
	SUB $1, R1, R1
	CBNZ R1, loop
done:
	RET

// func Indexed(base uintptr, idx []int32, size uintptr)
TEXT ·Indexed(SB), NOSPLIT|NOFRAME, $0-40
	MOVD base+0(FP), R0
	MOVD idx_base+8(FP), R1
	MOVD idx_len+16(FP), R2
	MOVD size+32(FP), R3
	CBZ R2, idone
iloop:
	MOVW.P 4(R1), R4
	TBNZ $63, R4, iskip
	MUL R3, R4, R5
	ADD R0, R5, R5
	PRFM (R5), PLDL1KEEP
iskip:
	SUB $1, R2, R2
	CBNZ R2, iloop
idone:
	RET
