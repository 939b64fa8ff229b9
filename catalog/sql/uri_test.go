package sqlcat

import (
	"errors"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

func TestParseSQLiteURI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, uri, dsn string
	}{
		{"SQLAlchemy's four slashes are an absolute path", "sqlite:////wh/catalog.db", "file:/wh/catalog.db?"},
		{"SQLAlchemy's three slashes are a relative path", "sqlite:///wh/catalog.db", "file:wh/catalog.db?"},
		{"a SQLAlchemy driver name is ignored", "sqlite+pysqlite:////wh/c.db", "file:/wh/c.db?"},
		{"SQLAlchemy options are dropped", "sqlite:////wh/c.db?check_same_thread=false", "file:/wh/c.db?"},
		{"JDBC's path", "jdbc:sqlite:/wh/c.db", "file:/wh/c.db?"},
		{"JDBC's file URI", "jdbc:sqlite:file:/wh/c.db?mode=memory", "file:/wh/c.db?"},
		{"a name with URI characters is escaped", "sqlite:////wh/a#b%c.db", "file:/wh/a%23b%25c.db?"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseConn(fileio.Properties{PropURI: tc.uri})
			if err != nil {
				t.Fatal(err)
			}
			if c.engine != engineSQLite || !strings.HasPrefix(c.sqliteDSN, tc.dsn) || !strings.Contains(c.sqliteDSN, "mode=rw") {
				t.Fatalf("dsn %q, want it to start with %q and open for writing", c.sqliteDSN, tc.dsn)
			}
			ro, err := parseConn(fileio.Properties{PropURI: tc.uri, PropReadOnly: "true"})
			if err != nil || !ro.readOnly || !strings.Contains(ro.sqliteDSN, "mode=ro") {
				t.Fatalf("read-only: dsn %q (%v), want mode=ro", ro.sqliteDSN, err)
			}
		})
	}
}

func TestParsePostgresURI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		props           fileio.Properties
		host, user, pw  string
		db, searchPath  string
		port            uint16
		displayNotShown string
	}{
		{"SQLAlchemy with psycopg2", fileio.Properties{PropURI: "postgresql+psycopg2://ice:s3cret@db.example:6543/cat"},
			"db.example", "ice", "s3cret", "cat", "", 6543, "s3cret"},
		{"plain postgresql", fileio.Properties{PropURI: "postgresql://ice:pw%40x@127.0.0.1/cat?sslmode=disable"},
			"127.0.0.1", "ice", "pw@x", "cat", "", 5432, "pw%40x"},
		{"JDBC with jdbc.user and jdbc.password", fileio.Properties{PropURI: "jdbc:postgresql://h:5433/cat", PropUser: "java", PropPassword: "javapw"},
			"h", "java", "javapw", "cat", "", 5433, "javapw"},
		{"JDBC credentials as parameters, unknown ones dropped", fileio.Properties{PropURI: "jdbc:postgresql://h/cat?user=u&password=ppw&currentSchema=ice&loggerLevel=OFF"},
			"h", "u", "ppw", "cat", "ice", 5432, "ppw"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseConn(tc.props)
			if err != nil {
				t.Fatal(err)
			}
			cfg := c.pg
			if c.engine != enginePostgres || cfg.Host != tc.host || cfg.Port != tc.port || cfg.User != tc.user || cfg.Password != tc.pw || cfg.Database != tc.db {
				t.Fatalf("config %s:%d user %q password %q db %q", cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database)
			}
			if got := cfg.RuntimeParams["search_path"]; got != tc.searchPath {
				t.Fatalf("search_path %q, want %q", got, tc.searchPath)
			}
			if _, ok := cfg.RuntimeParams["loggerLevel"]; ok {
				t.Fatal("a JDBC-only parameter reached the server")
			}
			if strings.Contains(c.display, tc.displayNotShown) || strings.Contains(c.display, tc.pw) {
				t.Fatalf("display %q shows the password", c.display)
			}
			if cfg.ConnectTimeout == 0 {
				t.Fatal("no connect timeout")
			}
		})
	}
}

func TestParseURIErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, uri, secret string
	}{
		{"no uri", "", ""},
		{"an unknown database", "mysql://root:hunter2@h/db", "hunter2"},
		{"no scheme", "catalog.db", ""},
		{"an in-memory SQLite database", "sqlite://", ""},
		{"a port that is no number", "postgresql://u:topsecret@h:port/db", "topsecret"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseConn(fileio.Properties{PropURI: tc.uri})
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("%v, want ErrConfig", err)
			}
			if tc.secret != "" && strings.Contains(err.Error(), tc.secret) {
				t.Fatalf("message %q shows the password", err)
			}
		})
	}
}

func TestScrub(t *testing.T) {
	t.Parallel()
	c := &conn{secrets: []string{"p@ss word"}}
	msg := c.scrub("connect postgres://u:p%40ss+word@h failed for p@ss word")
	if strings.Contains(msg, "p@ss") || strings.Contains(msg, "p%40ss") {
		t.Fatalf("scrubbed %q", msg)
	}
}
