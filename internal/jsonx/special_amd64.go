package jsonx

import "golang.org/x/sys/cpu"

// useVector says indexSpecialAVX2 may run: it needs AVX2 and BMI2.
var useVector = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// indexSpecialAVX2 is in special_amd64.s.
//
//go:noescape
func indexSpecialAVX2(data []byte) (i int, high bool)

// unescapeAVX2 is in special_amd64.s.
//
//go:noescape
func unescapeAVX2(dst, src []byte) (n, m int, high, stopped bool)

// indexHighAVX2 is in special_amd64.s.
//
//go:noescape
func indexHighAVX2(data []byte) int
