package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/iceflight/iceflight/fileio"
)

// MetadataSelection says which of a table's metadata files is current.
type MetadataSelection int

const (
	// SelectByVersion takes the file the version hint names, followed
	// forward, else the highest version: Iceberg Java's HadoopTableOperations
	// rule, and the default.
	SelectByVersion MetadataSelection = iota
	// SelectByLastUpdated takes the file whose last-updated-ms is the
	// greatest, as ClickHouse's Iceberg engine does with
	// iceberg_recent_metadata_file_by_last_updated_ms_field: for tables
	// whose writers number their files in no useful order. Every metadata
	// file of the table is read to choose.
	SelectByLastUpdated
)

// Directory properties, as a catalog's configuration spells them. The forms
// with a table name (metadata-location.sales.orders) apply to that table,
// the plain forms to every table.
const (
	// PropMetadataLocation pins a table to one metadata file, relative to
	// the table's folder ("metadata/v3.metadata.json") or absolute.
	PropMetadataLocation = "metadata-location"
	// PropTableUUID makes only metadata files of this table-uuid count.
	PropTableUUID = "table-uuid"
	// PropMetadataSelection is "version" (SelectByVersion) or
	// "last-updated" (SelectByLastUpdated).
	PropMetadataSelection = "metadata-selection"
)

// selection is how a Directory picks a table's current metadata file.
type selection struct {
	by    MetadataSelection
	files map[string]string // table name → metadata file; "" for every table
	uuids map[string]string // table name → table-uuid; "" for every table
}

// WithMetadataSelection sets how the current metadata file of a table is
// chosen among those in its metadata folder.
func WithMetadataSelection(by MetadataSelection) Option {
	return func(d *Directory) { d.pick.by = by }
}

// WithMetadataFile pins the table id (every table when id is nil) to the
// metadata file at location, relative to the table's folder
// ("metadata/v3.metadata.json") or absolute, instead of looking for its
// current one: a table given by an explicit metadata file. The file must
// lie within the warehouse as every file a table reads does.
func WithMetadataFile(id Identifier, location string) Option {
	return func(d *Directory) {
		if d.pick.files == nil {
			d.pick.files = map[string]string{}
		}
		d.pick.files[id.String()] = location
	}
}

// WithTableUUID makes only the metadata files of the table id (every table
// when id is nil) whose table-uuid is uuid count when its current file is
// chosen: a folder that holds the files of two tables (one dropped and
// created again under the same name) then serves the one meant. Every
// metadata file is read until the newest that matches.
func WithTableUUID(id Identifier, uuid string) Option {
	return func(d *Directory) {
		if d.pick.uuids == nil {
			d.pick.uuids = map[string]string{}
		}
		d.pick.uuids[id.String()] = strings.ToLower(uuid)
	}
}

// DirectoryOptions returns the Options that a directory catalog's
// properties set: PropMetadataLocation, PropTableUUID (each also with
// ".<table>" after it) and PropMetadataSelection. Other properties are left
// to whoever reads them (storage settings, the warehouse).
func DirectoryOptions(props map[string]string) ([]Option, error) {
	var opts []Option
	for key, v := range props {
		for _, prop := range []string{PropMetadataLocation, PropTableUUID} {
			rest, ok := strings.CutPrefix(key, prop)
			if !ok || rest != "" && rest[0] != '.' {
				continue
			}
			var id Identifier
			if rest != "" {
				var err error
				if id, err = ParseIdentifier(rest[1:]); err != nil {
					return nil, fmt.Errorf("property %s: %w", key, err)
				}
			}
			if prop == PropMetadataLocation {
				opts = append(opts, WithMetadataFile(id, v))
			} else {
				opts = append(opts, WithTableUUID(id, v))
			}
		}
	}
	if v, ok := props[PropMetadataSelection]; ok {
		switch v {
		case "version":
			opts = append(opts, WithMetadataSelection(SelectByVersion))
		case "last-updated", "last-updated-ms":
			opts = append(opts, WithMetadataSelection(SelectByLastUpdated))
		default:
			return nil, fmt.Errorf("property %s: %q is neither \"version\" nor \"last-updated\"", PropMetadataSelection, v)
		}
	}
	return opts, nil
}

// lookup returns the setting of m for the table name, else for every table.
func lookup(m map[string]string, name string) (string, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	v, ok := m[""]
	return v, ok
}

// current returns the current metadata file of the table named name whose
// folder is folder and metadata folder metaDir, as the selection says.
func (s selection) current(ctx context.Context, d *Directory, name, folder, metaDir string) (string, error) {
	if loc, ok := lookup(s.files, name); ok {
		return d.pinnedFile(ctx, folder, loc)
	}
	uuid, byUUID := lookup(s.uuids, name)
	if s.by == SelectByVersion && !byUUID {
		file, err := currentMetadata(ctx, d.tree, metaDir)
		if err != nil {
			return "", err
		}
		p, ok := d.tree.inside(d.tree.join(metaDir, file))
		if !ok {
			return "", fmt.Errorf("metadata file metadata/%s: %w", file, ErrOutsideWarehouse)
		}
		return p, nil
	}
	entries, err := listAll(ctx, d.tree, metaDir)
	if err != nil {
		return "", err
	}
	type candidate struct{ name, version string }
	var files []candidate
	for _, e := range entries {
		if v, ok := metadataVersion(e.Name); ok {
			files = append(files, candidate{e.Name, v})
		}
	}
	// Newest version first (equal versions: the greater name), as
	// currentMetadata orders them: by uuid alone the first match wins.
	sort.Slice(files, func(i, j int) bool {
		a, b := files[i], files[j]
		if versionLess(b.version, a.version) || versionLess(a.version, b.version) {
			return versionLess(b.version, a.version)
		}
		return a.name > b.name
	})
	best, bestUpdated := "", int64(0)
	for _, f := range files {
		n := f.name
		p, ok := d.tree.inside(d.tree.join(metaDir, n))
		if !ok {
			continue // not the table's: it leads out of the warehouse
		}
		head, err := d.readHead(ctx, p)
		if err != nil {
			return "", fmt.Errorf("metadata file metadata/%s: %w", n, err)
		}
		if byUUID && !strings.EqualFold(head.UUID, uuid) {
			continue
		}
		if s.by == SelectByVersion {
			return p, nil
		}
		// Equal times fall to the higher version, seen first.
		if best == "" || head.LastUpdatedMs > bestUpdated {
			best, bestUpdated = p, head.LastUpdatedMs
		}
	}
	if best == "" {
		if byUUID {
			return "", fmt.Errorf("metadata: %w with table-uuid %s", errNoMetadata, uuid)
		}
		return "", fmt.Errorf("metadata: %w", errNoMetadata)
	}
	return best, nil
}

// metadataHead is what selection reads of a metadata file.
type metadataHead struct {
	UUID          string `json:"table-uuid"`
	LastUpdatedMs int64  `json:"last-updated-ms"`
}

// readHead reads the table-uuid and last-updated-ms of the metadata file
// at p, within the directory's metadata size limit.
func (d *Directory) readHead(ctx context.Context, p string) (metadataHead, error) {
	var head metadataHead
	text, err := readText(ctx, d.io, p, d.maxMetadata)
	if err != nil {
		return head, err
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		return head, fmt.Errorf("parse: %w", err)
	}
	return head, nil
}

// pinnedFile resolves loc, a metadata file relative to the table's folder
// or absolute, and checks that it exists and lies within the warehouse.
func (d *Directory) pinnedFile(ctx context.Context, folder, loc string) (string, error) {
	p := loc
	switch {
	case fileio.Scheme(loc) == "" && !strings.HasPrefix(loc, "/") && !filepath.IsAbs(loc):
		if d.local {
			p = filepath.FromSlash(loc)
		}
		p = d.tree.join(folder, p)
	case d.local:
		var err error
		if p, err = fileio.LocalPath(loc); err != nil {
			return "", fmt.Errorf("metadata file %s: %w", loc, ErrOutsideWarehouse)
		}
	}
	if !d.local {
		// The operator's location, unlike a table's, means what it says
		// once cleaned: that is the key opened, and the one checked.
		if clean, ok := fileio.CleanLocation(p); ok {
			p = clean
		}
	}
	if real, ok := d.tree.inside(p); ok {
		if !d.tree.exists(ctx, real) {
			return "", fmt.Errorf("metadata file %s: %w", loc, fileio.ErrNotFound)
		}
		return real, nil
	}
	// On a disk a missing file resolves nowhere, and is only missing.
	if d.local && !d.tree.exists(ctx, p) {
		return "", fmt.Errorf("metadata file %s: %w", loc, fileio.ErrNotFound)
	}
	return "", fmt.Errorf("metadata file %s: %w", loc, ErrOutsideWarehouse)
}
