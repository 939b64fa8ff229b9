package flightsql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/metatable"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// NameError is a table or column the statement names that does not
// exist, or names ambiguously, with the nearest names that do.
type NameError struct {
	Kind    string // "table" or "column"
	Name    string
	Pos     int
	Nearest []string
	// Ambiguous lists the names a bare identifier matches in more than one
	// spelling.
	Ambiguous []string
}

func (e *NameError) Error() string {
	if len(e.Ambiguous) > 0 {
		return fmt.Sprintf("%s %s (position %d) is ambiguous: it matches %s; quote the one you mean", e.Kind, e.Name, e.Pos+1, strings.Join(e.Ambiguous, ", "))
	}
	msg := fmt.Sprintf("unknown %s %s (position %d)", e.Kind, e.Name, e.Pos+1)
	if len(e.Nearest) > 0 {
		msg += "; did you mean " + strings.Join(e.Nearest, ", ") + "?"
	}
	return msg
}

// query is a statement bound to its table: the command to plan, and what
// the answer's columns are called.
type query struct {
	table catalog.Identifier
	cmd   *iceflightv1.Command
	// count is SELECT COUNT(*), answered in one column named countName.
	count     bool
	countName string
	// names are the answer's column names where an alias renames one of
	// cmd.Columns; nil when the plan's own names are the answer's.
	names []string
}

// matchIdent reports whether id names name: exactly when quoted, ignoring
// case when bare.
func matchIdent(id Ident, name string) bool {
	if id.Quoted {
		return id.Name == name
	}
	return strings.EqualFold(id.Name, name)
}

// resolveTable finds the one table of ids that parts name. A bare name
// that matches tables differing only in case is ambiguous unless one of
// them is spelled exactly as written.
func resolveTable(parts []Ident, ids []catalog.Identifier) (catalog.Identifier, error) {
	var matches []catalog.Identifier
	for _, id := range ids {
		if len(id) != len(parts) {
			continue
		}
		ok := true
		for i, p := range parts {
			if !matchIdent(p, id[i]) {
				ok = false
				break
			}
		}
		if ok {
			matches = append(matches, id)
		}
	}
	written := identPath(parts)
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		names := make([]string, len(ids))
		for i, id := range ids {
			names[i] = id.String()
		}
		return nil, &NameError{Kind: "table", Name: written, Pos: parts[0].Pos, Nearest: nearest(plainPath(parts), names)}
	}
	for _, m := range matches {
		if m.String() == plainPath(parts) {
			return m, nil
		}
	}
	amb := make([]string, len(matches))
	for i, m := range matches {
		amb[i] = m.String()
	}
	return nil, &NameError{Kind: "table", Name: written, Pos: parts[0].Pos, Ambiguous: amb}
}

// splitMetadataTable reads a table name whose last part ends in
// "$<metadata table>" ("trips$files", quoted or not, as Trino writes it)
// as that metadata table of the table the rest names.
func splitMetadataTable(parts []Ident) ([]Ident, string, bool) {
	last := parts[len(parts)-1]
	i := strings.LastIndexByte(last.Name, '$')
	if i <= 0 {
		return nil, "", false
	}
	kind, err := metatable.ParseKind(last.Name[i+1:])
	if err != nil {
		return nil, "", false
	}
	base := slices.Clone(parts)
	base[len(base)-1].Name = last.Name[:i]
	return base, kind.String(), true
}

func identPath(parts []Ident) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = p.String()
	}
	return strings.Join(s, ".")
}

func plainPath(parts []Ident) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = p.Name
	}
	return strings.Join(s, ".")
}

// columnPaths lists the dotted names of every column and nested struct
// field of schema, as the command's columns and filters name them, and
// then the metadata columns, which a scan serves when named.
func columnPaths(schema *arrow.Schema) []string {
	var out []string
	var walk func(prefix string, fields []arrow.Field)
	walk = func(prefix string, fields []arrow.Field) {
		for _, f := range fields {
			name := prefix + f.Name
			out = append(out, name)
			if st, ok := f.Type.(*arrow.StructType); ok {
				walk(name+".", st.Fields())
			}
		}
	}
	walk("", schema.Fields())
	for _, m := range iceberg.MetadataColumnNames() {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// fieldType is the type of the column path names in schema.
func fieldType(schema *arrow.Schema, path string) (arrow.DataType, bool) {
	fields := schema.Fields()
	parts := strings.Split(path, ".")
	for i, p := range parts {
		j := slices.IndexFunc(fields, func(f arrow.Field) bool { return f.Name == p })
		if j < 0 {
			return nil, false
		}
		if i == len(parts)-1 {
			return fields[j].Type, true
		}
		st, ok := fields[j].Type.(*arrow.StructType)
		if !ok {
			return nil, false
		}
		fields = st.Fields()
	}
	return nil, false
}

// resolveColumn finds the column a path names in paths: a first part that
// names the table (or its alias) is dropped, then the rest must match one
// column as matchIdent does.
func resolveColumn(path []Ident, paths []string, table []Ident, alias *Ident) (string, error) {
	if len(path) > 1 && (alias != nil && matchIdent(path[0], alias.Name) || matchIdent(path[0], table[len(table)-1].Name)) {
		if alias == nil || matchIdent(path[0], alias.Name) {
			path = path[1:]
		}
	}
	var matches []string
	for _, p := range paths {
		segs := strings.Split(p, ".")
		if len(segs) != len(path) {
			continue
		}
		ok := true
		for i := range segs {
			if !matchIdent(path[i], segs[i]) {
				ok = false
				break
			}
		}
		if ok {
			matches = append(matches, p)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", &NameError{Kind: "column", Name: identPath(path), Pos: path[0].Pos, Nearest: nearest(plainPath(path), paths)}
	}
	if i := slices.Index(matches, plainPath(path)); i >= 0 {
		return matches[i], nil
	}
	return "", &NameError{Kind: "column", Name: identPath(path), Pos: path[0].Pos, Ambiguous: matches}
}

// bind resolves sel against table id and the schema its snapshot
// selection streams (schemaOf, asked with the command's time travel), with
// params (values written as literals of the filter grammar, see literal)
// for its ? placeholders, into a query. With params nil the filter is left out: the
// statement is being prepared, and only its schema is needed.
func bind(sel *Select, id catalog.Identifier, schemaOf func(*iceflightv1.Command) (*arrow.Schema, error), params []string) (*query, error) {
	exact := true
	q := &query{table: id, cmd: &iceflightv1.Command{Table: id.String(), CaseSensitive: &exact}}
	switch {
	case sel.VersionID != nil:
		q.cmd.SnapshotId = sel.VersionID
	case sel.VersionRef != "":
		q.cmd.Ref = sel.VersionRef
	case sel.AsOf != "":
		ms, err := parseAsOf(sel.AsOf)
		if err != nil {
			return nil, err
		}
		q.cmd.AsOfTimestampMs = &ms
	}
	if c := sel.Changes; c != nil {
		r := &iceflightv1.ChangeRange{FromSnapshotId: c.FromID, ToSnapshotId: c.ToID}
		for _, b := range []struct {
			text string
			ms   **int64
		}{{c.FromTime, &r.FromTimestampMs}, {c.ToTime, &r.ToTimestampMs}} {
			if b.text == "" {
				continue
			}
			ms, err := parseAsOf(b.text)
			if err != nil {
				return nil, err
			}
			*b.ms = &ms
		}
		q.cmd.Changes = r
	}
	schema, err := schemaOf(q.cmd)
	if err != nil {
		return nil, err
	}
	paths := columnPaths(schema)
	switch {
	case sel.Count:
		q.count, q.countName = true, sel.CountAlias
		q.cmd.NoColumns = true
	case !sel.Star:
		renamed := false
		seen := map[string]bool{}
		for _, c := range sel.Columns {
			name, err := resolveColumn(c.Path, paths, sel.Table, sel.TableAlias)
			if err != nil {
				return nil, err
			}
			if seen[name] {
				return nil, &UnsupportedError{Pos: c.Pos, Construct: "selecting column " + name + " twice"}
			}
			seen[name] = true
			out := name
			if c.Alias != nil {
				out = c.Alias.Name
			}
			renamed = renamed || out != name
			q.cmd.Columns = append(q.cmd.Columns, name)
			q.names = append(q.names, out)
		}
		if !renamed {
			q.names = nil
		}
	}
	if sel.Limit != nil {
		q.cmd.Limit = sel.Limit
	}
	if len(sel.Where) > 0 && params != nil {
		f, err := bindFilter(sel, paths, params)
		if err != nil {
			return nil, err
		}
		q.cmd.Filter = f
	} else if len(params) > 0 {
		return nil, fmt.Errorf("%w: %d parameters bound to a statement without placeholders", errBadParams, len(params))
	}
	return q, nil
}

// asOfLayouts are the timestamp spellings FOR SYSTEM_TIME AS OF takes;
// those without a zone are UTC.
var asOfLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999 Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseAsOf reads a FOR SYSTEM_TIME AS OF value: Unix milliseconds or a
// timestamp.
func parseAsOf(s string) (int64, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	for _, layout := range asOfLayouts {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, &SyntaxError{Msg: fmt.Sprintf("FOR SYSTEM_TIME AS OF %q: expected a timestamp such as '2024-05-01 12:00:00' (UTC), '2024-05-01T12:00:00+02:00' or Unix milliseconds", s)}
}

// nearest returns up to three of names closest to name by edit distance
// (ignoring case), when they are close enough to be a likely typo.
func nearest(name string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	lower := strings.ToLower(name)
	for _, n := range names {
		d := editDistance(lower, strings.ToLower(n))
		if d <= max(2, len(name)/3) || strings.Contains(strings.ToLower(n), lower) {
			cs = append(cs, cand{n, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(3, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
