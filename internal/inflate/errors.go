package inflate

import (
	"errors"
	"fmt"
	"io"
)

// ErrCorrupt is wrapped by every error that reports an input which is not a
// valid RFC 1951 DEFLATE stream, including one that ends too early.
var ErrCorrupt = errors.New("inflate: corrupt input")

// ErrTooLarge is wrapped by the error DecodeLimit returns when the output
// would exceed its limit; the input may be valid.
var ErrTooLarge = errors.New("inflate: output exceeds limit")

// Reasons given in corruption errors. Each names the RFC 1951 rule (or the
// zlib check, where the RFC leaves the decoder a choice) that the input broke.
const (
	whyTruncated      = "input ends before the final block"
	whyBlockType      = "invalid block type 3"
	whyStoredLen      = "stored block LEN does not match NLEN"
	whyTooManyCodes   = "too many length or distance symbols"
	whyOversubscribed = "oversubscribed code lengths"
	whyIncomplete     = "incomplete code lengths"
	whyRepeatFirst    = "repeat of previous code length with no previous length"
	whyRepeatOverflow = "code length repeat runs past HLIT+HDIST"
	whyNoEndOfBlock   = "end-of-block code missing length"
	whyLitLenSymbol   = "invalid literal/length symbol"
	whyDistanceSymbol = "invalid distance symbol"
	whyDistanceTooFar = "distance reaches before the start of the output"
	whyTableOverflow  = "Huffman table overflow"
)

// corrupt returns the error for input that broke the rule why near bit
// offset bit of the input. A symbol decoded from the zero bits that stand in
// for input past its end is reported as truncation, not as the rule it
// happened to break.
func corrupt(why string, bit, inputBits int64) error {
	if bit > inputBits || why == whyTruncated {
		return fmt.Errorf("%w: %s (bit %d of %d): %w",
			ErrCorrupt, whyTruncated, min(bit, inputBits), inputBits, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("%w: %s at input bit %d", ErrCorrupt, why, bit)
}

// tooLarge returns the error for output that would pass limit bytes.
func tooLarge(limit int) error {
	return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
}
