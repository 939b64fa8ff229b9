package catalog

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// PropMetadataCompression is the table property that compresses metadata
// files ("gzip" or "none"), as Iceberg Java's TableProperties names it.
const PropMetadataCompression = "write.metadata.compression-codec"

// ApplyCommit checks reqs against base (nil: no table yet) and applies
// updates to it, as a catalog that writes metadata files itself commits:
// the step the directory and SQL catalogs share. baseLocation is base's
// metadata file, logged in the metadata-log. A requirement that fails
// wraps both ErrCommitConflict and iceberg.ErrRequirementFailed. When the
// updates change nothing (a concurrent writer already did the same, such
// as two expiries removing one snapshot) base itself is returned, and the
// catalog writes no file: as Java's table operations skip a commit whose
// metadata is its base, since a copy of base as the next version would
// leave base out of its own metadata-log.
func ApplyCommit(id Identifier, base *iceberg.TableMetadata, baseLocation string, reqs []iceberg.Requirement, updates []iceberg.Update) (*iceberg.TableMetadata, error) {
	for _, r := range reqs {
		if err := r.Validate(base); err != nil {
			return nil, fmt.Errorf("commit table %s: %w: %w", id, ErrCommitConflict, err)
		}
	}
	md, err := iceberg.ApplyUpdates(base, baseLocation, updates)
	if err != nil {
		return nil, fmt.Errorf("commit table %s: %w", id, err)
	}
	return md, nil
}

// MetadataGzip reports whether md's properties ask for gzip-compressed
// metadata files.
func MetadataGzip(md *iceberg.TableMetadata) bool {
	return strings.EqualFold(md.Properties[PropMetadataCompression], "gzip")
}

// EncodeMetadata returns md as the bytes of a metadata file, gzipped when
// its properties ask for it.
func EncodeMetadata(md *iceberg.TableMetadata) ([]byte, error) {
	text, err := json.Marshal(md)
	if err != nil {
		return nil, err
	}
	if !MetadataGzip(md) {
		return text, nil
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(text); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteMetadataFile writes md to location with fio: exclusively (the
// commit's atomic step) or not. A lost race wraps fileio.ErrExist.
func WriteMetadataFile(ctx context.Context, fio fileio.FileIO, location string, md *iceberg.TableMetadata, exclusive bool) error {
	data, err := EncodeMetadata(md)
	if err != nil {
		return fmt.Errorf("write metadata %s: %w", location, err)
	}
	return writeFile(ctx, fio, location, data, exclusive)
}

// writeFile writes data to location with fio, whole or not at all.
func writeFile(ctx context.Context, fio fileio.FileIO, location string, data []byte, exclusive bool) error {
	create := fileio.Create
	if exclusive {
		create = fileio.CreateExclusive
	}
	w, err := create(ctx, fio, location)
	if err != nil {
		return fmt.Errorf("write %s: %w", location, err)
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", location, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", location, err)
	}
	return nil
}

// lostRace reports whether err is an exclusive create that found the file
// there.
func lostRace(err error) bool { return errors.Is(err, fileio.ErrExist) }
