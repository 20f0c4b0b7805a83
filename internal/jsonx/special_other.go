//go:build !amd64

package jsonx

// useVector is false where there is no vector scan: the word-at-a-time
// scan (nextSpecial) does the work alone.
const useVector = false

func indexSpecialAVX2(data []byte) (i int, high bool) {
	panic("jsonx: no vector scan on this architecture")
}

func unescapeAVX2(dst, src []byte) (n, m int, high, stopped bool) {
	panic("jsonx: no vector scan on this architecture")
}

func indexHighAVX2(data []byte) int {
	panic("jsonx: no vector scan on this architecture")
}
