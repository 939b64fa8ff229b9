package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/linkedin/goavro/v2"
)

// avroMagic starts every Avro object container file.
var avroMagic = []byte{'O', 'b', 'j', 1}

func inspectCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: flightd inspect FILE\n\nPrints a table metadata JSON file (plain or gzip) indented, or an Avro\nmanifest list or manifest as one JSON object per record, like avro-tools tojson.")
	}
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one FILE"}
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	if err := inspect(data, w); err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	return w.Flush()
}

// inspect writes data as JSON: metadata files re-indented, Avro files as
// one line per record in Avro's JSON encoding.
func inspect(data []byte, w io.Writer) error {
	if bytes.HasPrefix(data, avroMagic) {
		return avroToJSONLines(data, w)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return fmt.Errorf("neither Avro nor JSON: %w", err)
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}

func avroToJSONLines(data []byte, w io.Writer) error {
	ocf, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	codec := ocf.Codec()
	var buf []byte
	for ocf.Scan() {
		rec, err := ocf.Read()
		if err != nil {
			return err
		}
		if buf, err = codec.TextualFromNative(buf[:0], rec); err != nil {
			return err
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return ocf.Err()
}
