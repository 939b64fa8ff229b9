package rest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/rest"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/restfixture"
)

// sigV4Gateway stands in front of a REST server as an AWS gateway does: it
// recomputes each request's SigV4 signature from what arrived, with AWS's
// own signer and the secret it knows, answers 403 to a request whose
// signature differs, and forwards the others with the signature removed
// and the relocated Authorization header restored.
type sigV4Gateway struct {
	t               *testing.T
	key, secret     string
	region, service string
	proxy           *httputil.ReverseProxy

	mu       sync.Mutex
	verified int
	original []string // the Original-Authorization headers seen
}

func newSigV4Gateway(t *testing.T, target, key, secret, region, service string) *httptest.Server {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	g := &sigV4Gateway{t: t, key: key, secret: secret, region: region, service: service, proxy: httputil.NewSingleHostReverseProxy(u)}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if g.verified == 0 {
			t.Error("the gateway verified no request")
		}
	})
	return srv
}

func (g *sigV4Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if why := g.verify(r, body); why != "" {
		g.t.Logf("gateway refused %s %s: %s", r.Method, r.URL.RequestURI(), why)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"message":"The request signature we calculated does not match the signature you provided."}`))
		return
	}
	g.mu.Lock()
	g.verified++
	if o := r.Header.Get("Original-Authorization"); o != "" {
		g.original = append(g.original, o)
	}
	g.mu.Unlock()
	r.Header.Del("Authorization")
	if o := r.Header.Get("Original-Authorization"); o != "" {
		r.Header.Set("Authorization", o)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.proxy.ServeHTTP(w, r)
}

// verify returns why r's signature is wrong, or "".
func (g *sigV4Gateway) verify(r *http.Request, body []byte) string {
	auth := r.Header.Get("Authorization")
	const algorithm = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, algorithm) {
		return "not signed: " + auth
	}
	fields := map[string]string{}
	for _, f := range strings.Split(strings.TrimPrefix(auth, algorithm), ", ") {
		k, v, _ := strings.Cut(f, "=")
		fields[k] = v
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return "X-Amz-Date: " + err.Error()
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if got := r.Header.Get("X-Amz-Content-Sha256"); got != hash {
		return "X-Amz-Content-Sha256 " + got + " is not the body's " + hash
	}
	// The request as it arrived, with the headers the signature names.
	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return err.Error()
	}
	for _, name := range strings.Split(fields["SignedHeaders"], ";") {
		if name != "host" && name != "content-length" {
			again.Header[http.CanonicalHeaderKey(name)] = r.Header.Values(name)
		}
	}
	creds := aws.Credentials{AccessKeyID: g.key, SecretAccessKey: g.secret, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hash, g.service, g.region, when); err != nil {
		return err.Error()
	}
	if want := again.Header.Get("Authorization"); want != auth {
		return "signature " + auth + ", want " + want
	}
	return ""
}

// TestSigV4SignedCatalogBehindAGateway runs the catalog against the Iceberg
// REST fixture behind a gateway that checks every request's SigV4
// signature with AWS's signer: listing, loading, creating, committing and
// dropping (GET, POST with bodies, DELETE; a nested namespace's escaped
// separator in the path) all pass, a wrong secret is refused as
// permission denied, and a bearer token rides along as
// Original-Authorization.
func TestSigV4SignedCatalogBehindAGateway(t *testing.T) {
	t.Parallel()
	// Strict mode: the backing JdbcCatalog refuses tables in namespaces
	// that do not exist, as the shared checks expect.
	fixture := restfixture.Start(t, restfixture.Options{Props: map[string]string{"jdbc.strict-mode": "true"}})
	const key, secret, region = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "eu-central-1"
	gw := newSigV4Gateway(t, fixture.URI, key, secret, region, "execute-api")
	ctx := context.Background()
	props := fileio.Properties{"uri": gw.URL, "rest.auth.type": "sigv4", "rest.signing-region": region,
		"rest.access-key-id": key, "rest.secret-access-key": secret, "token": "bearer-for-the-catalog"}
	cat, err := rest.New(ctx, "lake", props, rest.WithFileIO(localIO))
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range [][]string{{"db"}, {"db", "nested"}} {
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
			t.Fatalf("create namespace %v: %v", ns, err)
		}
	}
	committest.Lifecycle(t, ctx, cat, []string{"db", "nested"}, []string{"nowhere"})

	t.Run("a wrong secret is refused as permission denied", func(t *testing.T) {
		bad := fileio.Properties{"uri": gw.URL, "rest.sigv4-enabled": "true", "rest.signing-region": region,
			"rest.access-key-id": key, "rest.secret-access-key": "wrong-secret-value"}
		cat, err := rest.New(ctx, "lake", bad, rest.WithFileIO(localIO))
		if err != nil {
			t.Fatal(err)
		}
		_, err = cat.ListTables(ctx)
		if !errors.Is(err, catalog.ErrCatalogPermissionDenied) || strings.Contains(err.Error(), "wrong-secret-value") {
			t.Fatalf("list tables signed with a wrong secret: %v, want permission denied without the secret", err)
		}
	})
	t.Run("the delegate's bearer token is relocated", func(t *testing.T) {
		g := gw.Config.Handler.(*sigV4Gateway)
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.original) == 0 || g.original[0] != "Bearer bearer-for-the-catalog" {
			t.Fatalf("Original-Authorization headers seen: %q", g.original)
		}
	})
}

func TestAuthTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props fileio.Properties
		fails string
	}{
		{"basic without a password", fileio.Properties{"rest.auth.type": "basic", "rest.auth.basic.username": "u"}, "needs rest.auth.basic.username and rest.auth.basic.password"},
		{"an unknown type", fileio.Properties{"rest.auth.type": "kerberos"}, `"kerberos" is not one of`},
		{"sigv4 delegating to sigv4", fileio.Properties{"rest.auth.type": "sigv4", "rest.auth.sigv4.delegate-auth-type": "sigv4"}, "cannot be sigv4"},
		{"sigv4 with half a key", fileio.Properties{"rest.auth.type": "sigv4", "rest.signing-region": "us-east-1", "rest.access-key-id": "AK"}, "must be set together"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.props["uri"] = "http://127.0.0.1:1"
			_, err := rest.New(context.Background(), "lake", tt.props)
			if err == nil || !strings.Contains(err.Error(), tt.fails) {
				t.Fatalf("New: %v, want an error saying %q", err, tt.fails)
			}
		})
	}
}
