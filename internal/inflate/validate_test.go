package inflate

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// Block header bits: BFINAL then BTYPE (RFC 1951 section 3.2.3).
const (
	finalStored  = 0b001
	finalFixed   = 0b011
	finalDynamic = 0b101
)

// litLensWith returns literal/length code lengths for HLIT = n symbols with
// the given symbols set.
func litLensWith(n int, set map[int]uint8) []uint8 {
	l := make([]uint8, n)
	for s, v := range set {
		l[s] = v
	}
	return l
}

// completeLitLens codes 'a', 'b', the length symbol 257 and end of block
// in two bits each.
var completeLitLens = litLensWith(258, map[int]uint8{'a': 2, 'b': 2, 256: 2, 257: 2})

// TestDecodeRejects hand-builds a stream breaking each rule a decoder must
// check (RFC 1951, and zlib where the RFC leaves a choice) and expects
// ErrCorrupt naming the rule. compress/flate must reject each one too.
func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	for _, tt := range rejectCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w bitWriter
			tt.build(&w)
			src := w.bytes()
			_, err := Decode(nil, src)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("got %v, want ErrCorrupt: %s", err, tt.why)
			}
			if tt.why == whyTruncated && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("truncation %v does not wrap io.ErrUnexpectedEOF", err)
			}
			if !strings.Contains(err.Error(), "bit") {
				t.Errorf("error %q gives no bit offset", err)
			}
			if _, err := stdlibDecode(src); err == nil {
				t.Errorf("compress/flate accepts the stream")
			}
		})
	}
}

// rejectCases are streams that each break one rule, with the reason the
// error must give.
var rejectCases = []struct {
	name  string
	why   string
	build func(w *bitWriter)
}{
	{"block type 3 is reserved", whyBlockType, func(w *bitWriter) {
		w.bits(0b111, 3)
	}},
	{"stored NLEN must be the complement of LEN", whyStoredLen, func(w *bitWriter) {
		w.bits(finalStored, 3)
		w.align()
		w.bits(5, 16)
		w.bits(0xFFFF^4, 16)
		w.bits(0, 40)
	}},
	{"HLIT above 286 symbols", whyTooManyCodes, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.bits(30, 5) // 287 literal/length codes
		w.bits(0, 5)
		w.bits(0, 4)
		w.bits(0, 64)
	}},
	{"HDIST above 30 symbols", whyTooManyCodes, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.bits(0, 5)
		w.bits(30, 5) // 31 distance codes
		w.bits(0, 4)
		w.bits(0, 64)
	}},
	{"oversubscribed code length code", whyOversubscribed, func(w *bitWriter) {
		pc := make([]uint8, numPrecode)
		pc[0], pc[1], pc[2] = 1, 1, 1
		w.bits(finalDynamic, 3)
		w.dynamicHeader(completeLitLens, []uint8{1, 1}, pc)
	}},
	{"incomplete code length code", whyIncomplete, func(w *bitWriter) {
		pc := make([]uint8, numPrecode)
		pc[0], pc[2] = 1, 2
		w.bits(finalDynamic, 3)
		w.dynamicHeader(completeLitLens, []uint8{1, 1}, pc)
	}},
	{"single-code code length code", whyIncomplete, func(w *bitWriter) {
		pc := make([]uint8, numPrecode)
		pc[2] = 1
		w.bits(finalDynamic, 3)
		w.dynamicHeader(litLensWith(257, map[int]uint8{}), []uint8{2}, pc)
	}},
	{"oversubscribed literal/length code", whyOversubscribed, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.dynamicHeader(litLensWith(257, map[int]uint8{'a': 1, 'b': 1, 256: 1}), []uint8{1, 1}, nil)
	}},
	{"incomplete literal/length code", whyIncomplete, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.dynamicHeader(litLensWith(257, map[int]uint8{'a': 2, 256: 1}), []uint8{1, 1}, nil)
		w.bits(0, 32)
	}},
	{"oversubscribed distance code", whyOversubscribed, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.dynamicHeader(completeLitLens, []uint8{1, 1, 1}, nil)
	}},
	{"incomplete distance code of two symbols", whyIncomplete, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.dynamicHeader(completeLitLens, []uint8{1, 2}, nil)
		w.bits(0, 32)
	}},
	{"incomplete distance code of one two-bit symbol", whyIncomplete, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.dynamicHeader(completeLitLens, []uint8{2}, nil)
		w.bits(0, 32)
	}},
	{"repeat code 16 with no previous length", whyRepeatFirst, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.bits(0, 5)
		w.bits(0, 5)
		w.bits(numPrecode-4, 4)
		for _, s := range precodeOrder {
			w.bits(uint64(testPrecodeLens[s]), 3)
		}
		pc := canonical(testPrecodeLens)
		w.code(pc[16], uint(testPrecodeLens[16]))
		w.bits(0, 2)
		w.bits(0, 64)
	}},
	{"zero run past HLIT+HDIST", whyRepeatOverflow, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.bits(0, 5) // 257 + 1 lengths to give
		w.bits(0, 5)
		w.bits(numPrecode-4, 4)
		for _, s := range precodeOrder {
			w.bits(uint64(testPrecodeLens[s]), 3)
		}
		pc := canonical(testPrecodeLens)
		w.code(pc[18], uint(testPrecodeLens[18]))
		w.bits(127, 7) // 138 zeros
		w.code(pc[18], uint(testPrecodeLens[18]))
		w.bits(127, 7) // 276 of 258
		w.bits(0, 64)
	}},
	{"previous length repeated past HLIT+HDIST", whyRepeatOverflow, func(w *bitWriter) {
		lens := append(litLensWith(257, map[int]uint8{256: 1, 'a': 1}), 1)
		w.bits(finalDynamic, 3)
		w.bits(0, 5)
		w.bits(0, 5)
		w.bits(numPrecode-4, 4)
		for _, s := range precodeOrder {
			w.bits(uint64(testPrecodeLens[s]), 3)
		}
		pc := canonical(testPrecodeLens)
		for _, n := range lens[:len(lens)-2] {
			w.code(pc[n], uint(testPrecodeLens[n]))
		}
		w.code(pc[16], uint(testPrecodeLens[16]))
		w.bits(0, 2) // 3 more, 1 too many
		w.bits(0, 64)
	}},
	{"end-of-block symbol without a code", whyNoEndOfBlock, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.dynamicHeader(litLensWith(257, map[int]uint8{'a': 1, 'b': 1}), []uint8{1}, nil)
		w.bits(0, 32)
	}},
	{"literal/length symbol 286", whyLitLenSymbol, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode('a')
		w.fixedCode(286)
		w.bits(0, 64)
	}},
	{"literal/length symbol 287", whyLitLenSymbol, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode(287)
		w.bits(0, 64)
	}},
	{"distance symbol 30", whyDistanceSymbol, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode('a')
		w.fixedCode(257)
		w.code(30, 5)
		w.bits(0, 64)
	}},
	{"distance symbol 31", whyDistanceSymbol, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode('a')
		w.fixedCode(257)
		w.code(31, 5)
		w.bits(0, 64)
	}},
	{"distance code unused by an empty distance code", whyDistanceSymbol, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		lit, _ := w.dynamicHeader(completeLitLens, []uint8{0}, nil)
		w.code(lit['a'], 2)
		w.code(lit[257], 2)
		w.bits(0, 64)
	}},
	{"distance code unused by a one-symbol distance code", whyDistanceSymbol, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		lit, _ := w.dynamicHeader(completeLitLens, []uint8{0, 1}, nil)
		w.code(lit['a'], 2)
		w.code(lit[257], 2)
		w.bits(1, 1)
		w.bits(0, 64)
	}},
	{"literal/length code unused by a one-symbol code", whyLitLenSymbol, func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		w.dynamicHeader(litLensWith(257, map[int]uint8{256: 1}), []uint8{1}, nil)
		w.bits(1, 1)
		w.bits(0, 64)
	}},
	{"distance before the start of the output", whyDistanceTooFar, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode('a')
		w.fixedMatch(3, 2)
		w.fixedCode(256)
		w.bits(0, 64)
	}},
	{"match at the start of the output", whyDistanceTooFar, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedMatch(258, 1)
		w.fixedCode(256)
		w.bits(0, 64)
	}},
	{"distance one past the output near the end of input", whyDistanceTooFar, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode('a')
		w.fixedCode('b')
		w.fixedMatch(10, 3)
		w.fixedCode(256)
	}},
	{"empty input", whyTruncated, func(w *bitWriter) {}},
	{"input ends after a non-final block", whyTruncated, func(w *bitWriter) {
		w.bits(0b010, 3)
		w.fixedCode('a')
		w.fixedCode(256)
	}},
	{"input ends inside a block", whyTruncated, func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode('a')
	}},
	{"stored block shorter than LEN", whyTruncated, func(w *bitWriter) {
		w.bits(finalStored, 3)
		w.align()
		w.bits(5, 16)
		w.bits(0xFFFF^5, 16)
		w.bits(0, 32)
	}},
	{"stored block header cut short", whyTruncated, func(w *bitWriter) {
		w.bits(finalStored, 3)
		w.align()
		w.bits(5, 16)
	}},
}

// TestDecodeAcceptsEdgeCases hand-builds valid streams that encoders rarely
// write, and compares the output with compress/flate's.
func TestDecodeAcceptsEdgeCases(t *testing.T) {
	t.Parallel()
	for _, tt := range edgeCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w bitWriter
			tt.build(&w)
			src := w.bytes()
			want, err := stdlibDecode(src)
			if err != nil {
				t.Fatalf("compress/flate: %v", err)
			}
			for _, dst := range [][]byte{nil, make([]byte, 0, len(want)+1<<20)} {
				got, err := Decode(dst, src)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("output differs from compress/flate's (%d bytes, want %d)", len(got), len(want))
				}
			}
		})
	}
}

// edgeCases are valid streams of kinds encoders rarely write.
var edgeCases = []struct {
	name  string
	build func(w *bitWriter)
}{
	{"distance 32768 after a stored block", func(w *bitWriter) {
		w.bits(0b000, 3)
		w.align()
		w.bits(32768, 16)
		w.bits(0xFFFF^32768, 16)
		w.buf = append(w.buf, randomBytes(9, 32768)...)
		w.nbits += 8 * 32768
		w.bits(finalFixed, 3)
		w.fixedMatch(258, 32768)
		w.fixedMatch(3, 32768)
		w.fixedCode(256)
	}},
	{"overlapping copies of distance 1 to 8 and length 258", func(w *bitWriter) {
		w.bits(finalFixed, 3)
		for _, c := range "abcdefgh" {
			w.fixedCode(int(c))
		}
		for dist := 1; dist <= 8; dist++ {
			for _, length := range []int{3, 7, 9, 17, 257, 258} {
				w.fixedMatch(length, dist)
			}
		}
		w.fixedCode(256)
	}},
	{"length 258 as symbol 284 with extra bits 31", func(w *bitWriter) {
		w.bits(finalFixed, 3)
		w.fixedCode('z')
		w.fixedCode(284)
		w.bits(31, 5)
		w.code(0, 5)
		w.fixedCode(256)
	}},
	{"dynamic block whose only code is end of block", func(w *bitWriter) {
		w.bits(0b100, 3)
		w.dynamicHeader(litLensWith(257, map[int]uint8{256: 1}), []uint8{0}, nil)
		w.bits(0, 1)
		w.bits(finalFixed, 3)
		w.fixedCode('!')
		w.fixedCode(256)
	}},
	{"one-symbol distance code", func(w *bitWriter) {
		w.bits(finalDynamic, 3)
		lit, _ := w.dynamicHeader(completeLitLens, []uint8{0, 1}, nil)
		w.code(lit['a'], 2)
		w.code(lit['b'], 2)
		w.code(lit[257], 2)
		w.bits(0, 1) // distance symbol 1: distance 2
		w.code(lit[256], 2)
	}},
	{"empty stored blocks", func(w *bitWriter) {
		w.bits(0b000, 3)
		w.align()
		w.bits(0, 16)
		w.bits(0xFFFF, 16)
		w.bits(finalStored, 3)
		w.align()
		w.bits(0, 16)
		w.bits(0xFFFF, 16)
	}},
}
