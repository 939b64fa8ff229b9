package sqlcat

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/iceflight/iceflight/fileio"
)

// Property names, as PyIceberg's SqlCatalog and Iceberg Java's JdbcCatalog
// read them.
const (
	// PropURI is the database: a SQLAlchemy URL ("sqlite:////abs/catalog.db",
	// "postgresql+psycopg2://user:pw@host:5432/db") or a JDBC one
	// ("jdbc:postgresql://host:5432/db", "jdbc:sqlite:/abs/catalog.db").
	PropURI = "uri"
	// PropUser and PropPassword are the credentials Java's JdbcCatalog
	// passes to the driver beside a JDBC URL; they win over a URL's own.
	PropUser     = "jdbc.user"
	PropPassword = "jdbc.password"
	// PropCatalogName overrides the value of the catalog_name column, which
	// is otherwise the catalog's name in the configuration, as it is
	// PyIceberg's (load_catalog's name) and Java's (initialize's name). It
	// is iceflight's own, for a catalog mounted under another name than the
	// one its writers used.
	PropCatalogName = "catalog_name"
	// PropReadOnly, "true", keeps the catalog from writing: the database
	// is opened read-only (a SQLite file with mode=ro) and commits, creates
	// and drops fail with catalog.ErrReadOnly. Without it the catalog
	// writes, as PyIceberg's SqlCatalog and Java's JdbcCatalog always do.
	// It is iceflight's own.
	PropReadOnly = "read-only"
	// PropWarehouse is where new tables go when their metadata names no
	// location: <warehouse>/<namespace>.db/<table>, as PyIceberg lays
	// them out.
	PropWarehouse = "warehouse"
)

// connectTimeout bounds a PostgreSQL connection attempt whose URL sets none,
// so that an unreachable host fails a call instead of holding it.
const connectTimeout = 10 * time.Second

// sqliteBusyTimeout is how long a read waits for a writer's lock on a
// SQLite file before it fails.
const sqliteBusyTimeout = 5 * time.Second

// engine is the kind of database behind a catalog.
type engine int

const (
	engineSQLite engine = iota
	enginePostgres
)

// String names the engine in messages.
func (e engine) String() string {
	if e == enginePostgres {
		return "PostgreSQL"
	}
	return "SQLite"
}

// conn is a parsed catalog database: where it is, and how to say so without
// its secrets.
type conn struct {
	engine engine
	// sqliteDSN is the modernc.org/sqlite data source name (engineSQLite).
	sqliteDSN string
	// pg is the pgx configuration (enginePostgres).
	pg *pgx.ConnConfig
	// display is the URI with every secret replaced by "xxxxx".
	display string
	// secrets are the strings scrubbed from driver messages.
	secrets []string
	// readOnly is PropReadOnly.
	readOnly bool
}

// parseConn reads the uri property (and jdbc.user, jdbc.password) into a
// conn. Its errors name the URI with its secrets redacted.
func parseConn(props fileio.Properties) (*conn, error) {
	raw := props.Get(PropURI)
	if raw == "" {
		return nil, fmt.Errorf("%w: the %q property is required", ErrConfig, PropURI)
	}
	s := strings.TrimPrefix(raw, "jdbc:")
	scheme, _, ok := strings.Cut(s, ":")
	if !ok {
		return nil, fmt.Errorf("%w: uri %q has no scheme", ErrConfig, redactURI(raw))
	}
	// SQLAlchemy spells a driver after the dialect: "postgresql+psycopg2".
	dialect, _, _ := strings.Cut(strings.ToLower(scheme), "+")
	readOnly := strings.EqualFold(props.Get(PropReadOnly), "true")
	switch dialect {
	case "sqlite":
		return parseSQLite(raw, s[len(scheme)+1:], readOnly)
	case "postgresql", "postgres":
		c, err := parsePostgres(raw, s[len(scheme)+1:], props)
		if c != nil {
			c.readOnly = readOnly
		}
		return c, err
	default:
		return nil, fmt.Errorf("%w: uri %q: unsupported database %q (sqlite or postgresql)", ErrConfig, redactURI(raw), dialect)
	}
}

// parseSQLite reads the part of a SQLite URI after "sqlite:". SQLAlchemy's
// form is "sqlite:///" and then the path, so "sqlite:////abs/x.db" is
// absolute and "sqlite:///x.db" relative; JDBC's is "jdbc:sqlite:" and the
// path, or a "file:" URI. The file is opened for reading and writing, or
// with readOnly only for reading; a missing file is an error either way,
// never a new empty catalog (an empty file is one). Calls wait out
// another writer's lock.
func parseSQLite(raw, rest string, readOnly bool) (*conn, error) {
	p := rest
	if strings.HasPrefix(p, "//") { // SQLAlchemy: sqlite://<host>/<path>, host empty
		p = strings.TrimPrefix(p[2:], "/")
		if p == "" {
			p = ":memory:"
		}
	}
	p = strings.TrimPrefix(p, "file:")
	p, _, _ = strings.Cut(p, "?") // SQLAlchemy and JDBC driver options
	if p == "" || p == ":memory:" {
		return nil, fmt.Errorf("%w: uri %q: an in-memory SQLite database holds no catalog", ErrConfig, raw)
	}
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: p}).EscapedPath()}
	if strings.HasPrefix(p, "/") {
		u = url.URL{Scheme: "file", Path: p, OmitHost: true}
	}
	mode := "rw"
	if readOnly {
		mode = "ro"
	}
	u.RawQuery = url.Values{
		"mode":          {mode},
		"_busy_timeout": {fmt.Sprint(sqliteBusyTimeout.Milliseconds())},
	}.Encode()
	return &conn{engine: engineSQLite, sqliteDSN: u.String(), display: p, readOnly: readOnly}, nil
}

// jdbcParams are the JDBC URL parameters passed on to pgx, by their pgx
// (libpq) names; any other would become a server setting that PostgreSQL
// rejects, so it is dropped.
var jdbcParams = map[string]string{
	"user": "user", "password": "password", "sslmode": "sslmode",
	"sslcert": "sslcert", "sslkey": "sslkey", "sslrootcert": "sslrootcert",
	"connectTimeout": "connect_timeout", "connect_timeout": "connect_timeout",
	"ApplicationName": "application_name", "application_name": "application_name",
	"currentSchema": "search_path",
}

// parsePostgres reads the part of a PostgreSQL URI after the scheme's ":",
// in SQLAlchemy's form (user and password in the authority) or JDBC's
// (credentials as parameters or in jdbc.user and jdbc.password).
func parsePostgres(raw, rest string, props fileio.Properties) (*conn, error) {
	u, err := url.Parse("postgres:" + rest)
	if err != nil {
		return nil, fmt.Errorf("%w: uri %q does not parse", ErrConfig, redactURI(raw))
	}
	c := &conn{engine: enginePostgres}
	if pw, ok := u.User.Password(); ok {
		c.secrets = append(c.secrets, pw)
	}
	q := url.Values{}
	for k, vs := range u.Query() {
		name, ok := jdbcParams[k]
		if !ok {
			continue
		}
		q[name] = vs
		if name == "password" {
			c.secrets = append(c.secrets, vs...)
		}
	}
	if user := props.Get(PropUser); user != "" {
		q.Del("user")
		pw, _ := u.User.Password()
		u.User = url.UserPassword(user, pw)
	}
	if pw, ok := props[PropPassword]; ok {
		q.Del("password")
		u.User = url.UserPassword(u.User.Username(), pw)
		c.secrets = append(c.secrets, pw)
	}
	u.RawQuery = q.Encode()
	c.display = redactURI(u.String())
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("%w: uri %q: %s", ErrConfig, c.display, c.scrub(err.Error()))
	}
	if q.Get("connect_timeout") == "" {
		cfg.ConnectTimeout = connectTimeout
	}
	c.pg = cfg
	return c, nil
}

// redactURI returns a URI with its password, in the authority or as a
// parameter, replaced by "xxxxx". A URI that does not parse is replaced
// whole: it may hold anything.
func redactURI(raw string) string {
	prefix, s := "", raw
	if strings.HasPrefix(s, "jdbc:") {
		prefix, s = "jdbc:", s[len("jdbc:"):]
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(a URI that does not parse)"
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return prefix + u.Redacted()
}

// scrub replaces every secret of c in msg by "xxxxx", for driver messages
// that may quote a connection string.
func (c *conn) scrub(msg string) string {
	for _, s := range c.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
			for _, esc := range []string{url.QueryEscape(s), url.PathEscape(s)} {
				msg = strings.ReplaceAll(msg, esc, "xxxxx")
			}
		}
	}
	return msg
}
