package engine

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
)

const (
	dbToken  = "db-token-0123456789abcdef"
	allToken = "all-token-0123456789abcdef"
)

// authTokens and authUsers are the credentials of the gRPC tests: alice
// reads "db" (plain-text password), bob everything (sha256 form), carol has
// a ':' in her password.
var (
	authTokens = "# test tokens\n" + dbToken + " db\n\n" + allToken + " *\n"
	authUsers  = "alice s3cret! db\nbob sha256:" + sha256Hex("hunter2") + " *\ncarol pa:ss other\n"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func newCredentials(t *testing.T, tokens, users string) *Credentials {
	t.Helper()
	c := &Credentials{tokens: map[[sha256.Size]byte]*Principal{}, users: map[string]user{}}
	if tokens != "" {
		if err := c.parseTokens(strings.NewReader(tokens), "tokens.txt"); err != nil {
			t.Fatal(err)
		}
	}
	if users != "" {
		if err := c.parseUsers(strings.NewReader(users), "users.txt"); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

var sessionSecret = []byte("0123456789abcdef0123456789abcdef")

func TestAuthTokensFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    map[string][]string // token -> namespaces
		wantErr string
	}{
		{name: "comments, blank lines and spaces after commas are allowed",
			text: "# comment\n\n  " + dbToken + "   db, other.sub \r\n" + allToken + " *\n",
			want: map[string][]string{dbToken: {"db", "other.sub"}, allToken: {"*"}}},
		{name: "token shorter than 16 characters", text: "# c\nshort-token db\n", wantErr: "tokens.txt:2: token has 11 characters, need at least 16"},
		{name: "duplicate token names both lines", text: dbToken + " db\n" + dbToken + " other\n", wantErr: "tokens.txt:2: duplicate token (first on line 1)"},
		{name: "missing namespaces", text: dbToken + "\n", wantErr: "tokens.txt:1: no namespaces (use * for all)"},
		{name: "missing comma", text: dbToken + " db other\n", wantErr: `tokens.txt:1: namespace "db other" holds a space`},
		{name: "empty namespace", text: dbToken + " db,,other\n", wantErr: "tokens.txt:1: empty namespace"},
		{name: "wildcard inside a namespace", text: dbToken + " db.*\n", wantErr: `tokens.txt:1: namespace "db.*": only a lone * is a wildcard`},
		{name: "empty namespace part", text: dbToken + " db..x\n", wantErr: `tokens.txt:1: namespace "db..x"`},
		{name: "non-ASCII token", text: "tökén-0123456789abcdef db\n", wantErr: "tokens.txt:1: token holds a character that is not printable ASCII"},
		{name: "file without tokens", text: "# nothing\n\n", wantErr: "tokens.txt: no tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &Credentials{tokens: map[[sha256.Size]byte]*Principal{}}
			err := c.parseTokens(strings.NewReader(tt.text), "tokens.txt")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), dbToken) {
					t.Fatalf("error %q repeats the token", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.tokens) != len(tt.want) {
				t.Fatalf("%d tokens, want %d", len(c.tokens), len(tt.want))
			}
			for tok, ns := range tt.want {
				p, ok := c.tokens[sha256.Sum256([]byte(tok))]
				if !ok || !slices.Equal(p.Namespaces, ns) || strings.Contains(p.Name, tok) {
					t.Errorf("token %s: principal %+v, want namespaces %v and a name that hides the token", tok, p, ns)
				}
			}
		})
	}
}

func TestAuthUsersFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		text     string
		user     string
		password string
		wantNS   []string
		wantErr  string
	}{
		{name: "plain-text password", text: "alice s3cret db,sales\n", user: "alice", password: "s3cret", wantNS: []string{"db", "sales"}},
		{name: "sha256 password digest", text: "# hashed\nbob sha256:" + strings.ToUpper(sha256Hex("hunter2")) + " *\n", user: "bob", password: "hunter2", wantNS: []string{"*"}},
		{name: "password may hold ':'", text: "carol pa:ss db\n", user: "carol", password: "pa:ss", wantNS: []string{"db"}},
		{name: "sha256 digest of the wrong length", text: "bob sha256:abcd db\n", wantErr: `users.txt:1: user "bob": sha256: needs 64 hex digits`},
		{name: "user name with ':'", text: "a:b pw db\n", wantErr: `users.txt:1: user "a:b": name holds ':'`},
		{name: "duplicate user", text: "alice a db\n\nalice b db\n", wantErr: `users.txt:3: duplicate user "alice"`},
		{name: "missing password", text: "alice\n", wantErr: "users.txt:1: want USER PASSWORD NAMESPACE"},
		{name: "missing namespaces", text: "alice pw\n", wantErr: `users.txt:1: user "alice": no namespaces`},
		{name: "file without users", text: "#\n", wantErr: "users.txt: no users"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &Credentials{users: map[string]user{}}
			err := c.parseUsers(strings.NewReader(tt.text), "users.txt")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			a, err := NewAuthenticator(c, sessionSecret)
			if err != nil {
				t.Fatal(err)
			}
			p, err := a.checkBasic(base64.StdEncoding.EncodeToString([]byte(tt.user + ":" + tt.password)))
			if err != nil || p.Name != tt.user || !slices.Equal(p.Namespaces, tt.wantNS) {
				t.Fatalf("login = %+v, %v; want %s with %v", p, err, tt.user, tt.wantNS)
			}
			if _, err := a.checkBasic(base64.StdEncoding.EncodeToString([]byte(tt.user + ":" + tt.password + "x"))); !errors.Is(err, errUnauthenticated) {
				t.Fatalf("wrong password: err = %v", err)
			}
		})
	}
}

func TestAuthLoadCredentials(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens, users := filepath.Join(dir, "tokens"), filepath.Join(dir, "users")
	for path, text := range map[string]string{tokens: authTokens, users: authUsers} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := LoadCredentials(tokens, users)
	if err != nil || len(c.tokens) != 2 || len(c.users) != 3 {
		t.Fatalf("LoadCredentials = %+v, %v", c, err)
	}
	for _, paths := range [][2]string{{"", ""}, {filepath.Join(dir, "missing"), ""}} {
		if _, err := LoadCredentials(paths[0], paths[1]); err == nil {
			t.Errorf("LoadCredentials(%q, %q) succeeded", paths[0], paths[1])
		}
	}
	if _, err := NewAuthenticator(c, []byte("too short")); err == nil {
		t.Error("NewAuthenticator accepted a 9-byte session secret")
	}
}

func TestAuthPrincipalCanRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		grants []string
		ns     string
		want   bool
	}{
		{"a namespace grant reads its tables", []string{"db"}, "db", true},
		{"a namespace grant covers nested namespaces", []string{"db"}, "db.sub.deeper", true},
		{"a grant is not a string prefix", []string{"db"}, "dbx", false},
		{"a nested grant does not cover its parent", []string{"db.sub"}, "db", false},
		{"a nested grant reads its own tables", []string{"other", "db.sub"}, "db.sub", true},
		{"root tables need *", []string{"db"}, "", false},
		{"* reads root tables", []string{"*"}, "", true},
		{"* reads everything", []string{"*"}, "a.b.c", true},
		{"no grants read nothing", nil, "db", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ns []string
			if tt.ns != "" {
				ns = strings.Split(tt.ns, ".")
			}
			p := &Principal{Name: "p", Namespaces: tt.grants}
			if got := p.CanRead(ns); got != tt.want {
				t.Errorf("%v CanRead(%q) = %v, want %v", tt.grants, tt.ns, got, tt.want)
			}
		})
	}
}

func TestAuthSessionTokens(t *testing.T) {
	t.Parallel()
	creds := newCredentials(t, authTokens, authUsers)
	newSecret := []byte("fedcba9876543210fedcba9876543210")
	a, _ := NewAuthenticator(creds, sessionSecret)
	rotated, _ := NewAuthenticator(creds, newSecret, WithSessionVerifySecrets(sessionSecret))
	other, _ := NewAuthenticator(creds, newSecret)
	past, _ := NewAuthenticator(creds, sessionSecret, WithSessionTTL(time.Minute))
	past.now = func() time.Time { return time.Now().Add(-2 * time.Minute) }
	alice := &Principal{Name: "alice", Namespaces: []string{"db"}}
	issue := func(a *Authenticator) string {
		tok, err := a.issueSession(alice)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	tok := issue(a)
	body, _, _ := strings.Cut(strings.TrimPrefix(tok, sessionPrefix), ".")
	forged := strings.Replace(tok, body, base64.RawURLEncoding.EncodeToString(
		[]byte(`{"sub":"alice","ns":["*"],"iat":0,"exp":99999999999999}`)), 1)
	tests := []struct {
		name    string
		verify  *Authenticator
		token   string
		wantErr string
	}{
		{"a session verifies on the process that issued it", a, tok, ""},
		{"a session verifies under an older secret during rotation", rotated, tok, ""},
		{"a session of the new secret does not verify on a process without it", a, issue(rotated), "invalid session token"},
		{"a session signed with another secret is refused", other, tok, "invalid session token"},
		{"a session whose claims were changed is refused", a, forged, "invalid session token"},
		{"a truncated session is refused", a, sessionPrefix + body, "invalid session token"},
		{"an expired session is refused", a, issue(past), "session of alice expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := tt.verify.verifyBearer(tt.token)
			if tt.wantErr != "" {
				if !errors.Is(err, errUnauthenticated) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || p.Name != "alice" || !slices.Equal(p.Namespaces, []string{"db"}) {
				t.Fatalf("verify = %+v, %v", p, err)
			}
		})
	}
}

func TestAuthorizeWithoutInterceptor(t *testing.T) {
	t.Parallel()
	a, err := NewAuthenticator(newCredentials(t, authTokens, ""), sessionSecret)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := catalog.Identifier{"db", "t"}
	var disabled *Authenticator
	if err := disabled.Authorize(ctx, id); err != nil {
		t.Errorf("auth disabled: authorize = %v", err)
	}
	if ids, err := disabled.Readable(ctx, []catalog.Identifier{id}); err != nil || len(ids) != 1 {
		t.Errorf("auth disabled: readable = %v, %v", ids, err)
	}
	// A handler reached without the interceptor must not serve anyone.
	if err := a.Authorize(ctx, id); Code(err) != codes.Unauthenticated {
		t.Errorf("no principal: authorize = %v, want Unauthenticated", err)
	}
	if _, err := a.Readable(ctx, []catalog.Identifier{id}); Code(err) != codes.Unauthenticated {
		t.Errorf("no principal: readable = %v, want Unauthenticated", err)
	}
	pctx := ContextWithPrincipal(ctx, &Principal{Name: "alice", Namespaces: []string{"other"}})
	err = a.Authorize(pctx, id)
	if Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "alice may not read table db.t") {
		t.Errorf("other namespace: authorize = %v, want PermissionDenied naming alice and db.t", err)
	}
	if err := disabled.Handshake(nil); status.Code(err) != codes.Unimplemented {
		t.Errorf("auth disabled: Handshake = %v, want Unimplemented", err)
	}
}

// authTestServer is the smallest Flight service that authorizes like the
// real one: GetFlightInfo answers with the caller's name in app_metadata.
type authTestServer struct {
	flight.BaseFlightServer
	auth   *Authenticator
	tables []catalog.Identifier
}

func (s *authTestServer) Handshake(stream flight.FlightService_HandshakeServer) error {
	return s.auth.Handshake(stream)
}

func (s *authTestServer) GetFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if err := s.auth.Authorize(ctx, catalog.Identifier(desc.Path)); err != nil {
		return nil, Status(err)
	}
	p, _ := PrincipalFromContext(ctx)
	return &flight.FlightInfo{FlightDescriptor: desc, AppMetadata: []byte(p.Name), TotalRecords: -1, TotalBytes: -1}, nil
}

func (s *authTestServer) ListFlights(_ *flight.Criteria, stream flight.FlightService_ListFlightsServer) error {
	ids, err := s.auth.Readable(stream.Context(), s.tables)
	if err != nil {
		return Status(err)
	}
	for _, id := range ids {
		if err := stream.Send(&flight.FlightInfo{FlightDescriptor: &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: id}}); err != nil {
			return err
		}
	}
	return nil
}

// serveAuth starts a Flight server (with gRPC health) guarded by a on a
// free loopback port and returns an arrow-go client and a raw connection.
func serveAuth(t *testing.T, a *Authenticator) (flight.Client, *grpc.ClientConn) {
	t.Helper()
	srv := flight.NewServerWithMiddleware([]flight.ServerMiddleware{a.Middleware()})
	srv.RegisterFlightService(&authTestServer{auth: a, tables: []catalog.Identifier{
		{"db", "t"}, {"db", "sub", "u"}, {"other", "t"}, {"r"}}})
	healthpb.RegisterHealthServer(srv, health.NewServer())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.InitListener(lis)
	go srv.Serve()
	client, err := flight.NewClientWithMiddleware(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		client.Close()
		srv.Shutdown()
	})
	return client, conn
}

// login runs arrow-go's Basic handshake and returns the authorization value
// it will send on later calls.
func login(t *testing.T, client flight.Client, user, password string) string {
	t.Helper()
	ctx, err := client.AuthenticateBasicToken(context.Background(), user, password)
	if err != nil {
		t.Fatalf("AuthenticateBasicToken(%s): %v", user, err)
	}
	md, _ := metadata.FromOutgoingContext(ctx)
	vals := md.Get(authHeader)
	if len(vals) != 1 || !strings.HasPrefix(vals[0], "Bearer "+sessionPrefix) {
		t.Fatalf("AuthenticateBasicToken(%s) sends %q, want a session bearer token", user, vals)
	}
	return vals[0]
}

func TestAuthOverGRPC(t *testing.T) {
	t.Parallel()
	creds := newCredentials(t, authTokens, authUsers)
	a, _ := NewAuthenticator(creds, sessionSecret)
	// A worker: the same key, only the tokens file, no users.
	worker, _ := NewAuthenticator(newCredentials(t, authTokens, ""), sessionSecret)
	stranger, _ := NewAuthenticator(creds, []byte("fedcba9876543210fedcba9876543210"))
	past, _ := NewAuthenticator(creds, sessionSecret, WithSessionTTL(time.Minute))
	past.now = func() time.Time { return time.Now().Add(-time.Hour) }
	clientA, connA := serveAuth(t, a)
	clientW, _ := serveAuth(t, worker)
	clientS, _ := serveAuth(t, stranger)

	alice := login(t, clientA, "alice", "s3cret!")
	bob := login(t, clientA, "bob", "hunter2")
	expired, err := past.issueSession(&Principal{Name: "alice", Namespaces: []string{"db"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		client   flight.Client
		auth     string   // authorization header, "" for none
		table    []string // GetFlightInfo path; nil calls ListFlights
		want     codes.Code
		wantWho  string   // principal the handler saw
		wantList []string // tables ListFlights shows
	}{
		{name: "no credentials on a stream are Unauthenticated", client: clientA, want: codes.Unauthenticated},
		{name: "no credentials on a unary call are Unauthenticated", client: clientA, table: []string{"db", "t"}, want: codes.Unauthenticated},
		{name: "an unknown token is Unauthenticated", client: clientA, auth: "Bearer " + strings.Repeat("x", 24), table: []string{"db", "t"}, want: codes.Unauthenticated},
		{name: "a token without its scheme is Unauthenticated", client: clientA, auth: dbToken, table: []string{"db", "t"}, want: codes.Unauthenticated},
		{name: "Basic outside Handshake is Unauthenticated", client: clientA, auth: "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cret!")), table: []string{"db", "t"}, want: codes.Unauthenticated},
		{name: "a static token reads its namespace", client: clientA, auth: "Bearer " + dbToken, table: []string{"db", "t"}, want: codes.OK, wantWho: "token:"},
		{name: "the Bearer scheme is case-insensitive", client: clientA, auth: "bearer " + dbToken, table: []string{"db", "t"}, want: codes.OK, wantWho: "token:"},
		{name: "a namespace grant covers nested namespaces", client: clientA, auth: "Bearer " + dbToken, table: []string{"db", "sub", "u"}, want: codes.OK},
		{name: "another namespace is PermissionDenied", client: clientA, auth: "Bearer " + dbToken, table: []string{"other", "t"}, want: codes.PermissionDenied},
		{name: "a root table is PermissionDenied without *", client: clientA, auth: "Bearer " + dbToken, table: []string{"r"}, want: codes.PermissionDenied},
		{name: "* reads a root table", client: clientA, auth: "Bearer " + allToken, table: []string{"r"}, want: codes.OK},
		{name: "ListFlights shows only the token's namespaces", client: clientA, auth: "Bearer " + dbToken, want: codes.OK, wantList: []string{"db.t", "db.sub.u"}},
		{name: "ListFlights with * shows every table", client: clientA, auth: "Bearer " + allToken, want: codes.OK, wantList: []string{"db.t", "db.sub.u", "other.t", "r"}},
		{name: "a Basic session is usable on a second call", client: clientA, auth: alice, table: []string{"db", "t"}, want: codes.OK, wantWho: "alice"},
		{name: "a Basic session keeps the user's namespaces", client: clientA, auth: alice, table: []string{"other", "t"}, want: codes.PermissionDenied},
		{name: "a Basic session is usable on another process sharing the key", client: clientW, auth: alice, table: []string{"db", "t"}, want: codes.OK, wantWho: "alice"},
		{name: "a session lists on another process sharing the key", client: clientW, auth: bob, want: codes.OK, wantList: []string{"db.t", "db.sub.u", "other.t", "r"}},
		{name: "a session is Unauthenticated on a process with another key", client: clientS, auth: alice, table: []string{"db", "t"}, want: codes.Unauthenticated},
		{name: "an expired session is Unauthenticated", client: clientA, auth: "Bearer " + expired, table: []string{"db", "t"}, want: codes.Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if tt.auth != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, authHeader, tt.auth)
			}
			if tt.table == nil {
				got, err := listFlights(ctx, tt.client)
				if status.Code(err) != tt.want || (err == nil && !slices.Equal(got, tt.wantList)) {
					t.Fatalf("ListFlights = %v, %v; want %v, %v", got, err, tt.wantList, tt.want)
				}
				return
			}
			info, err := tt.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: tt.table})
			if status.Code(err) != tt.want {
				t.Fatalf("GetFlightInfo(%v) = %v, want %v", tt.table, err, tt.want)
			}
			if err == nil && !strings.HasPrefix(string(info.AppMetadata), tt.wantWho) {
				t.Errorf("handler saw %q, want %q", info.AppMetadata, tt.wantWho)
			}
			if tt.want == codes.PermissionDenied && !strings.Contains(status.Convert(err).Message(), strings.Join(tt.table, ".")) {
				t.Errorf("message %q does not name the table", status.Convert(err).Message())
			}
		})
	}

	t.Run("wrong password is Unauthenticated", func(t *testing.T) {
		t.Parallel()
		for _, up := range [][2]string{{"alice", "wrong"}, {"nobody", "s3cret!"}, {"carol", "pa"}} {
			if _, err := clientA.AuthenticateBasicToken(context.Background(), up[0], up[1]); status.Code(err) != codes.Unauthenticated {
				t.Errorf("AuthenticateBasicToken(%s, %s) = %v, want Unauthenticated", up[0], up[1], err)
			}
		}
	})
	t.Run("pyarrow's padded Basic gets the bearer in the response header", func(t *testing.T) {
		t.Parallel()
		// pyarrow (Arrow C++) pads the base64 and reads the initial
		// metadata; "carol:pa:ss" also checks that the password keeps its ':'.
		for _, cred := range []string{"alice:s3cret!", "carol:pa:ss"} {
			ctx := metadata.AppendToOutgoingContext(context.Background(), authHeader, "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
			stream, err := clientA.Handshake(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := stream.CloseSend(); err != nil {
				t.Fatal(err)
			}
			hdr, err := stream.Header()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := stream.Recv(); err != io.EOF {
				t.Fatalf("%s: Handshake ended with %v", cred, err)
			}
			vals := hdr.Get(authHeader)
			if len(vals) != 1 || !strings.HasPrefix(vals[0], "Bearer "+sessionPrefix) {
				t.Fatalf("%s: header authorization = %q", cred, vals)
			}
		}
	})
	t.Run("health is exempt from authentication", func(t *testing.T) {
		t.Parallel()
		resp, err := healthpb.NewHealthClient(connA).Check(context.Background(), &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health Check without credentials = %v, %v", resp, err)
		}
	})
}

func listFlights(ctx context.Context, client flight.Client) ([]string, error) {
	stream, err := client.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		return nil, err
	}
	var names []string
	for {
		info, err := stream.Recv()
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		names = append(names, strings.Join(info.GetFlightDescriptor().GetPath(), "."))
	}
}

func TestGrantFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line              string
		read, write       string
		canWrite, noWrite []string
	}{
		{"tok-0123456789abcdef db", "[db]", "[]", nil, []string{"db"}},
		{"tok-0123456789abcdef rw:db, ro:other", "[db other]", "[db]", []string{"db", "db.sub"}, []string{"other", "dbx"}},
		{"tok-0123456789abcdef rw:*", "[*]", "[*]", []string{"any", "a.b"}, nil},
	} {
		c := newCredentials(t, tc.line+"\n", "")
		for _, p := range c.tokens {
			if fmt.Sprint(p.Namespaces) != tc.read || fmt.Sprint(append([]string{}, p.Write...)) != tc.write {
				t.Errorf("%q: read %v write %v, want %s %s", tc.line, p.Namespaces, p.Write, tc.read, tc.write)
			}
			for _, ns := range tc.canWrite {
				if !p.CanWrite(strings.Split(ns, ".")) {
					t.Errorf("%q cannot write %s", tc.line, ns)
				}
			}
			for _, ns := range tc.noWrite {
				if p.CanWrite(strings.Split(ns, ".")) {
					t.Errorf("%q can write %s", tc.line, ns)
				}
			}
		}
	}
	users := newCredentials(t, "", "dora pw rw:lake\n")
	if u := users.users["dora"]; fmt.Sprint(u.write) != "[lake]" {
		t.Errorf("users file write grants = %v", u.write)
	}
	for _, bad := range []string{"tok-0123456789abcdef rw:", "tok-0123456789abcdef rw:a b", "tok-0123456789abcdef wr:*x"} {
		c := &Credentials{tokens: map[[32]byte]*Principal{}, users: map[string]user{}}
		if err := c.parseTokens(strings.NewReader(bad), "tokens.txt"); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	// A session keeps the write grants of the login, and one issued
	// before grants existed is read-only.
	a, err := NewAuthenticator(users, sessionSecret)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := a.issueSession(&Principal{Name: "dora", Namespaces: []string{"lake"}, Write: []string{"lake"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.verifySession(tok)
	if err != nil || !p.CanWrite([]string{"lake"}) {
		t.Errorf("session principal %+v, %v: want a write grant of lake", p, err)
	}
}
