package s3

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

func TestParseMapsEverySchemeToTheSameObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		location, bucket, key string
	}{
		{"s3://bucket/wh/db/t/data/f.parquet", "bucket", "wh/db/t/data/f.parquet"},
		{"s3a://bucket/wh/db/t/data/f.parquet", "bucket", "wh/db/t/data/f.parquet"},
		{"s3n://bucket/wh/db/t/data/f.parquet", "bucket", "wh/db/t/data/f.parquet"},
		{"S3A://bucket/k", "bucket", "k"},
		{"s3://bucket", "bucket", ""},
		{"s3://bucket/", "bucket", ""},
		{"s3://bucket/a%20b c", "bucket", "a%20b c"},
	}
	for _, tc := range tests {
		o, err := parse(tc.location)
		if err != nil {
			t.Errorf("parse(%q): %v", tc.location, err)
			continue
		}
		if o.bucket != tc.bucket || o.key != tc.key {
			t.Errorf("parse(%q) = bucket %q key %q, want %q %q", tc.location, o.bucket, o.key, tc.bucket, tc.key)
		}
	}
}

func TestParseRejectsWhatIsNoS3Location(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{"gs://b/k", "/local/path", "s3:/b/k", "s3:///k"} {
		if _, err := parse(loc); err == nil {
			t.Errorf("parse(%q) succeeded", loc)
		}
	}
	if _, err := parse("gs://b/k"); !errors.Is(err, fileio.ErrUnsupportedScheme) {
		t.Errorf("parse(gs://...) = %v, want ErrUnsupportedScheme", err)
	}
}

func TestPathStyle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		props    fileio.Properties
		endpoint string
		want     bool
	}{
		{"AWS itself is addressed by virtual host", nil, "", false},
		{"an endpoint override is addressed by path", nil, "http://127.0.0.1:7070", true},
		{"s3.force-virtual-addressing keeps virtual hosts", fileio.Properties{PropForceVirtual: "true"}, "http://minio:9000", false},
		{"s3.path-style-access wins", fileio.Properties{PropPathStyleAccess: "true"}, "", true},
		{"s3.path-style-access false wins", fileio.Properties{PropPathStyleAccess: "false"}, "http://r2", false},
	}
	for _, tc := range tests {
		got, err := pathStyle(tc.props, tc.endpoint)
		if err != nil || got != tc.want {
			t.Errorf("%s: pathStyle = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestNewRejectsBadProperties(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props fileio.Properties
	}{
		{"a key id without its secret", fileio.Properties{PropAccessKeyID: "AKIA"}},
		{"a secret without its key id", fileio.Properties{PropSecretAccessKey: "s3cr3t-value"}},
		{"anonymous that is no boolean", fileio.Properties{PropAnonymous: "maybe"}},
		{"a connect timeout that is no number", fileio.Properties{PropConnectTimeout: "soon", PropAnonymous: "true"}},
	}
	for _, tc := range tests {
		_, err := New(context.Background(), tc.props)
		if err == nil {
			t.Errorf("%s: New succeeded", tc.name)
			continue
		}
		if v := tc.props[PropSecretAccessKey]; v != "" && strings.Contains(err.Error(), v) {
			t.Errorf("%s: the error shows the secret: %v", tc.name, err)
		}
	}
}

func TestBackendServesS3Schemes(t *testing.T) {
	t.Parallel()
	if Backend.Name != "S3" || len(Backend.Schemes) != 3 {
		t.Fatalf("Backend = %+v", Backend)
	}
	fio, err := Backend.New(context.Background(), fileio.Properties{PropAnonymous: "true", PropRegion: "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fio.(fileio.SizedOpener); !ok {
		t.Errorf("%T is no SizedOpener", fio)
	}
}
