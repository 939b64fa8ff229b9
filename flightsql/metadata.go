package flightsql

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// The catalog commands answer from ReadableTables and LoadTable, so a
// token limited to some namespaces sees only their tables.

// tableType is the one table type iceflight serves.
const tableType = "TABLE"

func (s *server) registerSqlInfo() error {
	for id, v := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:         "iceflight",
		flightsql.SqlInfoFlightSqlServerVersion:      s.cfg.version,
		flightsql.SqlInfoFlightSqlServerArrowVersion: "18",
		flightsql.SqlInfoFlightSqlServerReadOnly:     true,
		flightsql.SqlInfoFlightSqlServerSql:          true,
		flightsql.SqlInfoFlightSqlServerSubstrait:    false,
		flightsql.SqlInfoFlightSqlServerTransaction:  int32(flightsql.SqlTransactionNone),
		flightsql.SqlInfoFlightSqlServerCancel:       false,
		flightsql.SqlInfoDDLCatalog:                  false,
		flightsql.SqlInfoDDLSchema:                   false,
		flightsql.SqlInfoDDLTable:                    false,
		flightsql.SqlInfoIdentifierCase:              int32(flightsql.SqlCaseSensitivityCaseInsensitive),
		flightsql.SqlInfoIdentifierQuoteChar:         `"`,
		flightsql.SqlInfoQuotedIdentifierCase:        int32(flightsql.SqlCaseSensitivityUnknown),
	} {
		if err := s.RegisterSqlInfo(id, v); err != nil {
			return fmt.Errorf("flight sql: register SqlInfo %v: %w", id, err)
		}
	}
	return nil
}

// metadataInfo is the FlightInfo of a catalog command: one endpoint whose
// ticket is the command itself, redeemed on the process that planned it.
func (s *server) metadataInfo(desc *flight.FlightDescriptor, schema *arrow.Schema) *flight.FlightInfo {
	return &flight.FlightInfo{
		Schema:           flight.SerializeSchema(schema, s.cfg.mem),
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.GetCmd()}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

// rows builds one batch of schema from rows of Go values (nil for null,
// string, int32, bool, []byte) and returns it as a DoGet answer.
func (s *server) rows(schema *arrow.Schema, rows [][]any) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.cfg.mem, schema)
	defer b.Release()
	for _, row := range rows {
		for i, v := range row {
			if err := appendValue(b.Field(i), v); err != nil {
				return nil, nil, fmt.Errorf("flight sql: column %s: %w", schema.Field(i).Name, err)
			}
		}
	}
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: b.NewRecordBatch()}
	close(ch)
	return schema, ch, nil
}

func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.BinaryBuilder:
		b.Append(v.([]byte))
	case *array.Int32Builder:
		b.Append(v.(int32))
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.ListBuilder:
		b.Append(true)
		for _, s := range v.([]string) {
			b.ValueBuilder().(*array.StringBuilder).Append(s)
		}
	default:
		return fmt.Errorf("no appender for %T", b)
	}
	return nil
}

// split is a table identifier as Flight SQL reports it: catalog (nil
// without mounted catalogs), schema (the namespace, dotted) and name.
func (s *server) split(id catalog.Identifier) (cat *string, schema, name string) {
	parts := []string(id)
	if s.cfg.catalogs && len(parts) > 2 {
		c := parts[0]
		cat, parts = &c, parts[1:]
	}
	return cat, strings.Join(parts[:len(parts)-1], "."), parts[len(parts)-1]
}

// like compiles a Flight SQL pattern (% any run, _ one character, \
// escaping either) into a regular expression; nil matches everything.
func like(pattern *string) *regexp.Regexp {
	if pattern == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("(?s)^")
	for i := 0; i < len(*pattern); i++ {
		c := (*pattern)[i]
		switch {
		case c == '\\' && i+1 < len(*pattern):
			i++
			b.WriteString(regexp.QuoteMeta(string((*pattern)[i])))
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func matches(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

// catalogMatches applies a command's catalog filter: nil any, "" none.
func catalogMatches(want, have *string) bool {
	switch {
	case want == nil:
		return true
	case *want == "":
		return have == nil
	}
	return have != nil && *have == *want
}

func (s *server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.Catalogs), nil
}

func (s *server) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ids, _, err := s.engine.ReadableTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, id := range ids {
		if cat, _, _ := s.split(id); cat != nil && !slices.Contains(names, *cat) {
			names = append(names, *cat)
		}
	}
	slices.Sort(names)
	rows := make([][]any, len(names))
	for i, n := range names {
		rows[i] = []any{n}
	}
	return s.rows(schema_ref.Catalogs, rows)
}

func (s *server) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.DBSchemas), nil
}

func (s *server) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ids, _, err := s.engine.ReadableTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	re := like(cmd.GetDBSchemaFilterPattern())
	seen := map[string]bool{}
	var rows [][]any
	for _, id := range ids {
		cat, schema, _ := s.split(id)
		key := fmt.Sprint(cat != nil, deref(cat), schema)
		if seen[key] || !catalogMatches(cmd.GetCatalog(), cat) || !matches(re, schema) {
			continue
		}
		seen[key] = true
		rows = append(rows, []any{optional(cat), schema})
	}
	return s.rows(schema_ref.DBSchemas, rows)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// optional is s as a row value: nil for null.
func optional(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func (s *server) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if cmd.GetIncludeSchema() {
		return s.metadataInfo(desc, schema_ref.TablesWithIncludedSchema), nil
	}
	return s.metadataInfo(desc, schema_ref.Tables), nil
}

func (s *server) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ids, _, err := s.engine.ReadableTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	if types := cmd.GetTableTypes(); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return strings.EqualFold(t, tableType) }) {
		ids = nil
	}
	schemaRe, tableRe := like(cmd.GetDBSchemaFilterPattern()), like(cmd.GetTableNameFilterPattern())
	out := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		out = schema_ref.TablesWithIncludedSchema
	}
	var rows [][]any
	for _, id := range ids {
		cat, schema, name := s.split(id)
		if !catalogMatches(cmd.GetCatalog(), cat) || !matches(schemaRe, schema) || !matches(tableRe, name) {
			continue
		}
		row := []any{optional(cat), schema, name, tableType}
		if cmd.GetIncludeSchema() {
			t, err := s.engine.LoadTable(ctx, id.String())
			if err != nil {
				return nil, nil, fmt.Errorf("flight sql: GetTables: table %s: %w", id, err)
			}
			as, err := iceberg.ArrowSchema(t.Metadata.CurrentSchema())
			if err != nil {
				return nil, nil, fmt.Errorf("flight sql: GetTables: table %s: %w", id, err)
			}
			row = append(row, flight.SerializeSchema(as, s.cfg.mem))
		}
		rows = append(rows, row)
	}
	return s.rows(out, rows)
}

func (s *server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.TableTypes), nil
}

func (s *server) DoGetTableTypes(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.rows(schema_ref.TableTypes, [][]any{{tableType}})
}

// Iceberg tables have no primary keys (identifier fields are not one).
func (s *server) GetFlightInfoPrimaryKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.PrimaryKeys), nil
}

func (s *server) DoGetPrimaryKeys(context.Context, flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.rows(schema_ref.PrimaryKeys, nil)
}

func (s *server) GetFlightInfoXdbcTypeInfo(_ context.Context, _ flightsql.GetXdbcTypeInfo, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.XdbcTypeInfo), nil
}

// xdbcTypes are the SQL types Iceberg's types map to, with their JDBC
// codes (java.sql.Types) and literal spelling in the filter grammar.
var xdbcTypes = []struct {
	name           string
	code           int32
	size           any
	prefix, suffix any
	caseSensitive  bool
	unsigned       any
	scale          [2]any
}{
	{"BOOLEAN", 16, int32(1), nil, nil, false, nil, [2]any{nil, nil}},
	{"INTEGER", 4, int32(10), nil, nil, false, false, [2]any{nil, nil}},
	{"BIGINT", -5, int32(19), nil, nil, false, false, [2]any{nil, nil}},
	{"REAL", 7, int32(7), nil, nil, false, false, [2]any{nil, nil}},
	{"DOUBLE", 8, int32(15), nil, nil, false, false, [2]any{nil, nil}},
	{"DECIMAL", 3, int32(38), nil, nil, false, false, [2]any{int32(0), int32(38)}},
	{"DATE", 91, int32(10), "DATE '", "'", false, nil, [2]any{nil, nil}},
	{"TIME", 92, int32(15), "TIME '", "'", false, nil, [2]any{nil, nil}},
	{"TIMESTAMP", 93, int32(26), "TIMESTAMP '", "'", false, nil, [2]any{nil, nil}},
	{"TIMESTAMP WITH TIME ZONE", 2014, int32(32), "TIMESTAMPTZ '", "'", false, nil, [2]any{nil, nil}},
	{"VARCHAR", 12, nil, "'", "'", true, nil, [2]any{nil, nil}},
	{"VARBINARY", -3, nil, "X'", "'", false, nil, [2]any{nil, nil}},
}

func (s *server) DoGetXdbcTypeInfo(_ context.Context, cmd flightsql.GetXdbcTypeInfo) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	var rows [][]any
	for _, t := range xdbcTypes {
		if dt := cmd.GetDataType(); dt != nil && *dt != t.code {
			continue
		}
		var params any
		if t.name == "DECIMAL" {
			params = []string{"precision", "scale"}
		}
		searchable := int32(3) // SEARCHABLE: any comparison in WHERE
		rows = append(rows, []any{t.name, t.code, t.size, t.prefix, t.suffix, params, int32(1), t.caseSensitive,
			searchable, t.unsigned, t.name == "DECIMAL", false, t.name, t.scale[0], t.scale[1], t.code, nil, nil, nil})
	}
	return s.rows(schema_ref.XdbcTypeInfo, rows)
}
