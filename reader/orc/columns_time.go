package orc

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// orcEpoch is 2015-01-01 00:00:00 UTC in Unix seconds, the origin of ORC's
// timestamp seconds.
const orcEpoch = 1420070400

// timestampColumn decodes timestamp and timestamp_instant columns into
// ticks of its builder's unit since the Unix epoch.
//
// Spec: Timestamp Columns — DATA holds signed seconds since 2015-01-01
// 00:00:00, SECONDARY the nanoseconds with their trailing decimal zeros
// dropped and counted in the low three bits.
//
// A TIMESTAMP counts its seconds from 2015-01-01 00:00:00 in the writer's
// time zone (StripeFooter.writerTimezone), and means the wall-clock time it
// shows there: it is returned as that wall-clock time taken as UTC, which
// is what ORC Java gives a reader in UTC (Iceberg reads ORC that way). A
// TIMESTAMP_INSTANT counts from 2015-01-01 00:00:00 UTC and is an instant.
type timestampColumn struct {
	presence
	b       *array.TimestampBuilder
	unit    arrow.TimeUnit // the builder's
	instant bool
	loc     *time.Location // writer zone of a TIMESTAMP; nil when UTC
	base    int64          // 2015-01-01 00:00:00 in loc, in Unix seconds
	secs    intReader
	nanos   intReader
	rawSecs []int64
	rawNano []int64
}

func (c *timestampColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	enc := s.encoding(c.id)
	data, _ := s.stream(c.id, streamData)
	sec, _ := s.stream(c.id, streamSecondary)
	var err error
	if c.secs, err = newIntReader(enc, data, true); err != nil {
		return err
	}
	if c.nanos, err = newIntReader(enc, sec, false); err != nil {
		return err
	}
	c.loc, c.base = nil, orcEpoch
	if !c.instant && s.loc != nil && s.loc != time.UTC {
		c.loc = s.loc
		c.base = time.Date(2015, 1, 1, 0, 0, 0, 0, s.loc).Unix()
	}
	return nil
}

func (c *timestampColumn) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	secs, nanos := resize(&c.rawSecs, k), resize(&c.rawNano, k)
	if err := c.secs.next(secs); err != nil {
		return fmt.Errorf("column %d DATA: %w", c.id, err)
	}
	if err := c.nanos.next(nanos); err != nil {
		return fmt.Errorf("column %d SECONDARY: %w", c.id, err)
	}
	c.b.Reserve(n)
	j := 0
	for i := range n {
		if valid != nil && !valid[i] {
			c.b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		ts, err := c.value(secs[j], nanos[j])
		if err != nil {
			return fmt.Errorf("column %d: %w", c.id, err)
		}
		c.b.UnsafeAppend(ts)
		j++
	}
	return nil
}

// value turns one encoded (seconds, nanoseconds) pair into ticks of the
// column's unit since the Unix epoch.
func (c *timestampColumn) value(sec, encNanos int64) (arrow.Timestamp, error) {
	// Arrow's ORC writer (pyarrow) stores the nanoseconds of times before
	// 1970 as negative numbers; ORC's Java and C++ readers add them as they
	// are, and so do we.
	nanos := decodeNanos(encNanos)
	if nanos < -999_999_999 || nanos > 999_999_999 {
		return 0, fmt.Errorf("%w: timestamp nanoseconds %d", ErrInvalidFile, nanos)
	}
	sec += c.base
	// Writers take the seconds of a time before 1970 by truncating its
	// milliseconds toward zero, so -1.5s is stored as -1s + 0.5s. ORC Java
	// undoes that when the whole milliseconds are negative and the
	// nanoseconds hold more than a millisecond; so do we.
	if ms := sec*1000 + nanos/1_000_000; ms < 0 && nanos > 999_999 {
		sec--
	}
	if c.loc != nil {
		// The offset of the writer's zone at that instant turns it back
		// into the wall-clock time the writer was given.
		_, off := time.Unix(sec, nanos).In(c.loc).Zone()
		sec += int64(off)
	}
	return ticks(sec, nanos, c.unit)
}

// ticks returns sec seconds and nanos nanoseconds (|nanos| < 1e9) as ticks
// of unit, rounding down as Iceberg Java does (Math.floorDiv), or
// ErrUnsupported when they do not fit an int64. The check is exact:
// 2262-04-11 23:47:16.854775807, the last nanosecond an int64 holds, is a
// time writers store (Spark writes the same instant's microsecond into ORC
// files), and microseconds reach the year 294247.
func ticks(sec, nanos int64, unit arrow.TimeUnit) (arrow.Timestamp, error) {
	tick := int64(unit.Multiplier())
	perSec := 1_000_000_000 / tick
	frac := nanos / tick
	if nanos%tick < 0 {
		frac--
	}
	if sec > math.MaxInt64/perSec || sec < math.MinInt64/perSec {
		return 0, fmt.Errorf("%w: timestamp %d s is outside the range of %s ticks", ErrUnsupported, sec, unit)
	}
	t := sec * perSec
	if (frac > 0 && t > math.MaxInt64-frac) || (frac < 0 && t < math.MinInt64-frac) {
		return 0, fmt.Errorf("%w: timestamp %d s %d ns is outside the range of %s ticks", ErrUnsupported, sec, nanos, unit)
	}
	return arrow.Timestamp(t + frac), nil
}

// decodeNanos undoes the trailing-zero compression of the nanoseconds: the
// low three bits z, when not zero, say that z+1 zeros were dropped. The
// shift is arithmetic, as in ORC's readers, so negative nanoseconds survive.
func decodeNanos(v int64) int64 {
	n, z := v>>3, v&7
	if z != 0 {
		for range z + 1 {
			n *= 10
		}
	}
	return n
}
