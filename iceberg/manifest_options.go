package iceberg

import "slices"

// MetricColumns is a set of field ids whose column metrics are wanted, or
// all of them. The zero value holds no column.
type MetricColumns struct {
	all bool
	ids []int // sorted, unique
}

// AllMetrics is the set of every column.
func AllMetrics() MetricColumns { return MetricColumns{all: true} }

// MetricsOf returns the set of the given field ids.
func MetricsOf(ids ...int) MetricColumns {
	s := slices.Clone(ids)
	slices.Sort(s)
	return MetricColumns{ids: slices.Compact(s)}
}

// All reports whether the set holds every column.
func (c MetricColumns) All() bool { return c.all }

// IDs returns the field ids of a set that does not hold every column.
func (c MetricColumns) IDs() []int { return slices.Clone(c.ids) }

// Has reports whether the set holds field id.
func (c MetricColumns) Has(id int) bool {
	if c.all {
		return true
	}
	// Scans test a handful of columns: a linear search beats a map here.
	for _, v := range c.ids {
		if v == id {
			return true
		}
	}
	return false
}

// Covers reports whether every column of o is in c.
func (c MetricColumns) Covers(o MetricColumns) bool {
	if c.all {
		return true
	}
	if o.all {
		return false
	}
	for _, id := range o.ids {
		if !c.Has(id) {
			return false
		}
	}
	return true
}

// Union returns the columns in c or in o.
func (c MetricColumns) Union(o MetricColumns) MetricColumns {
	if c.all || o.all {
		return AllMetrics()
	}
	return MetricsOf(append(slices.Clone(c.ids), o.ids...)...)
}
