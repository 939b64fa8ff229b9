package fileio

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestScheme(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"/a/b":                   "",
		"rel/a":                  "",
		"file:/a":                "file",
		"S3A://warehouse/t":      "s3a",
		"hdfs://localhost:20500": "hdfs",
		"abfss://c@acct.dfs/x":   "abfss",
		`C:\warehouse\t`:         "",
		"a/b:c":                  "",
		"9p://x":                 "",
	}
	for in, want := range cases {
		if got := Scheme(in); got != want {
			t.Errorf("Scheme(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolver(t *testing.T) {
	t.Parallel()
	mem := NewMem()
	mem.Put("s3://bucket/k", []byte("remote"))
	r := NewResolver(WithScheme("S3", mem))
	ctx := context.Background()

	cases := []struct {
		name     string
		location string
		want     error
	}{
		{"registered scheme, case-insensitive", "S3://bucket/k", ErrNotFound}, // Mem matches exact strings
		{"registered scheme", "s3://bucket/k", nil},
		{"local default for bare paths", "fileio.go", nil},
		{"unknown scheme", "hdfs://nn:8020/wh/t", ErrUnsupportedScheme},
		{"unregistered s3a", "s3a://bucket/k", ErrUnsupportedScheme},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := r.Open(ctx, tc.location)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open(%q) = %v, want %v", tc.location, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.location) {
				t.Errorf("error %q does not name %q", err, tc.location)
			}
		})
	}
}

func TestResolverRegisterAndWithoutLocal(t *testing.T) {
	t.Parallel()
	r := NewResolver(WithoutLocal())
	if _, err := r.Open(context.Background(), "fileio.go"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Fatalf("without local: %v", err)
	}
	mem := NewMem()
	mem.Put("hdfs://nn/x", nil)
	r.Register("hdfs", mem)
	f, err := r.Open(context.Background(), "hdfs://nn/x")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
