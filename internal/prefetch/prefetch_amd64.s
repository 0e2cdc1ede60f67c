//go:build !race

#include "textflag.h"

// func T0(p unsafe.Pointer)
TEXT ·T0(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func W(p unsafe.Pointer)
TEXT ·W(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	// PREFETCHW (AX)
	BYTE $0x0F; BYTE $0x0D; BYTE $0x08
	RET
