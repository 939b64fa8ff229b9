package jsontext

import (
	"math/rand/v2"
	"testing"
)

// plainWord must accept a word exactly when plainByte accepts each of its
// bytes: every byte value at every position among plain ones, and random
// words, which mix several bytes that need care.
func TestPlainWordMatchesPlainByte(t *testing.T) {
	t.Parallel()
	byBytes := func(x uint64) bool {
		for i := range 8 {
			if !plainByte[byte(x>>(8*i))] {
				return false
			}
		}
		return true
	}
	const plain = 0x6161616161616161 // "aaaaaaaa"
	for pos := range 8 {
		for b := range 256 {
			x := plain&^(0xff<<(8*pos)) | uint64(b)<<(8*pos)
			if plainWord(x) != byBytes(x) {
				t.Fatalf("byte %#x at %d: plainWord %v", b, pos, plainWord(x))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		x := r.Uint64()
		if r.IntN(2) == 0 {
			x &= 0x7f7f7f7f7f7f7f7f // ASCII only, where borrows between bytes matter
		}
		if plainWord(x) != byBytes(x) {
			t.Fatalf("%#016x: plainWord %v", x, plainWord(x))
		}
	}
}
