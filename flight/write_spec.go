package flight

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/internal/strictjson"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/writer"
)

// parsePartitionField reads one create_table partition field: an object
// {"source", "transform", "name"} or a string in the forms of Iceberg's
// and PyIceberg's docs: "id" (identity), "day(ts)", "bucket[16](id)",
// "bucket(16, id)", "truncate(4, name)".
func parsePartitionField(raw json.RawMessage) (writer.PartitionField, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var f actions.PartitionField
		if err := strictjson.Decode(bytes.TrimSpace(raw), &f); err != nil {
			return writer.PartitionField{}, fmt.Errorf("%w: partition_by field %s: %v", engine.ErrBadCommand, strictjson.Abbreviate(raw, 60), err)
		}
		if f.Source == "" {
			return writer.PartitionField{}, fmt.Errorf("%w: partition_by field %s names no source column", engine.ErrBadCommand, strictjson.Abbreviate(raw, 60))
		}
		if f.Transform == "" {
			f.Transform = "identity"
		}
		return partitionField(f), nil
	}
	transform, source, err := parseTransformCall(s)
	if err != nil {
		return writer.PartitionField{}, fmt.Errorf("%w: partition_by %q: %v", engine.ErrBadCommand, s, err)
	}
	return writer.PartitionField{Source: source, Transform: transform}, nil
}

// parseTransformCall splits "day(ts)", "bucket[16](id)", "bucket(16, id)"
// or "id" into a transform in the spec's form and a source column.
func parseTransformCall(s string) (transform, source string, err error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if s == "" {
			return "", "", fmt.Errorf("empty field")
		}
		return "identity", s, nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", "", fmt.Errorf("want transform(column)")
	}
	name, args := strings.TrimSpace(s[:open]), strings.Split(s[open+1:len(s)-1], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	switch {
	case len(args) == 1 && args[0] != "" && name != "":
		return name, args[0], nil
	case len(args) == 2 && (name == "bucket" || name == "truncate"):
		if _, err := strconv.Atoi(args[0]); err != nil || args[1] == "" {
			return "", "", fmt.Errorf("want %s(N, column)", name)
		}
		return name + "[" + args[0] + "]", args[1], nil
	}
	return "", "", fmt.Errorf("want transform(column), bucket(N, column) or truncate(W, column)")
}

// parseSortField reads one create_table sort field: an object
// {"source", "transform", "direction", "null_order"} or a string
// "COLUMN|TRANSFORM(COLUMN) [asc|desc] [nulls-first|nulls-last]".
func parseSortField(raw json.RawMessage) (writer.SortField, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var f actions.SortField
		if err := strictjson.Decode(bytes.TrimSpace(raw), &f); err != nil {
			return writer.SortField{}, fmt.Errorf("%w: sort_by field %s: %v", engine.ErrBadCommand, strictjson.Abbreviate(raw, 60), err)
		}
		if f.Source == "" {
			return writer.SortField{}, fmt.Errorf("%w: sort_by field %s names no source column", engine.ErrBadCommand, strictjson.Abbreviate(raw, 60))
		}
		return sortField(f), nil
	}
	// The transform call may hold spaces ("bucket(16, id)"): the words
	// after its closing parenthesis are the options.
	head, rest := s, ""
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		head, rest = s[:i+1], s[i+1:]
	} else if fields := strings.Fields(s); len(fields) > 0 {
		head, rest = fields[0], strings.Join(fields[1:], " ")
	}
	transform, source, err := parseTransformCall(head)
	if err != nil {
		return writer.SortField{}, fmt.Errorf("%w: sort_by %q: %v", engine.ErrBadCommand, s, err)
	}
	f := writer.SortField{Source: source, Transform: transform}
	for _, w := range strings.Fields(strings.ToLower(rest)) {
		switch w {
		case "asc", "desc":
			f.Direction = w
		case "nulls-first", "nulls-last":
			f.NullOrder = w
		default:
			return f, fmt.Errorf("%w: sort_by %q: %q: want asc, desc, nulls-first or nulls-last", engine.ErrBadCommand, s, w)
		}
	}
	return f, nil
}
