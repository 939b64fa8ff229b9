package metatable

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrUnknownKind marks a metadata table name Iceberg does not have.
	ErrUnknownKind = errors.New("unknown metadata table")
	// ErrNoTimeTravel marks a snapshot asked of a metadata table that
	// describes the whole table (snapshots, history, the all_ tables ...),
	// which Iceberg Java does not time-travel either.
	ErrNoTimeTravel = errors.New("metadata table does not time-travel")
	// ErrInvalidUnit marks a unit that does not fit the table it is read
	// against (a unit of another table, or damaged on the way).
	ErrInvalidUnit = errors.New("invalid metadata table unit")
)

// Kind is one of Iceberg's metadata tables.
type Kind int

// The metadata tables, in the order of Kinds.
const (
	Snapshots Kind = iota + 1
	History
	Refs
	Manifests
	AllManifests
	Files
	DataFiles
	DeleteFiles
	AllFiles
	AllDataFiles
	AllDeleteFiles
	Entries
	AllEntries
	Partitions
	MetadataLogEntries
)

// kindNames are the names Iceberg Java gives the tables
// (MetadataTableType, lower-cased), by Kind.
var kindNames = [...]string{
	Snapshots:          "snapshots",
	History:            "history",
	Refs:               "refs",
	Manifests:          "manifests",
	AllManifests:       "all_manifests",
	Files:              "files",
	DataFiles:          "data_files",
	DeleteFiles:        "delete_files",
	AllFiles:           "all_files",
	AllDataFiles:       "all_data_files",
	AllDeleteFiles:     "all_delete_files",
	Entries:            "entries",
	AllEntries:         "all_entries",
	Partitions:         "partitions",
	MetadataLogEntries: "metadata_log_entries",
}

// Kinds returns every metadata table.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kindNames)-1)
	for k := Snapshots; k <= MetadataLogEntries; k++ {
		out = append(out, k)
	}
	return out
}

// ParseKind returns the metadata table of a name as Iceberg Java spells
// it ("files", "all_entries"), in any case. An unknown name wraps
// ErrUnknownKind and lists the names.
func ParseKind(name string) (Kind, error) {
	for _, k := range Kinds() {
		if strings.EqualFold(kindNames[k], name) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w %q (metadata tables are %s)", ErrUnknownKind, name, strings.Join(kindNames[1:], ", "))
}

// String returns the table's name ("all_files").
func (k Kind) String() string {
	if k < Snapshots || k > MetadataLogEntries {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// MarshalText writes the table's name, so a Unit's JSON names its kind.
func (k Kind) MarshalText() ([]byte, error) {
	if k < Snapshots || k > MetadataLogEntries {
		return nil, fmt.Errorf("%w: kind %d", ErrUnknownKind, int(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText reads a table's name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// TimeTravel reports whether the table can be read at a snapshot other
// than the current one: the tables of one snapshot's files, entries,
// manifests and partitions, as Iceberg Java's
// BaseMetadataTable.supportsTimeTravel says. The others describe the whole
// table.
func (k Kind) TimeTravel() bool {
	switch k {
	case Manifests, Files, DataFiles, DeleteFiles, Entries, Partitions:
		return true
	}
	return false
}

// allSnapshots reports whether the table reads the manifests of every
// snapshot (the all_ tables).
func (k Kind) allSnapshots() bool {
	switch k {
	case AllManifests, AllFiles, AllDataFiles, AllDeleteFiles, AllEntries:
		return true
	}
	return false
}

// fileKind reports whether the table's rows are manifest entries: the
// files and entries tables.
func (k Kind) fileKind() bool {
	switch k {
	case Files, DataFiles, DeleteFiles, AllFiles, AllDataFiles, AllDeleteFiles, Entries, AllEntries:
		return true
	}
	return false
}

// entryKind reports whether the table's rows are whole manifest entries,
// DELETED ones included (entries, all_entries), rather than the live data
// and delete files.
func (k Kind) entryKind() bool { return k == Entries || k == AllEntries }

// readsData and readsDeletes say which manifests a files or entries table
// reads.
func (k Kind) readsData() bool { return k != DeleteFiles && k != AllDeleteFiles }

func (k Kind) readsDeletes() bool { return k != DataFiles && k != AllDataFiles }
