package azure

import (
	"errors"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

func TestParseLocation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		loc                            string
		account, suffix, container, bl string
		err                            error
	}{
		{"abfss://c@acct.dfs.core.windows.net/wh/t/a.parquet", "acct", "core.windows.net", "c", "wh/t/a.parquet", nil},
		{"abfs://c@acct.dfs.core.chinacloudapi.cn/x", "acct", "core.chinacloudapi.cn", "c", "x", nil},
		{"wasbs://c@acct.blob.core.windows.net/x", "acct", "core.windows.net", "c", "x", nil},
		{"wasb://c@acct.blob.core.windows.net", "acct", "core.windows.net", "c", "", nil},
		{"abfss://acct.dfs.core.windows.net/x", "", "", "", "", fileio.ErrNotFound},
		{"abfss://@acct.dfs.core.windows.net/x", "", "", "", "", fileio.ErrNotFound},
		{"gs://b/x", "", "", "", "", fileio.ErrUnsupportedScheme},
	}
	for _, tc := range cases {
		l, err := parseLocation(tc.loc)
		if !errors.Is(err, tc.err) {
			t.Errorf("parseLocation(%q) error %v, want %v", tc.loc, err, tc.err)
			continue
		}
		if err == nil && (l.account != tc.account || l.suffix != tc.suffix || l.container != tc.container || l.blob != tc.bl) {
			t.Errorf("parseLocation(%q) = %+v", tc.loc, l)
		}
	}
}

func TestTheBlobEndpointFollowsTheProperties(t *testing.T) {
	t.Parallel()
	l, err := parseLocation("abfss://c@acct.dfs.core.windows.net/x")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		props fileio.Properties
		want  string
	}{
		{"a dfs location is read from the account's blob endpoint", nil, "https://acct.blob.core.windows.net/"},
		{"an account host with a scheme is used as it is", fileio.Properties{PropAccountHost: "http://127.0.0.1:10000/devstoreaccount1/"}, "http://127.0.0.1:10000/devstoreaccount1/"},
		{"an account host without one is https", fileio.Properties{PropAccountHost: "acct.blob.example.net"}, "https://acct.blob.example.net/"},
		{"a domain authority follows the account name", fileio.Properties{PropBlobAuthority: ".blob.example.net"}, "https://acct.blob.example.net/"},
		{"an emulator authority puts the account in the path", fileio.Properties{PropBlobAuthority: "127.0.0.1:10000", PropBlobScheme: "http"}, "http://127.0.0.1:10000/acct/"},
	}
	for _, tc := range cases {
		f := &FileIO{props: tc.props}
		if got := f.serviceURL(l); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestAServicePrincipalNeedsItsTenantAndClient(t *testing.T) {
	t.Parallel()
	_, err := tokenCredential(fileio.Properties{PropClientSecret: "s3cr3t", PropClientID: "app"})
	if err == nil {
		t.Fatal("a client secret without a tenant was accepted")
	}
	for _, p := range []fileio.Properties{
		{PropAccountKey: "k"}, {PropSASToken: "sv=1"}, {PropSASToken + ".acct.dfs.core.windows.net": "sv=1"},
		{PropConnectionString: "x"}, {PropAnon: "true"},
	} {
		if c, err := tokenCredential(p); c != nil || err != nil {
			t.Errorf("tokenCredential(%v) = %v, %v; want no Azure AD credential", p, c, err)
		}
	}
}
