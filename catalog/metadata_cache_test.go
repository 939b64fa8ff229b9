package catalog

import (
	"context"
	"errors"
	"testing"
	"time"
)

// countingSource is a catalog's lookup and parse, counted.
type countingSource struct {
	location       string
	err            error
	locates, reads int
}

func (s *countingSource) locate(context.Context) (string, error) {
	s.locates++
	return s.location, s.err
}

func (s *countingSource) read(_ context.Context, loc string) (*Table, int64, error) {
	s.reads++
	return &Table{MetadataLocation: loc}, 10, nil
}

func (s *countingSource) load(t *testing.T, c *MetadataCache) (*Table, error) {
	t.Helper()
	return c.Load(context.Background(), "t", s.locate, s.read)
}

func TestMetadataCache(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		refresh        time.Duration
		maxBytes       int64
		moveTo         string // the location after the first load
		locates, reads int    // after the second load
		secondLocation string
	}{
		{"a fresh table costs no lookup", time.Hour, 100, "v2", 1, 1, "v1"},
		{"a stale table with the same location is not parsed again", 0, 100, "v1", 2, 1, "v1"},
		{"a stale table with a new location is parsed again", 0, 100, "v2", 2, 2, "v2"},
		{"a cache of no bytes parses every time", time.Hour, 0, "v1", 2, 2, "v1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewMetadataCache(tc.refresh, tc.maxBytes)
			src := &countingSource{location: "v1"}
			if _, err := src.load(t, c); err != nil {
				t.Fatal(err)
			}
			src.location = tc.moveTo
			tbl, err := src.load(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if src.locates != tc.locates || src.reads != tc.reads || tbl.MetadataLocation != tc.secondLocation {
				t.Fatalf("locates %d reads %d location %s, want %d %d %s",
					src.locates, src.reads, tbl.MetadataLocation, tc.locates, tc.reads, tc.secondLocation)
			}
		})
	}
}

func TestMetadataCacheLookupErrorServesNothingStale(t *testing.T) {
	t.Parallel()
	c := NewMetadataCache(0, 100)
	src := &countingSource{location: "v1"}
	if _, err := src.load(t, c); err != nil {
		t.Fatal(err)
	}
	src.err = ErrTableNotFound
	if _, err := src.load(t, c); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("%v, want the lookup's error", err)
	}
	c.Drop("t")
	src.err = nil
	if _, err := src.load(t, c); err != nil || src.reads != 2 {
		t.Fatalf("after Drop: %v, %d reads, want a new parse", err, src.reads)
	}
}
