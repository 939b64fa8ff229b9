package main

import (
	"errors"
	"flag"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// issueExample is the configuration of issue 12, as a user copies it from
// their .pyiceberg.yaml.
const issueExample = `
catalogs:
  lake:                      # tables are named lake.<namespace>.<table>
    type: directory          # or rest, sql
    warehouse: s3://bucket/warehouse
    s3.endpoint: http://127.0.0.1:7070
    s3.access-key-id: AKIAEXAMPLE
    s3.secret-access-key: ${env:ICEFLIGHT_TEST_SECRET}
    s3.region: us-east-1
    s3.path-style-access: true
    py-io-impl: pyiceberg.io.pyarrow.PyArrowFileIO
  prod:
    type: rest
    uri: https://catalog.example.com/api/catalog
    credential: ${file:CREDENTIAL_FILE}
    warehouse: analytics
    gcs:
      project-id: 42
serve:
  listen: 127.0.0.1:9999
  max-streams: 7
`

func TestConfigFileReadsPyIcebergProperties(t *testing.T) {
	t.Setenv("ICEFLIGHT_TEST_SECRET", "the-secret-key")
	cred := writeFile(t, "credential", "client-id:client-secret\n")
	path := writeFile(t, "iceflight.yaml", strings.Replace(issueExample, "CREDENTIAL_FILE", cred, 1))
	cfg, err := loadConfig(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fileio.Properties{
		"lake": {"type": "directory", "warehouse": "s3://bucket/warehouse", "s3.endpoint": "http://127.0.0.1:7070",
			"s3.access-key-id": "AKIAEXAMPLE", "s3.secret-access-key": "the-secret-key", "s3.region": "us-east-1",
			"s3.path-style-access": "true", "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"},
		"prod": {"type": "rest", "uri": "https://catalog.example.com/api/catalog", "credential": "client-id:client-secret",
			"warehouse": "analytics", "gcs.project-id": "42"},
	}
	if !reflect.DeepEqual(cfg.catalogs, want) {
		t.Errorf("catalogs =\n%v\nwant\n%v", cfg.catalogs, want)
	}
	if want := map[string]string{"listen": "127.0.0.1:9999", "max-streams": "7"}; !reflect.DeepEqual(cfg.serve, want) {
		t.Errorf("serve = %v, want %v", cfg.serve, want)
	}
}

func TestEnvironmentSetsCatalogPropertiesAsPyIcebergDoes(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "iceflight.yaml", "catalogs:\n  lake:\n    type: directory\n    s3.region: us-east-1\n")
	cfg, err := loadConfig(path, []string{
		"ICEFLIGHT_CATALOG__LAKE__S3__REGION=eu-west-1", // the environment wins over the file
		"ICEFLIGHT_CATALOG__LAKE__S3__ACCESS_KEY_ID=AKIA",
		"ICEFLIGHT_CATALOG__OTHER__WAREHOUSE=/wh",
		"ICEFLIGHT_CATALOG__OTHER__TYPE=directory",
		"ICEFLIGHT_CATALOG__BROKEN=x", // no property
		"PYICEBERG_CATALOG__LAKE__URI=ignored",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fileio.Properties{
		"lake":  {"type": "directory", "s3.region": "eu-west-1", "s3.access-key-id": "AKIA"},
		"other": {"type": "directory", "warehouse": "/wh"},
	}
	if !reflect.DeepEqual(cfg.catalogs, want) {
		t.Errorf("catalogs = %v, want %v", cfg.catalogs, want)
	}
}

func TestConfigErrorsNameTheKeyAndNeverTheValue(t *testing.T) {
	const secret = "planted-s3cr3t"
	tests := []struct {
		name, yaml, says string
	}{
		{"an unknown top-level key", "catalogs: {}\ncatalog:\n  lake: {}\n", `unknown field "catalog"`},
		{"malformed YAML beside a secret", "catalogs:\n  lake:\n    s3.secret-access-key: " + secret + "\n   type: [\n", "config "},
		{"a variable that is not set", "catalogs:\n  lake:\n    token: ${env:ICEFLIGHT_TEST_UNSET}\n", "catalog lake: token: environment variable ICEFLIGHT_TEST_UNSET is not set"},
		{"a secret file that is missing", "catalogs:\n  lake:\n    token: ${file:/nonexistent/" + secret + "x}\n", "catalog lake: token: secret file"},
		{"a list where a value goes", "catalogs:\n  lake:\n    s3.region: [a, b]\n", "catalog lake: s3.region: want a string"},
		{"a duplicate key", "catalogs:\n  lake:\n    token: a\n    token: " + secret + "\n", "token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadConfig(writeFile(t, "iceflight.yaml", tt.yaml), nil)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("loadConfig: %v, want an error saying %q", err, tt.says)
			}
			if strings.Contains(err.Error(), secret) && !strings.Contains(tt.name, "missing") {
				t.Errorf("the error shows a value: %v", err)
			}
		})
	}
}

func TestServeSectionSetsFlagsTheCommandLineLeaves(t *testing.T) {
	t.Parallel()
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg.flags(fs)
	if err := fs.Parse([]string{"--listen", "127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	if err := applyServe(fs, map[string]string{"listen": "127.0.0.1:2", "max-streams": "7"}); err != nil {
		t.Fatal(err)
	}
	if cfg.listen != "127.0.0.1:1" || cfg.maxStreams != 7 {
		t.Errorf("listen %s, max-streams %d: want the command line's listen and the file's max-streams", cfg.listen, cfg.maxStreams)
	}
	err := applyServe(fs, map[string]string{"listne": "x", "config": "y"})
	if err == nil || !strings.Contains(err.Error(), "unknown flags config, listne") {
		t.Errorf("unknown flags: %v", err)
	}
}

func TestAMissingConfigFileIsAnError(t *testing.T) {
	t.Parallel()
	_, err := loadConfig(filepath.Join(t.TempDir(), "none.yaml"), nil)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("loadConfig of a missing file: %v", err)
	}
}
