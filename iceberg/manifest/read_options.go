package manifest

import "github.com/iceflight/iceflight/iceberg"

// ReadOption tunes what Read decodes.
type ReadOption func(*readOptions)

type readOptions struct {
	metrics iceberg.MetricColumns
}

// WithMetrics makes Read keep the column metrics (column sizes,
// value, null and NaN counts, lower and upper bounds) of the columns in
// cols only. Every entry is still read and checked as without the option;
// the metrics of other columns are just not stored, which spares a scan
// that tests no column, or few, most of a manifest's allocations.
func WithMetrics(cols iceberg.MetricColumns) ReadOption {
	return func(o *readOptions) { o.metrics = cols }
}
