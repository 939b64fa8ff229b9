package hive

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/iceflight/iceflight/fileio"
)

// ErrConfig marks catalog properties that cannot open a Hive catalog: no
// uri, a uri that is not thrift://host:port, a setting out of range, or
// SASL/Kerberos, which this catalog does not speak.
var ErrConfig = errors.New("bad Hive catalog configuration")

// Properties of a Hive catalog, by the names Iceberg Java's and PyIceberg's
// HiveCatalog read them.
const (
	// PropURI is the metastore, thrift://host:port, or several separated
	// by commas, tried in order for each new connection (Java's
	// hive.metastore.uris).
	PropURI = "uri"
	// PropLockEnabled, "false", commits without a metastore lock: the
	// table's parameters are swapped by the metastore itself, which
	// checks the expected metadata_location (Hive 4.0 and later,
	// HIVE-26882). The default, "true", takes an exclusive lock on the
	// table for the swap, which every metastore since Hive 2 honours. A
	// table's own engine.hive.lock-enabled property overrides it (Java's
	// order). Every writer of a table must commit the same way.
	PropLockEnabled = "iceberg.engine.hive.lock-enabled"
	// PropTableLockEnabled is the table property that overrides
	// PropLockEnabled for one table.
	PropTableLockEnabled = "engine.hive.lock-enabled"
	// PropLockCheckMinWait and PropLockCheckMaxWait (seconds) bound the
	// wait between two checks of a lock another writer holds: the first
	// wait is the minimum, each next one twice the last, up to the
	// maximum (PyIceberg's names; defaults 0.1 and 60).
	PropLockCheckMinWait = "lock-check-min-wait-time"
	PropLockCheckMaxWait = "lock-check-max-wait-time"
	// PropLockCheckRetries is how many times a lock another writer holds
	// is checked before the commit gives up as a conflict (PyIceberg's
	// name; default 4).
	PropLockCheckRetries = "lock-check-retries"
	// PropLockTimeout (milliseconds) bounds the whole wait for a lock
	// (Iceberg Java's name; default 180000).
	PropLockTimeout = "iceberg.hive.lock-timeout-ms"
	// PropHive2Compatible, "true", mirrors timestamptz columns as Hive 2's
	// "timestamp" instead of "timestamp with local time zone" (PyIceberg).
	PropHive2Compatible = "hive.hive2-compatible"
	// PropEngineHiveEnabled, "true", makes tables readable by Hive itself:
	// Iceberg's Hive storage handler, input and output formats and SerDe
	// (Java's iceberg.engine.hive.enabled; the table property
	// engine.hive.enabled overrides it).
	PropEngineHiveEnabled = "iceberg.engine.hive.enabled"
	// PropTablePropertyMaxSize bounds the schema, snapshot summary,
	// partition spec and sort order copied into table parameters; 0
	// copies none (Java's name and default, 32672).
	PropTablePropertyMaxSize = "iceberg.hive.table-property-max-size"
	// PropClients is how many connections to the metastore may be open at
	// once (Java's client pool size; default hms.DefaultSize).
	PropClients = "clients"
	// PropSocketTimeout bounds one call to the metastore when the caller
	// set no deadline: seconds, or a duration with a unit ("600s", "1m";
	// Hive's name; default 60 s).
	PropSocketTimeout = "hive.metastore.client.socket.timeout"
	// PropSASLEnabled and PropKerberos ask for SASL (Kerberos), which this
	// catalog does not speak: "true" is refused.
	PropSASLEnabled = "hive.metastore.sasl.enabled"
	PropKerberos    = "hive.kerberos-authentication"
)

// config is a Hive catalog's parsed properties.
type config struct {
	addrs        []string
	warehouse    string // "warehouse", without a trailing slash
	lockEnabled  bool
	minWait      time.Duration
	maxWait      time.Duration
	retries      int
	lockTimeout  time.Duration
	hive2        bool
	engineHive   bool
	maxParamSize int
	poolSize     int
	callTimeout  time.Duration
}

func parseConfig(props fileio.Properties) (config, error) {
	cfg := config{lockEnabled: true, minWait: 100 * time.Millisecond, maxWait: 60 * time.Second, retries: 4,
		lockTimeout: 3 * time.Minute, maxParamSize: 32672}
	for _, p := range []string{PropSASLEnabled, PropKerberos} {
		if strings.EqualFold(props.Get(p), "true") {
			return cfg, fmt.Errorf("%w: %s: SASL and Kerberos are not supported; the metastore must accept plain Thrift connections", ErrConfig, p)
		}
	}
	raw := props.Get(PropURI)
	if raw == "" {
		return cfg, fmt.Errorf("%w: the %q property is required (thrift://host:port)", ErrConfig, PropURI)
	}
	for _, u := range strings.Split(raw, ",") {
		addr, err := parseURI(strings.TrimSpace(u))
		if err != nil {
			return cfg, err
		}
		cfg.addrs = append(cfg.addrs, addr)
	}
	cfg.warehouse = strings.TrimRight(props.Get("warehouse"), "/")
	var err error
	boolProp := func(name string, into *bool) {
		if v := props.Get(name); v != "" && err == nil {
			if *into, err = strconv.ParseBool(v); err != nil {
				err = fmt.Errorf("%w: %s: %q is not true or false", ErrConfig, name, v)
			}
		}
	}
	boolProp(PropLockEnabled, &cfg.lockEnabled)
	boolProp(PropHive2Compatible, &cfg.hive2)
	boolProp(PropEngineHiveEnabled, &cfg.engineHive)
	seconds := func(name string, into *time.Duration) {
		if v := props.Get(name); v != "" && err == nil {
			f, perr := strconv.ParseFloat(v, 64)
			if perr != nil || f < 0 {
				err = fmt.Errorf("%w: %s: %q is not a number of seconds", ErrConfig, name, v)
				return
			}
			*into = time.Duration(f * float64(time.Second))
		}
	}
	seconds(PropLockCheckMinWait, &cfg.minWait)
	seconds(PropLockCheckMaxWait, &cfg.maxWait)
	intProp := func(name string, into *int, min int) {
		if v := props.Get(name); v != "" && err == nil {
			n, perr := strconv.Atoi(v)
			if perr != nil || n < min {
				err = fmt.Errorf("%w: %s: %q is not a whole number of at least %d", ErrConfig, name, v, min)
				return
			}
			*into = n
		}
	}
	intProp(PropLockCheckRetries, &cfg.retries, 1)
	intProp(PropTablePropertyMaxSize, &cfg.maxParamSize, 0)
	intProp(PropClients, &cfg.poolSize, 1)
	var timeoutMs int
	intProp(PropLockTimeout, &timeoutMs, 0)
	if timeoutMs > 0 {
		cfg.lockTimeout = time.Duration(timeoutMs) * time.Millisecond
	}
	if v := props.Get(PropSocketTimeout); v != "" && err == nil {
		if cfg.callTimeout, err = parseTimeout(v); err != nil {
			err = fmt.Errorf("%w: %s: %v", ErrConfig, PropSocketTimeout, err)
		}
	}
	return cfg, err
}

// parseURI returns the host:port of a thrift://host:port URI.
func parseURI(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "thrift") || u.Host == "" || u.Port() == "" {
		return "", fmt.Errorf("%w: uri %q is not thrift://host:port", ErrConfig, s)
	}
	return u.Host, nil
}

// parseTimeout reads Hive's time settings: seconds, or a duration with a
// unit.
func parseTimeout(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration", v)
	}
	return d, nil
}

// currentUser names the owner of new tables and databases when their
// properties name none, as Java's HiveHadoopUtil.currentUser does.
func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "iceflight"
}

func hostname() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "localhost"
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
