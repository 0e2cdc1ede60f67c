package barrierunit

import (
	"fmt"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

func benchVerify(b *testing.B, algo hw.Algorithm, ranks int, op Op) {
	s, err := Generate(algo, ranks)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if rep := Verify(s, op); !rep.OK && algo != hw.AlgoDissemination {
			b.Fatal(rep)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, R := range []int{1024, 65536} {
		for _, algo := range hw.Algorithms {
			for _, op := range []Op{OpBarrier, OpSum} {
				b.Run(fmt.Sprintf("%s/R=%d/%s", algo, R, op), func(b *testing.B) { benchVerify(b, algo, R, op) })
			}
		}
	}
	b.Run("dissemination/R=65535/sum", func(b *testing.B) { benchVerify(b, hw.AlgoDissemination, 65535, OpSum) })
}

func BenchmarkGenerate(b *testing.B) {
	for _, R := range []int{1024, 65536, 1 << 20} {
		for _, algo := range hw.Algorithms {
			b.Run(fmt.Sprintf("%s/R=%d", algo, R), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Generate(algo, R); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkGenerateFlat(b *testing.B) {
	for _, R := range []int{65536, 1 << 20} {
		b.Run(fmt.Sprintf("butterfly/R=%d", R), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := GenerateFlat(hw.AlgoButterfly, R); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for _, R := range []int{65536, 1 << 20} {
		s, err := Generate(hw.AlgoButterfly, R)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("butterfly/R=%d", R), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Compile(s) == nil {
					b.Fatal("nil table")
				}
			}
		})
	}
}

func BenchmarkGenerateVerify1024(b *testing.B) {
	for b.Loop() {
		s, _ := Generate(hw.AlgoButterfly, 1024)
		if rep := Verify(s, OpSum); !rep.OK {
			b.Fatal(rep)
		}
	}
}
