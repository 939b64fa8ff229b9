package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
	"github.com/iceflight/iceflight/internal/fuzzseed"
	"github.com/linkedin/goavro/v2"
)

// FuzzReadManifest decodes arbitrary bytes as a manifest or a manifest list,
// as its header says (see readStandalone), seeded with every manifest and
// manifest list of the sample warehouse. The compiled decoder must not
// panic, its errors must wrap ErrInvalidMetadata, and a file it accepts
// must hold as many records, read by goavro, as it returned entries.
func FuzzReadManifest(f *testing.F) {
	fuzzseed.AddSeeds(f, fuzzseed.SeedFiles(f, 16<<10,
		filepath.Join("..", "..", "testdata", "warehouse", "samples", "*", "metadata", "*.avro"))...)
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := readStandalone(data)
		if err != nil {
			if !errors.Is(err, iceberg.ErrInvalidMetadata) && !errors.Is(err, iceberg.ErrUnsupportedVersion) {
				t.Fatalf("error %v wraps neither ErrInvalidMetadata nor ErrUnsupportedVersion", err)
			}
			return
		}
		want, err := goavroCount(data, n+1)
		if errors.Is(err, errGoavroSchema) {
			return // goavro is stricter about names; the records are not compared
		}
		if err != nil {
			t.Fatalf("decoded %d entries from a file goavro refuses: %v", n, err)
		}
		if want != n {
			t.Fatalf("decoded %d entries, goavro reads %d records", n, want)
		}
	})
}

// errGoavroSchema marks a writer's schema goavro refuses to compile.
var errGoavroSchema = errors.New("goavro refuses the schema")

// goavroCount counts the records of a container read with goavro, up to
// limit.
func goavroCount(data []byte, limit int) (int, error) {
	c, err := avro.Open(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	raw, err := c.SchemaJSON()
	if err != nil {
		return 0, err
	}
	if err := goavroCompiles(raw); err != nil {
		return 0, fmt.Errorf("%w: %v", errGoavroSchema, err)
	}
	n := 0
	for ; n < limit; n++ {
		if _, err := c.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return n, err
		}
	}
	return n, nil
}

// goavroCompiles reports whether goavro compiles a schema; it panics on
// some malformed ones.
func goavroCompiles(raw []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("goavro panicked: %v", p)
		}
	}()
	_, err = goavro.NewCodec(string(raw))
	return err
}
