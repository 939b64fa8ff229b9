package avro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// writeContainer writes values of a goavro codec's schema with a
// ContainerWriter, each encoded by goavro, and returns the file.
func writeContainer(t testing.TB, opts ContainerWriterOptions, values []any) []byte {
	t.Helper()
	codec, err := goavro.NewCodec(opts.Schema)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		rec, err := codec.BinaryFromNative(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Size() != int64(buf.Len()) {
		t.Errorf("Size() = %d, wrote %d bytes", w.Size(), buf.Len())
	}
	return buf.Bytes()
}

// checkContainer reads a file written by writeContainer three ways: with
// Next, with ReadBlock (each record stepped over with a Decoder), and with
// goavro's OCF reader, an independent reader of the framing. Each must
// give the values, and the header's metadata.
func checkContainer(t testing.TB, file []byte, opts ContainerWriterOptions, values []any) {
	t.Helper()
	wantCodec := opts.Codec
	if wantCodec == "" {
		wantCodec = "null"
	}
	wantMeta := map[string]string{"avro.schema": opts.Schema, "avro.codec": wantCodec}
	for k, v := range opts.Metadata {
		wantMeta[k] = v
	}
	blockRecords := opts.BlockRecords
	if blockRecords == 0 {
		blockRecords = DefaultBlockRecords
	}

	c, err := Open(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Metadata(); !reflect.DeepEqual(got, wantMeta) {
		t.Errorf("metadata %v, want %v", got, wantMeta)
	}
	var got []any
	for {
		v, err := c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got = append(got, v)
	}
	if !reflect.DeepEqual(got, values) {
		t.Errorf("Next reads\n %v\nwant %v", got, values)
	}

	s, err := ParseSchema([]byte(opts.Schema))
	if err != nil {
		t.Fatal(err)
	}
	c, err = Open(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var counts []int64
	for {
		n, block, err := c.ReadBlock()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("ReadBlock: %v", err)
		}
		counts = append(counts, n)
		d := NewDecoder(block)
		for range n {
			d.Skip(s)
		}
		if d.Err() != nil || d.Remaining() != 0 {
			t.Fatalf("block %d: %v, %d bytes left", len(counts)-1, d.Err(), d.Remaining())
		}
	}
	c.Release()
	var wantCounts []int64
	for left := len(values); left > 0; left -= blockRecords {
		wantCounts = append(wantCounts, int64(min(left, blockRecords)))
	}
	if !reflect.DeepEqual(counts, wantCounts) {
		t.Errorf("blocks of %v records, want %v", counts, wantCounts)
	}

	r, err := goavro.NewOCFReader(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("goavro: %v", err)
	}
	if r.CompressionName() != wantCodec {
		t.Errorf("goavro reads codec %q, want %q", r.CompressionName(), wantCodec)
	}
	for k, v := range wantMeta {
		if k != "avro.schema" && string(r.MetaData()[k]) != v {
			t.Errorf("goavro reads %s = %q, want %q", k, r.MetaData()[k], v)
		}
	}
	got = nil
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatalf("goavro record %d: %v", len(got), err)
		}
		got = append(got, v)
	}
	if r.Err() != nil {
		t.Fatalf("goavro: %v", r.Err())
	}
	if !reflect.DeepEqual(got, values) {
		t.Errorf("goavro reads\n %v\nwant %v", got, values)
	}
}

// TestContainerWriterRoundTrip writes containers of every codec the writer
// knows and several block sizes, and reads them back with Container and
// with goavro's OCF reader.
func TestContainerWriterRoundTrip(t *testing.T) {
	t.Parallel()
	every := make([]any, 7)
	for i := range every {
		v := everyTypeValue()
		v["l"] = int64(i)
		every[i] = v
	}
	meta := map[string]string{"format-version": "2", "iceberg.schema": `{"type":"struct"}`, "empty": ""}
	for _, codec := range []string{"", "null", "deflate"} {
		for _, blockRecords := range []int{0, 1, 3, 7} {
			for _, n := range []int{0, 1, len(every)} {
				opts := ContainerWriterOptions{Schema: everyType, Codec: codec, Metadata: meta, BlockRecords: blockRecords}
				t.Run(fmt.Sprintf("codec %q, %d records a block, %d records", codec, blockRecords, n), func(t *testing.T) {
					t.Parallel()
					values := every[:n:n]
					if n == 0 {
						values = nil
					}
					checkContainer(t, writeContainer(t, opts, values), opts, values)
				})
			}
		}
	}
}

func TestContainerWriterRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]ContainerWriterOptions{
		"a codec it cannot write": {Schema: `"long"`, Codec: "snappy"},
		"no schema":               {Codec: "null"},
		"a reserved key":          {Schema: `"long"`, Metadata: map[string]string{"avro.codec": "null"}},
		"negative block size":     {Schema: `"long"`, BlockRecords: -1},
	} {
		if _, err := NewContainerWriter(io.Discard, opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestContainerWriterKeepsItsFirstError checks that a write error sticks:
// the file is unusable after it.
func TestContainerWriterKeepsItsFirstError(t *testing.T) {
	t.Parallel()
	w, err := NewContainerWriter(&failingWriter{n: 1 << 10}, ContainerWriterOptions{Schema: `"bytes"`, BlockRecords: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(make([]byte, 2<<10)); err == nil {
		t.Fatal("a block past the writer's end was written")
	}
	if err := w.Append([]byte{0}); err == nil {
		t.Error("Append after an error succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after an error succeeded")
	}
}

// FuzzContainerWriter cuts arbitrary bytes into string records, writes them
// with a ContainerWriter (the codec and block size taken from the input)
// and reads them back with Container and with goavro's OCF reader.
func FuzzContainerWriter(f *testing.F) {
	f.Add([]byte("one\ntwo\nthree"), uint8(2), true)
	f.Add([]byte{}, uint8(0), false)
	f.Add([]byte("\n\n\x00\xff"), uint8(1), true)
	f.Fuzz(func(t *testing.T, data []byte, blockRecords uint8, deflate bool) {
		var values []any
		for rec := range bytes.SplitSeq(data, []byte("\n")) {
			values = append(values, string(rec))
		}
		opts := ContainerWriterOptions{Schema: `"string"`, Codec: "null", BlockRecords: int(blockRecords % 16),
			Metadata: map[string]string{"input": string(data)}}
		if deflate {
			opts.Codec = "deflate"
		}
		checkContainer(t, writeContainer(t, opts, values), opts, values)
	})
}
