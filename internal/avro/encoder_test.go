package avro

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// encodeEveryTypeByHand writes everyTypeValue with an Encoder, field by
// field in the order of the everyType schema.
func encodeEveryTypeByHand() []byte {
	var e Encoder
	e.Boolean(true)
	e.Int(-70000)
	e.Long(math.MinInt64)
	e.Float(1.5)
	e.Double(-2.25)
	e.Bytes([]byte{0, 1, 2})
	e.String("héllo")
	e.Long(2) // enum symbol C
	e.Fixed([]byte{7, 8, 9})
	e.BlockCount(3)
	e.Long(1)
	e.Long(-1)
	e.Long(1 << 40)
	e.BlockCount(0)
	e.BlockCount(2) // map keys in goavro's order: it writes a Go map's entries sorted
	e.String("k")
	e.UnionIndex(1)
	e.String("v")
	e.String("z")
	e.UnionIndex(0)
	e.BlockCount(0)
	e.Int(4)        // rec.x
	e.UnionIndex(2) // u: the r2 branch
	e.Int(3)
	return e.Encoded()
}

// TestEncoderWritesWhatGoavroReads encodes a value of every Avro type by
// hand and reads it back with goavro, an independent decoder, and with
// the Decoder.
func TestEncoderWritesWhatGoavroReads(t *testing.T) {
	t.Parallel()
	data := encodeEveryTypeByHand()
	codec, err := goavro.NewCodec(everyType)
	if err != nil {
		t.Fatal(err)
	}
	got, rest, err := codec.NativeFromBinary(data)
	if err != nil || len(rest) != 0 {
		t.Fatalf("goavro: %v, %d bytes left", err, len(rest))
	}
	if want := everyTypeValue(); !reflect.DeepEqual(got, want) {
		t.Errorf("goavro reads\n %v\nwant %v", got, want)
	}
	s, err := ParseSchema([]byte(everyType))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(data)
	d.Skip(s)
	if d.Err() != nil || d.Remaining() != 0 {
		t.Errorf("Decoder: %v, %d bytes left", d.Err(), d.Remaining())
	}
}

func TestEncoderReset(t *testing.T) {
	t.Parallel()
	var e Encoder
	e.String("abc")
	e.Reset()
	e.Long(-1)
	e.Int(64)
	e.Boolean(false)
	if want := []byte{1, 0x80, 1, 0}; !bytes.Equal(e.Encoded(), want) {
		t.Errorf("encoded % x, want % x", e.Encoded(), want)
	}
}
