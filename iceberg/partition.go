package iceberg

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Transform turns a source column value into a partition value.
type Transform interface {
	// String returns the transform as the spec spells it ("bucket[16]").
	String() string
	// ResultType returns the partition value's type for a source type.
	ResultType(source Type) Type
}

// Transforms defined by the spec. UnknownTransform keeps the name of a
// transform this package does not know so metadata still round-trips.
type (
	IdentityTransform struct{}
	BucketTransform   struct{ N int }
	TruncateTransform struct{ Width int }
	YearTransform     struct{}
	MonthTransform    struct{}
	DayTransform      struct{}
	HourTransform     struct{}
	VoidTransform     struct{}
	UnknownTransform  struct{ Name string }
)

func (IdentityTransform) String() string   { return "identity" }
func (t BucketTransform) String() string   { return fmt.Sprintf("bucket[%d]", t.N) }
func (t TruncateTransform) String() string { return fmt.Sprintf("truncate[%d]", t.Width) }
func (YearTransform) String() string       { return "year" }
func (MonthTransform) String() string      { return "month" }
func (DayTransform) String() string        { return "day" }
func (HourTransform) String() string       { return "hour" }
func (VoidTransform) String() string       { return "void" }
func (t UnknownTransform) String() string  { return t.Name }

func (IdentityTransform) ResultType(src Type) Type { return src }
func (BucketTransform) ResultType(Type) Type       { return IntType{} }
func (TruncateTransform) ResultType(src Type) Type { return src }
func (YearTransform) ResultType(Type) Type         { return IntType{} }
func (MonthTransform) ResultType(Type) Type        { return IntType{} }

// ResultType of day is date: the spec stores days from 1970-01-01, and
// writers annotate the manifest's partition field as a date.
func (DayTransform) ResultType(Type) Type         { return DateType{} }
func (HourTransform) ResultType(Type) Type        { return IntType{} }
func (VoidTransform) ResultType(src Type) Type    { return src }
func (UnknownTransform) ResultType(src Type) Type { return StringType{} }

var paramTransform = regexp.MustCompile(`^(bucket|truncate)\[\s*(\d+)\s*\]$`)

// ParseTransform parses a transform name. Names it does not know become an
// UnknownTransform, as the spec asks readers to tolerate them.
func ParseTransform(s string) Transform {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "identity":
		return IdentityTransform{}
	case "year":
		return YearTransform{}
	case "month":
		return MonthTransform{}
	case "day":
		return DayTransform{}
	case "hour":
		return HourTransform{}
	case "void":
		return VoidTransform{}
	}
	if m := paramTransform.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
		n, _ := strconv.Atoi(m[2])
		if m[1] == "bucket" {
			return BucketTransform{N: n}
		}
		return TruncateTransform{Width: n}
	}
	return UnknownTransform{Name: s}
}

// PartitionField is one field of a partition spec.
type PartitionField struct {
	SourceID  int
	FieldID   int
	Name      string
	Transform Transform
}

// PartitionSpec describes how a table's rows are partitioned.
type PartitionSpec struct {
	ID     int
	Fields []PartitionField
}

// IsUnpartitioned reports whether the spec has no fields or only void ones.
func (s PartitionSpec) IsUnpartitioned() bool {
	for _, f := range s.Fields {
		if _, void := f.Transform.(VoidTransform); !void {
			return false
		}
	}
	return true
}

// PartitionType returns the struct type of the spec's partition tuples,
// resolved against a schema. A source column missing from the schema (it
// was dropped) yields an unknown type for its field.
func (s PartitionSpec) PartitionType(schema *Schema) *StructType {
	fields := make([]NestedField, len(s.Fields))
	for i, f := range s.Fields {
		var t Type = UnknownType{}
		if src, ok := schema.FieldByID(f.SourceID); ok {
			t = f.Transform.ResultType(src.Type)
		}
		fields[i] = NestedField{ID: f.FieldID, Name: f.Name, Type: t}
	}
	return &StructType{Fields: fields}
}

type jsonPartitionField struct {
	SourceID  int    `json:"source-id"`
	SourceIDs []int  `json:"source-ids,omitempty"`
	FieldID   *int   `json:"field-id,omitempty"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

type jsonPartitionSpec struct {
	SpecID int                  `json:"spec-id"`
	Fields []jsonPartitionField `json:"fields"`
}

// parsePartitionFields converts JSON fields; v1 specs may omit field ids,
// which then count up from 1000 as the spec prescribes.
func parsePartitionFields(in []jsonPartitionField) []PartitionField {
	out := make([]PartitionField, len(in))
	for i, f := range in {
		id := 1000 + i
		if f.FieldID != nil {
			id = *f.FieldID
		}
		src := f.SourceID
		if src == 0 && len(f.SourceIDs) > 0 {
			src = f.SourceIDs[0]
		}
		out[i] = PartitionField{SourceID: src, FieldID: id, Name: f.Name, Transform: ParseTransform(f.Transform)}
	}
	return out
}

// UnmarshalJSON reads a spec in its JSON form, as the metadata file's
// partition-specs and a manifest's "partition-spec" header (its fields
// array, wrapped as {"fields": ...}) carry it.
func (s *PartitionSpec) UnmarshalJSON(b []byte) error {
	var js jsonPartitionSpec
	if err := json.Unmarshal(b, &js); err != nil {
		return err
	}
	*s = PartitionSpec{ID: js.SpecID, Fields: parsePartitionFields(js.Fields)}
	return nil
}

// MarshalJSON writes the spec in its JSON form.
func (s PartitionSpec) MarshalJSON() ([]byte, error) {
	js := jsonPartitionSpec{SpecID: s.ID, Fields: make([]jsonPartitionField, len(s.Fields))}
	for i, f := range s.Fields {
		id := f.FieldID
		js.Fields[i] = jsonPartitionField{SourceID: f.SourceID, FieldID: &id, Name: f.Name, Transform: f.Transform.String()}
	}
	return json.Marshal(js)
}

// SortField is one field of a sort order.
type SortField struct {
	SourceID  int    `json:"source-id"`
	Transform string `json:"transform"`
	Direction string `json:"direction"`
	NullOrder string `json:"null-order"`
}

// SortOrder describes how rows in data files are sorted.
type SortOrder struct {
	OrderID int         `json:"order-id"`
	Fields  []SortField `json:"fields"`
}
