package avro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/iceflight/iceflight/internal/fuzzseed"
)

// maxFuzzRecords bounds the records one input may decode: a few bytes can
// claim millions of empty records, and the fuzzer would crawl.
const maxFuzzRecords = 1 << 14

// FuzzContainer reads arbitrary bytes as an Object Container File, record by
// record (Next) and block by block (ReadBlock, each record then skipped
// with a Decoder compiled from the header's schema, which must step as far
// as goavro's decoder where it does not refuse the record), seeded with the sample warehouse's manifests and
// manifest lists. It must never panic, every error must wrap ErrInvalid,
// and both readings must count the same records. Where goavro's own reader
// knows the codec, a file read whole must give goavro's records.
func FuzzContainer(f *testing.F) {
	fuzzseed.AddSeeds(f, fuzzseed.SeedFiles(f, 16<<10,
		filepath.Join("..", "..", "testdata", "warehouse", "samples", "*", "metadata", "*.avro"))...)
	f.Fuzz(func(t *testing.T, data []byte) {
		records, err := readRecords(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		count, err := countBlocks(data)
		if errors.Is(err, errStricter) {
			return
		}
		if err != nil {
			t.Fatalf("records read one by one, but not by block: %v", err)
		}
		if count != int64(len(records)) {
			t.Fatalf("%d records by block, %d one by one", count, len(records))
		}
		c, _ := Open(bytes.NewReader(data))
		switch c.Codec() {
		case "", "null", "deflate", "snappy":
		default:
			return // goavro's reader does not know the codec
		}
		want, err := goavroRecords(data)
		if err != nil && strings.Contains(err.Error(), "extra bytes between final datum") {
			// goavro refuses bytes left after a block's last record; the
			// spec is silent and Java's reader ignores them, as Next does.
			return
		}
		if err != nil {
			t.Fatalf("read %d records that goavro refuses: %v", len(records), err)
		}
		if !reflect.DeepEqual(records, want) {
			t.Fatalf("records differ from goavro's:\n got %v\nwant %v", records, want)
		}
	})
}

// readRecords reads every record of a container with Next, or none when the
// file holds more than maxFuzzRecords.
func readRecords(data []byte) ([]any, error) {
	c, err := Open(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []any
	for len(out) < maxFuzzRecords {
		v, err := c.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return nil, errors.Join(ErrInvalid, errors.New("too many records for the fuzzer"))
}

// countBlocks reads a container with ReadBlock and skips each block's
// records with a Decoder of the header's schema, which must step over each
// record exactly as far as goavro's decoder does. Bytes after a block's
// last record are left unread, as Java's reader leaves them.
func countBlocks(data []byte) (int64, error) {
	c, err := Open(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	defer c.Release()
	if err := c.prepare(); err != nil {
		return 0, err
	}
	raw, err := c.SchemaJSON()
	if err != nil {
		return 0, err
	}
	s, err := ParseSchema(raw)
	if err != nil {
		return 0, err
	}
	var total int64
	for {
		n, block, err := c.ReadBlock()
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return 0, err
		}
		d := NewDecoder(block)
		for i := range n {
			rest, err := goavroSkip(c.dec, block[d.Offset():])
			if err != nil {
				return 0, err
			}
			if d.Skip(s); d.Err() != nil {
				return 0, fmt.Errorf("%w: record %d of a block: %v", errStricter, i, d.Err())
			}
			if d.Offset() != len(block)-len(rest) {
				return 0, fmt.Errorf("%w: record %d of a block: the Decoder stops at %d, goavro at %d",
					ErrInvalid, i, d.Offset(), len(block)-len(rest))
			}
		}
		total += n
	}
}

// errStricter marks a record the Decoder refuses and goavro reads: a long
// of more than ten bytes (input 3ff4a609048bc1b5), which Java's decoder
// refuses too.
var errStricter = errors.New("the Decoder refuses a record goavro reads")

// goavroSkip decodes one record with goavro and returns the bytes after it.
func goavroSkip(codec *goavro.Codec, b []byte) (rest []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: goavro: %v", ErrInvalid, p)
		}
	}()
	_, rest, err = codec.NativeFromBinary(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return rest, nil
}

// goavroRecords reads every record with goavro's OCF reader.
func goavroRecords(data []byte) (out []any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("goavro panicked")
		}
	}()
	r, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}
