package avro

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/iceflight/iceflight/internal/fuzzseed"
)

// maxFuzzRecords bounds the records one input may decode: a few bytes can
// claim millions of empty records, and the fuzzer would crawl.
const maxFuzzRecords = 1 << 14

// FuzzContainer reads arbitrary bytes as an Object Container File, record by
// record (Next) and block by block (ReadBlock, each record then skipped with
// a Decoder compiled from the header's schema), seeded with the sample
// warehouse's manifests and manifest lists. It must never panic, and every
// error must wrap ErrInvalid. Where goavro's own reader knows the codec, a
// file read whole must give goavro's records; the block reading must count
// the same records and the Decoder must consume each block exactly.
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
// records with a Decoder of the header's schema, which must end exactly
// at the block's end.
func countBlocks(data []byte) (int64, error) {
	c, err := Open(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	defer c.Release()
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
		for range n {
			d.Skip(s)
		}
		if d.Err() != nil || d.Remaining() != 0 {
			return 0, errors.Join(ErrInvalid, d.Err(), errors.New("records do not fill their block"))
		}
		total += n
	}
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
