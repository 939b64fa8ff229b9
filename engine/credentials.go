package engine

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/iceflight/iceflight/catalog"
)

// Credentials are the static bearer tokens and Basic users a server accepts.
type Credentials struct {
	// tokens is keyed by the SHA-256 of the token: a lookup hashes the
	// presented token first, so the map's comparisons run on digests an
	// attacker cannot steer byte by byte, and no secret is compared with
	// an early exit (see Authenticator.verifyBearer).
	tokens map[[sha256.Size]byte]*Principal
	users  map[string]user
}

type user struct {
	digest     [sha256.Size]byte // SHA-256 of the password
	namespaces []string
	write      []string
}

// LoadCredentials reads a tokens file and a users file; either path may be
// empty, not both.
//
// A tokens file (--tokens) has one token a line: "TOKEN GRANT[,GRANT...]".
// A grant is a namespace ("db", "db.sub", or "*" for every namespace),
// read-only, or "ro:" or "rw:" and a namespace: "rw:" grants writes too
// (create, append, delete, alter, maintenance), so files written before
// writes existed keep their meaning, read-only. Tokens are at least 16 printable ASCII characters
// without spaces and appear once; clients send them as
// "authorization: Bearer TOKEN".
//
// A users file (--users) has one user a line: "USER PASSWORD GRANT[,...]".
// PASSWORD is either "sha256:HEX", the hex SHA-256 of the password
// (printf %s "$pw" | sha256sum), or the password itself in plain text; a
// plain-text password cannot contain spaces or start with "sha256:". User
// names cannot contain ":" (Basic auth splits there). Clients log in through
// Handshake and get a session bearer token.
//
// In both files blank lines and lines starting with "#" are skipped, and
// errors name the file and line.
func LoadCredentials(tokensFile, usersFile string) (*Credentials, error) {
	if tokensFile == "" && usersFile == "" {
		return nil, errors.New("credentials: no tokens file and no users file")
	}
	c := &Credentials{tokens: map[[sha256.Size]byte]*Principal{}, users: map[string]user{}}
	for _, f := range []struct {
		path  string
		parse func(io.Reader, string) error
	}{{tokensFile, c.parseTokens}, {usersFile, c.parseUsers}} {
		if f.path == "" {
			continue
		}
		if err := parseFile(f.path, f.parse); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// ParseCredentials parses credentials from the texts of a tokens file and
// a users file (either may be empty, not both), in the formats
// LoadCredentials reads: for credentials that come from a secret store
// rather than files, and for tests.
func ParseCredentials(tokens, users string) (*Credentials, error) {
	if tokens == "" && users == "" {
		return nil, errors.New("credentials: no tokens and no users")
	}
	c := &Credentials{tokens: map[[sha256.Size]byte]*Principal{}, users: map[string]user{}}
	if tokens != "" {
		if err := c.parseTokens(strings.NewReader(tokens), "tokens"); err != nil {
			return nil, err
		}
	}
	if users != "" {
		if err := c.parseUsers(strings.NewReader(users), "users"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func parseFile(path string, parse func(io.Reader, string) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	defer fh.Close()
	return parse(fh, path)
}

// parseTokens adds the tokens of a tokens file read from r.
func (c *Credentials) parseTokens(r io.Reader, name string) error {
	first := map[[sha256.Size]byte]int{}
	n := 0
	err := eachLine(r, name, func(line string, lineNo int) error {
		token, rest := cutField(line)
		switch {
		case len(token) < minTokenLen:
			return fmt.Errorf("token has %d characters, need at least %d", len(token), minTokenLen)
		case strings.ContainsFunc(token, func(r rune) bool { return r < 0x21 || r > 0x7e }):
			// gRPC metadata values must be printable ASCII.
			return errors.New("token holds a character that is not printable ASCII")
		}
		ns, write, err := parseGrants(rest)
		if err != nil {
			return err
		}
		sum := sha256.Sum256([]byte(token))
		if l, dup := first[sum]; dup {
			return fmt.Errorf("duplicate token (first on line %d)", l)
		}
		first[sum] = lineNo
		c.tokens[sum] = &Principal{Name: "token:" + hex.EncodeToString(sum[:4]), Namespaces: ns, Write: write}
		n++
		return nil
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("%s: no tokens", name)
	}
	return err
}

// parseUsers adds the users of a users file read from r.
func (c *Credentials) parseUsers(r io.Reader, name string) error {
	n := 0
	err := eachLine(r, name, func(line string, _ int) error {
		login, rest := cutField(line)
		password, rest := cutField(rest)
		if password == "" {
			return errors.New("want USER PASSWORD NAMESPACE[,NAMESPACE...]")
		}
		if strings.ContainsFunc(login, func(r rune) bool { return r == ':' || unicode.IsControl(r) }) {
			return fmt.Errorf("user %q: name holds ':' or a control character", login)
		}
		if _, dup := c.users[login]; dup {
			return fmt.Errorf("duplicate user %q", login)
		}
		u := user{digest: sha256.Sum256([]byte(password))}
		if h, ok := strings.CutPrefix(password, "sha256:"); ok {
			b, err := hex.DecodeString(h)
			if err != nil || len(b) != sha256.Size {
				return fmt.Errorf("user %q: sha256: needs 64 hex digits", login)
			}
			copy(u.digest[:], b)
		}
		ns, write, err := parseGrants(rest)
		if err != nil {
			return fmt.Errorf("user %q: %w", login, err)
		}
		u.namespaces, u.write = ns, write
		c.users[login] = u
		n++
		return nil
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("%s: no users", name)
	}
	return err
}

// eachLine calls fn with every line of r that is not blank or a comment,
// trimmed; errors are prefixed with "name:line:".
func eachLine(r io.Reader, name string, fn func(line string, lineNo int) error) error {
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := fn(line, n); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	return nil
}

// cutField splits off the first space-separated field of s.
func cutField(s string) (field, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// parseGrants parses "db,rw:other.sub,ro:x" or "*" into the namespaces
// readable and those writable (which are readable too). Spaces after
// commas are allowed; a space inside a name means a missing comma and is
// an error.
func parseGrants(s string) (read, write []string, err error) {
	if s == "" {
		return nil, nil, errors.New("no namespaces (use * for all)")
	}
	for _, ns := range strings.Split(s, ",") {
		ns = strings.TrimSpace(ns)
		ns, rw := strings.CutPrefix(ns, "rw:")
		if !rw {
			ns = strings.TrimPrefix(ns, "ro:")
		}
		if err := checkNamespace(ns, s); err != nil {
			return nil, nil, err
		}
		read = append(read, ns)
		if rw {
			write = append(write, ns)
		}
	}
	return read, write, nil
}

// checkNamespace checks one namespace of a grant list s.
func checkNamespace(ns, s string) error {
	switch {
	case ns == allNamespaces:
	case ns == "":
		return fmt.Errorf("empty namespace in %q", s)
	case strings.ContainsFunc(ns, unicode.IsSpace):
		return fmt.Errorf("namespace %q holds a space; separate namespaces with commas", ns)
	case strings.Contains(ns, allNamespaces):
		return fmt.Errorf("namespace %q: only a lone * is a wildcard", ns)
	default:
		if err := catalog.Identifier(strings.Split(ns, ".")).Validate(); err != nil {
			return fmt.Errorf("namespace %q: %w", ns, err)
		}
	}
	return nil
}
