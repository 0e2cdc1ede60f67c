package testbench

// unitProgram is a unit's full program from its table bodies (temporary:
// to be replaced by barrierunit/regmap.Full).
func unitProgram(op uint32, gate, data []uint64) [][2]uint32 {
	var w [][2]uint32
	b0 := gate[0]
	if b0>>63 == 0 {
		return append(w, [2]uint32{0x8, 0})
	}
	G := int(b0 >> 32 & 63)
	dm := uint32(0)
	if data != nil {
		dm = 1 << 4
		op = 0
	}
	w = append(w, [2]uint32{0x8, 1 | op<<1 | dm | uint32(G)<<8}, [2]uint32{0xC, uint32(b0)})
	if data != nil {
		w = append(w, [2]uint32{0x10, uint32(data[0] >> 32)})
	}
	word := func(base uint32, i int, v uint64) {
		w = append(w, [2]uint32{base + 8*uint32(i), uint32(v)}, [2]uint32{base + 8*uint32(i) + 4, uint32(v >> 32)})
	}
	for g := 1; g <= G+1; g++ {
		word(0x1000_0000, g, gate[g])
	}
	nr := len(gate) - G - 2
	for j := 0; j < nr; j++ {
		word(0x2000_0000, j, gate[G+2+j])
	}
	if data != nil {
		for j := 0; j < nr; j++ {
			word(0x3000_0000, j, data[1+j])
		}
		for g := 2; g <= G+1; g++ {
			word(0x4000_0000, g, data[1+nr+g-2])
		}
		for n, v := range data[1+nr+G:] {
			w = append(w, [2]uint32{0x5000_0000 + 4*uint32(n), uint32(v >> 32)})
		}
	}
	return w
}
