package gcs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

func TestParseLocation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		loc         string
		bucket, key string
		err         error
	}{
		{"gs://b/wh/t/data/a.parquet", "b", "wh/t/data/a.parquet", nil},
		{"gs://b", "b", "", nil},
		{"gs:///key", "", "", fileio.ErrNotFound},
		{"s3://b/key", "", "", fileio.ErrUnsupportedScheme},
	}
	for _, tc := range cases {
		l, err := parseLocation(tc.loc)
		if !errors.Is(err, tc.err) || (err == nil && (l.bucket != tc.bucket || l.key != tc.key)) {
			t.Errorf("parseLocation(%q) = %+v, %v; want %s %s %v", tc.loc, l, err, tc.bucket, tc.key, tc.err)
		}
	}
}

func TestServiceHostIsTheJSONAPIBase(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"http://127.0.0.1:4443":             "http://127.0.0.1:4443/storage/v1/",
		"http://127.0.0.1:4443/":            "http://127.0.0.1:4443/storage/v1/",
		"storage.example.com":               "https://storage.example.com/storage/v1/",
		"http://127.0.0.1:4443/storage/v1/": "http://127.0.0.1:4443/storage/v1/",
	}
	for in, want := range cases {
		if got, err := endpointURL(in); err != nil || got != want {
			t.Errorf("endpointURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := endpointURL("http://h:1/some/path"); err == nil {
		t.Error("a service host with a path was accepted")
	}
}

func TestCredentialSourceIsNamedAndBadSettingsAreRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		props  fileio.Properties
		source string
		err    string
	}{
		{"no settings use application default credentials", nil, "application default credentials", ""},
		{"the token anon means anonymous", fileio.Properties{PropToken: "anon"}, "anonymous", ""},
		{"no-auth means anonymous", fileio.Properties{PropNoAuth: "true"}, "anonymous", ""},
		{"a token is a static token", fileio.Properties{PropToken: "ya29.secret", PropTokenExpiresAt: "1767225600000"}, PropToken, ""},
		{"a bad expiry is refused", fileio.Properties{PropToken: "ya29.secret", PropTokenExpiresAt: "soon"}, "", PropTokenExpiresAt},
		{"an external account is refused", fileio.Properties{PropCredentialsJSON: `{"type":"external_account"}`}, "", "external_account"},
		{"JSON that is not JSON is refused", fileio.Properties{PropCredentialsJSON: `{"type":`}, "", "not JSON"},
		{"a missing key file is refused", fileio.Properties{PropCredentialsJSON: "/nonexistent/key.json"}, "", "key file"},
		{"an unknown access is refused", fileio.Properties{PropAccess: "all"}, "", PropAccess},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, source, err := credentialOptions(tc.props)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "ya29.secret") {
					t.Errorf("error %q holds the token", err)
				}
				return
			}
			if err != nil || !strings.Contains(source, tc.source) {
				t.Fatalf("source = %q, %v; want one naming %q", source, err, tc.source)
			}
		})
	}
}

func TestNewSendsNothingAndCloseOfAnUnusedFileIOMakesNoClient(t *testing.T) {
	t.Parallel()
	// Application default credentials would be searched for (the metadata
	// server asked) by the first call; New and Close make none.
	fio, err := New(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fio.Close(); err != nil || fio.made.Load() {
		t.Fatalf("Close = %v, client made %v; want neither", err, fio.made.Load())
	}
}
