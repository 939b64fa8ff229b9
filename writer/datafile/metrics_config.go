package datafile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// metricsKind is a column's metrics mode (Iceberg's MetricsModes).
type metricsKind int

const (
	metricsNone metricsKind = iota
	metricsCounts
	metricsTruncate
	metricsFull
)

// metricsMode is how much a column's metrics keep: n is truncate's length.
type metricsMode struct {
	kind metricsKind
	n    int
}

// defaultMetricsMode is Iceberg's default, truncate(16).
var defaultMetricsMode = metricsMode{kind: metricsTruncate, n: 16}

func parseMetricsMode(s string) (metricsMode, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "none":
		return metricsMode{kind: metricsNone}, nil
	case "counts":
		return metricsMode{kind: metricsCounts}, nil
	case "full":
		return metricsMode{kind: metricsFull}, nil
	}
	if strings.HasPrefix(v, "truncate(") && strings.HasSuffix(v, ")") {
		n, err := strconv.Atoi(v[len("truncate(") : len(v)-1])
		if err == nil && n > 0 {
			return metricsMode{kind: metricsTruncate, n: n}, nil
		}
	}
	return metricsMode{}, fmt.Errorf("metrics mode %q: want none, counts, truncate(N) or full", s)
}

// leafColumn is one primitive column of the schema, as metrics see it.
type leafColumn struct {
	id   int
	name string // full dotted name, as write.metadata.metrics.column.<name> spells it
	typ  iceberg.Type
	// bounded: reachable through structs only. Like Iceberg Java, bounds are
	// not kept for values inside lists and maps, whose Parquet statistics
	// mix every element of every row.
	bounded bool
	mode    metricsMode
}

// leafColumns returns the schema's primitive columns by field id with
// their metrics modes from the table properties.
func leafColumns(schema *iceberg.Schema, props map[string]string) (map[int]*leafColumn, error) {
	cols := map[int]*leafColumn{}
	var order []*leafColumn // breadth-first, for max-inferred-column-defaults
	type level struct {
		prefix  string
		fields  []iceberg.NestedField
		bounded bool
	}
	queue := []level{{fields: schema.Fields, bounded: true}}
	for len(queue) > 0 {
		lv := queue[0]
		queue = queue[1:]
		for _, f := range lv.fields {
			name := lv.prefix + f.Name
			switch t := f.Type.(type) {
			case *iceberg.StructType:
				queue = append(queue, level{prefix: name + ".", fields: t.Fields, bounded: lv.bounded})
			case *iceberg.ListType:
				queue = append(queue, level{prefix: name + ".", fields: []iceberg.NestedField{t.ElementField()}})
			case *iceberg.MapType:
				queue = append(queue, level{prefix: name + ".", fields: []iceberg.NestedField{t.KeyField(), t.ValueField()}})
			default:
				c := &leafColumn{id: f.ID, name: name, typ: f.Type, bounded: lv.bounded}
				cols[f.ID] = c
				order = append(order, c)
			}
		}
	}
	mode := defaultMetricsMode
	if v, ok := props[PropMetricsDefault]; ok {
		m, err := parseMetricsMode(v)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", PropMetricsDefault, err)
		}
		mode = m
		for _, c := range order {
			c.mode = mode
		}
	} else {
		// Iceberg Java: with no explicit default, only the first
		// max-inferred-column-defaults columns get the default mode.
		limit, err := intProp(props, PropMetricsMaxInferred, defaultMaxInferred)
		if err != nil {
			return nil, err
		}
		for i, c := range order {
			if int64(i) < limit {
				c.mode = mode
			}
		}
	}
	byName := map[string]*leafColumn{}
	for _, c := range order {
		byName[c.name] = c
	}
	for k, v := range props {
		name, ok := strings.CutPrefix(k, PropMetricsColumn)
		if !ok {
			continue
		}
		m, err := parseMetricsMode(v)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", k, err)
		}
		if c, ok := byName[name]; ok {
			c.mode = m
		}
	}
	return cols, nil
}
