package engine

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
)

// Authentication errors. errUnauthenticated maps to Unauthenticated (no or
// bad credentials), errNotAuthorized to PermissionDenied (good credentials,
// wrong namespace). Messages never repeat a token or password.
var (
	errUnauthenticated = errors.New("unauthenticated")
	errNotAuthorized   = errors.New("not authorized")
)

// DefaultSessionTTL is how long a bearer token returned by Handshake stays valid.
const DefaultSessionTTL = time.Hour

const (
	authHeader      = "authorization" // gRPC metadata keys are lower case
	handshakeMethod = "/arrow.flight.protocol.FlightService/Handshake"
	minTokenLen     = 16
	minSessionKey   = 32
	allNamespaces   = "*"
	// sessionPrefix starts every session token; its version lets the
	// format change without old processes misreading new tokens.
	sessionPrefix = "ifs1."
	// sessionLabel separates session MACs from ticket MACs, so the ticket
	// key may double as the session secret.
	sessionLabel = "iceflight session token v1"
)

// Principal is an authenticated caller and the namespaces it may read
// and write.
type Principal struct {
	// Name identifies the caller in logs and errors: the user name for
	// Basic logins, "token:" and a digest prefix for static tokens.
	Name string
	// Namespaces are dotted namespace names ("db", "db.sub"), or "*" for
	// every table, that the caller may read.
	Namespaces []string
	// Write are the namespaces (or "*") the caller may also write:
	// create and drop tables and namespaces, append, delete, alter and
	// maintain. Each is in Namespaces too.
	Write []string
}

// CanWrite reports whether p may change the tables of a namespace (or the
// namespace itself), by the same hierarchical rule as CanRead.
func (p *Principal) CanWrite(namespace []string) bool {
	return p != nil && covers(p.Write, namespace)
}

// CanRead reports whether p may read the tables of a namespace (a table
// identifier without its last part). Iceberg namespaces are hierarchical,
// so a grant of "db" covers "db" and every namespace below it ("db.sub"),
// but not "dbx"; tables at the catalog root are readable only with "*".
func (p *Principal) CanRead(namespace []string) bool {
	return p != nil && covers(p.Namespaces, namespace)
}

// covers reports whether one of grants is "*", namespace or one of its
// ancestors.
func covers(grants []string, namespace []string) bool {
	for _, grant := range grants {
		if grant == allNamespaces {
			return true
		}
		parts := strings.Split(grant, ".")
		if len(parts) <= len(namespace) && slices.Equal(parts, namespace[:len(parts)]) {
			return true
		}
	}
	return false
}

type principalKey struct{}

// PrincipalFromContext returns the caller that the Authenticator's
// interceptors verified for this call.
func PrincipalFromContext(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}

// ContextWithPrincipal returns ctx carrying p as the verified caller,
// whose grants every table access of the call then checks. The
// Authenticator's interceptors attach the principal of a gRPC call; a
// front end that authenticates its callers by other means attaches theirs
// with it.
func ContextWithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// Authenticator checks the credentials of every call: static bearer tokens,
// and session bearer tokens that its Handshake issues for Basic logins.
// A session token is self-contained and signed with HMAC-SHA256, so every
// process given the same session secret accepts it (coordinator and
// workers behind a load balancer) with no shared state. The zero of a
// *Authenticator, nil, means authentication is disabled.
type Authenticator struct {
	creds         *Credentials
	keys          [][]byte // derived MAC keys; the first signs, all verify
	ttl           time.Duration
	now           func() time.Time
	verifySecrets [][]byte
}

// AuthOption configures an Authenticator.
type AuthOption func(*Authenticator)

// WithSessionTTL sets how long a session token from Handshake stays valid
// (DefaultSessionTTL when d <= 0).
func WithSessionTTL(d time.Duration) AuthOption {
	return func(a *Authenticator) { a.ttl = d }
}

// WithSessionVerifySecrets adds secrets that verify session tokens but do
// not sign them, so the session secret can rotate without logging anyone out.
func WithSessionVerifySecrets(secrets ...[]byte) AuthOption {
	return func(a *Authenticator) { a.verifySecrets = append(a.verifySecrets, secrets...) }
}

// NewAuthenticator returns an Authenticator accepting creds. sessionSecret
// (at least 32 bytes) keys the session tokens; processes that must accept
// each other's sessions need the same secret. It may be the ticket-signing
// key: the MAC key is derived from it under a label of its own, so a session
// token can never pass for a ticket or the reverse. An empty secret draws a
// random one: sessions are then valid on this process only.
func NewAuthenticator(creds *Credentials, sessionSecret []byte, opts ...AuthOption) (*Authenticator, error) {
	if creds == nil || len(creds.tokens)+len(creds.users) == 0 {
		return nil, errors.New("authenticator: no tokens and no users")
	}
	a := &Authenticator{creds: creds, ttl: DefaultSessionTTL, now: time.Now}
	for _, o := range opts {
		o(a)
	}
	if a.ttl <= 0 {
		a.ttl = DefaultSessionTTL
	}
	if len(sessionSecret) == 0 {
		sessionSecret = make([]byte, minSessionKey)
		if _, err := rand.Read(sessionSecret); err != nil {
			return nil, fmt.Errorf("session secret: %w", err)
		}
	}
	for _, s := range append([][]byte{sessionSecret}, a.verifySecrets...) {
		if len(s) < minSessionKey {
			return nil, fmt.Errorf("session secret has %d bytes, need at least %d", len(s), minSessionKey)
		}
		m := hmac.New(sha256.New, s)
		m.Write([]byte(sessionLabel))
		a.keys = append(a.keys, m.Sum(nil))
	}
	a.verifySecrets = nil
	return a, nil
}

// Middleware returns the interceptors for flight.NewServerWithMiddleware.
func (a *Authenticator) Middleware() flight.ServerMiddleware {
	return flight.ServerMiddleware{Unary: a.UnaryInterceptor(), Stream: a.StreamInterceptor()}
}

// UnaryInterceptor authenticates every unary call but the exempt ones (see
// exempt) and puts the Principal in the handler's context.
func (a *Authenticator) UnaryInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if exempt(info.FullMethod) {
			return handler(ctx, req)
		}
		p, err := a.authenticate(ctx)
		if err != nil {
			return nil, Status(err)
		}
		return handler(ContextWithPrincipal(ctx, p), req)
	}
}

// StreamInterceptor authenticates every streaming call but the exempt ones
// and puts the Principal in the stream's context.
func (a *Authenticator) StreamInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if exempt(info.FullMethod) {
			return handler(srv, ss)
		}
		p, err := a.authenticate(ss.Context())
		if err != nil {
			return Status(err)
		}
		return handler(srv, &principalStream{ServerStream: ss, ctx: ContextWithPrincipal(ss.Context(), p)})
	}
}

type principalStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *principalStream) Context() context.Context { return s.ctx }

// exempt reports whether a method needs no credentials: health checks (load
// balancers probe without any), reflection, and Handshake, which checks
// Basic credentials itself.
func exempt(method string) bool {
	return method == handshakeMethod ||
		strings.HasPrefix(method, "/grpc.health.v1.Health/") ||
		strings.HasPrefix(method, "/grpc.reflection.")
}

// authenticate verifies the call's "authorization: Bearer TOKEN". Only the
// first authorization value counts, as in arrow-go's own middleware.
func (a *Authenticator) authenticate(ctx context.Context) (*Principal, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(authHeader)
	if len(vals) == 0 {
		return nil, fmt.Errorf("%w: no authorization header; send \"authorization: Bearer TOKEN\" with a token from --tokens or from a Basic Handshake", errUnauthenticated)
	}
	scheme, cred := cutField(strings.TrimSpace(vals[0]))
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return a.verifyBearer(cred)
	case strings.EqualFold(scheme, "Basic"):
		return nil, fmt.Errorf("%w: Basic credentials are accepted only by Handshake; send the bearer token it returns", errUnauthenticated)
	}
	// The value is not echoed: it may be a token sent without its scheme.
	return nil, fmt.Errorf("%w: authorization header is not \"Bearer TOKEN\"", errUnauthenticated)
}

// verifyBearer accepts a static token or a valid session token. Static
// tokens are found by the SHA-256 of the presented token, so timing reveals
// nothing about how many bytes of any real token matched; session tokens
// are checked with hmac.Equal.
func (a *Authenticator) verifyBearer(token string) (*Principal, error) {
	if p, ok := a.creds.tokens[sha256.Sum256([]byte(token))]; ok {
		return p, nil
	}
	if strings.HasPrefix(token, sessionPrefix) {
		return a.verifySession(token)
	}
	return nil, fmt.Errorf("%w: unknown bearer token", errUnauthenticated)
}

// sessionClaims is the signed body of a session token.
type sessionClaims struct {
	User       string   `json:"sub"`
	Namespaces []string `json:"ns"`
	// Write is absent from the tokens of earlier versions, which were
	// read-only.
	Write    []string `json:"w,omitempty"`
	IssuedAt int64    `json:"iat"` // Unix milliseconds
	Expires  int64    `json:"exp"` // Unix milliseconds
}

// issueSession returns "ifs1.<base64url claims>.<base64url HMAC>" for p.
func (a *Authenticator) issueSession(p *Principal) (string, error) {
	now := a.now()
	body, err := json.Marshal(sessionClaims{User: p.Name, Namespaces: p.Namespaces, Write: p.Write,
		IssuedAt: now.UnixMilli(), Expires: now.Add(a.ttl).UnixMilli()})
	if err != nil {
		return "", fmt.Errorf("session token: %w", err)
	}
	signed := sessionPrefix + base64.RawURLEncoding.EncodeToString(body)
	return signed + "." + base64.RawURLEncoding.EncodeToString(sessionMAC(a.keys[0], signed)), nil
}

// verifySession checks a session token's MAC against every key, then its
// expiry. The claims are not decoded before the MAC matches.
func (a *Authenticator) verifySession(token string) (*Principal, error) {
	bad := fmt.Errorf("%w: invalid session token", errUnauthenticated)
	i := strings.LastIndexByte(token, '.')
	if i < len(sessionPrefix) {
		return nil, bad
	}
	mac, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil {
		return nil, bad
	}
	signed := token[:i]
	if !slices.ContainsFunc(a.keys, func(k []byte) bool { return hmac.Equal(mac, sessionMAC(k, signed)) }) {
		return nil, bad
	}
	body, err := base64.RawURLEncoding.DecodeString(signed[len(sessionPrefix):])
	if err != nil {
		return nil, bad
	}
	var c sessionClaims
	if err := json.Unmarshal(body, &c); err != nil || c.User == "" {
		return nil, bad
	}
	if now := a.now().UnixMilli(); now >= c.Expires {
		return nil, fmt.Errorf("%w: session of %s expired %s ago; authenticate again", errUnauthenticated,
			c.User, time.Duration(now-c.Expires)*time.Millisecond)
	}
	return &Principal{Name: c.User, Namespaces: c.Namespaces, Write: c.Write}, nil
}

func sessionMAC(key []byte, signed string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

// Handshake logs a client in the way arrow-go's Client.AuthenticateBasicToken
// and pyarrow's FlightClient.authenticate_basic_token expect: the request
// metadata carries "authorization: Basic base64(user:password)" and the
// response header carries "authorization: Bearer TOKEN", a session token.
// A valid bearer token is answered with itself (clients that always
// handshake), never with a longer-lived one. On a nil Authenticator it
// answers Unimplemented.
func (a *Authenticator) Handshake(stream flight.FlightService_HandshakeServer) error {
	if a == nil {
		return status.Error(codes.Unimplemented, "Handshake: authentication is not configured on this server")
	}
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(authHeader)
	if len(vals) == 0 {
		return Status(fmt.Errorf("%w: Handshake needs \"authorization: Basic base64(user:password)\"", errUnauthenticated))
	}
	scheme, cred := cutField(strings.TrimSpace(vals[0]))
	var bearer string
	switch {
	case strings.EqualFold(scheme, "Basic"):
		p, err := a.checkBasic(cred)
		if err != nil {
			return Status(err)
		}
		if bearer, err = a.issueSession(p); err != nil {
			return Status(err)
		}
	case strings.EqualFold(scheme, "Bearer"):
		if _, err := a.verifyBearer(cred); err != nil {
			return Status(err)
		}
		bearer = cred
	default:
		return Status(fmt.Errorf("%w: Handshake supports Basic authorization only", errUnauthenticated))
	}
	// The header, not the trailer: pyarrow reads either, arrow-go joins
	// both, and a header reaches the client before the call ends.
	return stream.SendHeader(metadata.Pairs(authHeader, "Bearer "+bearer))
}

// checkBasic verifies base64(user:password). pyarrow pads the base64 and
// arrow-go does not, so both are accepted.
func (a *Authenticator) checkBasic(cred string) (*Principal, error) {
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(cred); err != nil {
			return nil, fmt.Errorf("%w: Handshake: Basic credentials are not base64", errUnauthenticated)
		}
	}
	login, password, ok := strings.Cut(string(raw), ":")
	p, err := a.checkPassword(login, password)
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: Handshake: invalid user or password", errUnauthenticated)
	}
	return p, nil
}

// checkPassword verifies a user's password. Unknown users are compared
// with a zero digest, so timing does not tell them from wrong passwords.
func (a *Authenticator) checkPassword(login, password string) (*Principal, error) {
	u, known := a.creds.users[login]
	got := sha256.Sum256([]byte(password))
	if subtle.ConstantTimeCompare(got[:], u.digest[:]) != 1 || !known {
		return nil, fmt.Errorf("%w: invalid user or password", errUnauthenticated)
	}
	return &Principal{Name: login, Namespaces: u.namespaces, Write: u.write}, nil
}

// Login checks a user's password (a --users line) and returns a session
// token for it and how long the token lives, for front ends with a login
// flow of their own: the REST catalog's OAuth2 client-credentials
// endpoint. The token is the one Handshake would issue, so every front
// end and every process with the same session secret accepts it.
func (a *Authenticator) Login(user, password string) (token string, ttl time.Duration, err error) {
	p, err := a.checkPassword(user, password)
	if err != nil {
		return "", 0, err
	}
	token, err = a.issueSession(p)
	return token, a.ttl, err
}

// VerifyAuthorization returns the caller an HTTP Authorization header
// value ("Bearer TOKEN") names, by the same rules as a gRPC call's
// authorization metadata: a static token or a session token. An empty
// value is Unauthenticated.
func (a *Authenticator) VerifyAuthorization(value string) (*Principal, error) {
	if value == "" {
		return nil, fmt.Errorf("%w: no Authorization header; send \"Authorization: Bearer TOKEN\" with a token from --tokens or from the OAuth2 token endpoint", errUnauthenticated)
	}
	scheme, cred := cutField(strings.TrimSpace(value))
	if !strings.EqualFold(scheme, "Bearer") {
		// The value is not echoed: it may be a token sent without its scheme.
		return nil, fmt.Errorf("%w: Authorization header is not \"Bearer TOKEN\"", errUnauthenticated)
	}
	return a.verifyBearer(cred)
}

// Principal returns the verified caller, or nil when authentication is
// disabled (a nil Authenticator). With authentication on, a context that
// carries no principal is refused: a handler reached without the
// interceptor must not serve anyone.
func (a *Authenticator) Principal(ctx context.Context) (*Principal, error) {
	if a == nil {
		return nil, nil
	}
	p, ok := PrincipalFromContext(ctx)
	if !ok {
		return nil, fmt.Errorf("%w: call carries no verified credentials", errUnauthenticated)
	}
	return p, nil
}

// Authorize returns nil when the caller may read table id: always when
// authentication is disabled, else when its principal's namespaces cover
// the table's namespace. Call it before looking the table up, so a refusal
// does not tell whether the table exists.
func (a *Authenticator) Authorize(ctx context.Context, id catalog.Identifier) error {
	p, err := a.Principal(ctx)
	if err != nil || p == nil {
		return err
	}
	if !p.CanRead(id.Namespace()) {
		return fmt.Errorf("%w: %s may not read table %s", errNotAuthorized, p.Name, id)
	}
	return nil
}

// Readable returns the identifiers among ids that the caller may read, for
// ListFlights.
func (a *Authenticator) Readable(ctx context.Context, ids []catalog.Identifier) ([]catalog.Identifier, error) {
	p, err := a.Principal(ctx)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return ids, nil
	}
	var out []catalog.Identifier
	for _, id := range ids {
		if p.CanRead(id.Namespace()) {
			out = append(out, id)
		}
	}
	return out, nil
}

// AuthorizeWrite returns nil when the caller may change namespace (for
// what, "table db.t" or "namespace db", named in the refusal): always
// when authentication is disabled, else when its principal has a write
// grant covering it.
func (a *Authenticator) AuthorizeWrite(ctx context.Context, namespace []string, what string) error {
	p, err := a.Principal(ctx)
	if err != nil || p == nil {
		return err
	}
	if !p.CanWrite(namespace) {
		if p.CanRead(namespace) {
			return fmt.Errorf("%w: %s may only read %s; writing needs an rw: grant of its namespace", errNotAuthorized, p.Name, what)
		}
		return fmt.Errorf("%w: %s may not write %s", errNotAuthorized, p.Name, what)
	}
	return nil
}

// VisibleNamespace reports whether the caller may see namespace in a
// listing: it may read it, or it is an ancestor of one it may read.
func (a *Authenticator) VisibleNamespace(p *Principal, namespace []string) bool {
	if a == nil || p.CanRead(namespace) {
		return true
	}
	for _, grant := range p.Namespaces {
		parts := strings.Split(grant, ".")
		if len(namespace) < len(parts) && slices.Equal(parts[:len(namespace)], namespace) {
			return true
		}
	}
	return false
}
