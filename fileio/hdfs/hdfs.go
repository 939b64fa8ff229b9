// Package hdfs is the FileIO for hdfs:// locations: it talks to the
// NameNode and DataNodes itself (github.com/colinmarc/hdfs/v2, pure Go, no
// JVM or libhdfs), with simple authentication as the user of hdfs.user, or
// Kerberos from a ticket cache (hdfs.kerberos_ticket).
package hdfs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	hdfsclient "github.com/colinmarc/hdfs/v2"

	"github.com/iceflight/iceflight/fileio"
)

// Backend is the HDFS storage for the registry of FileIOs.
var Backend = fileio.Backend{
	Name:    "HDFS",
	Schemes: []string{"hdfs"},
	New: func(_ context.Context, props fileio.Properties) (fileio.FileIO, error) {
		cfg, err := ConfigFromProperties(props)
		if err != nil {
			return nil, err
		}
		return New(cfg), nil
	},
}

// Property names, as PyIceberg's PyArrow FileIO reads them.
const (
	PropHost           = "hdfs.host"
	PropPort           = "hdfs.port"
	PropUser           = "hdfs.user"
	PropKerberosTicket = "hdfs.kerberos_ticket"
)

// MaxRequests bounds the calls in flight to HDFS (NameNode RPCs and
// DataNode reads) in the whole process, across every FileIO: catalogs and
// the reader may each hold one, and the cluster sees their sum.
const MaxRequests = 64

// requests holds one token per call in flight, process-wide.
var requests = make(chan struct{}, MaxRequests)

// DefaultPort is the NameNode's RPC port when neither the location nor
// hdfs.port names one (Hadoop's dfs.namenode.rpc-address default).
const DefaultPort = 8020

// Config configures a FileIO.
type Config struct {
	// Host is the NameNode (or a comma-separated list of HA NameNodes,
	// each host or host:port) that serves locations whose authority is
	// empty or a nameservice name. Empty: only locations that name their
	// NameNode can be opened.
	Host string
	// Port is the NameNode port for a Host entry, or an authority, that
	// has none; 0 means DefaultPort.
	Port int
	// User is the HDFS user of simple authentication. Empty: the
	// HADOOP_USER_NAME environment variable, as Hadoop's own clients read
	// it, or else the process's user.
	User string
	// KerberosTicket is the path of a Kerberos credential cache (what
	// kinit writes); when set, the client authenticates with Kerberos
	// instead of simple authentication.
	KerberosTicket string
	// Attempts is how many times a call that failed for a reason that may
	// pass (a NameNode or DataNode down, a timeout) is tried in all before
	// it fails with fileio.ErrUnavailable; 0 means 3.
	Attempts int
	// Backoff is the wait before the second attempt, doubled (with
	// jitter) for each later one; 0 means 200ms.
	Backoff time.Duration
	// Timeout bounds each network read or write and each connection
	// attempt, so that a server that stops answering fails the call
	// instead of hanging it; 0 means 30s.
	Timeout time.Duration
}

// ConfigFromProperties reads a Config from PyIceberg's property names.
func ConfigFromProperties(props fileio.Properties) (Config, error) {
	cfg := Config{
		Host:           props.Get(PropHost),
		User:           props.Get(PropUser),
		KerberosTicket: props.Get(PropKerberosTicket),
	}
	if p := props.Get(PropPort); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return Config{}, fmt.Errorf("%s %q: not a port number", PropPort, p)
		}
		cfg.Port = n
	}
	// PyArrow's HadoopFileSystem takes the host "default" to mean
	// fs.defaultFS; here there is no core-site.xml, so it means none.
	if cfg.Host == "default" {
		cfg.Host = ""
	}
	return cfg, nil
}

// FileIO reads and writes hdfs:// locations. It keeps one client (one
// NameNode connection) per NameNode address, made on first use and reused
// by every call after; Close closes them.
type FileIO struct {
	cfg  Config
	user string

	mu      sync.Mutex
	clients map[string]*hdfsclient.Client
	closed  bool
}

// New returns a FileIO configured by cfg. It connects to nothing yet: the
// first call on a NameNode does.
func New(cfg Config) *FileIO {
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 200 * time.Millisecond
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &FileIO{
		cfg:     cfg,
		user:    hdfsUser(cfg.User),
		clients: map[string]*hdfsclient.Client{},
	}
}

// hdfsUser is the user of simple authentication: the configured one, else
// the one Hadoop's clients would use.
func hdfsUser(configured string) string {
	if configured != "" {
		return configured
	}
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// Close closes every NameNode connection. Files still open fail their
// next call.
func (f *FileIO) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	var errs []error
	for addr, c := range f.clients {
		if err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close HDFS client of %s: %w", addr, err))
		}
		delete(f.clients, addr)
	}
	return errors.Join(errs...)
}

// target is a parsed location: the NameNode addresses that serve it, the
// path on the cluster, and the name errors use for the NameNode.
type target struct {
	addrs []string
	path  string
	nn    string
}

// parse splits location into the NameNode that serves it and the path.
//
// The authority picks the NameNode: "hdfs://nn:8020/p" is nn:8020, and
// "hdfs://nn/p" nn on the default port, unless Host is configured: then an
// authority without a port is taken for a nameservice name (HA clusters
// name their nameservice, never a port) and Host serves it, as an empty
// authority ("hdfs:///p") always is.
func (f *FileIO) parse(location string) (target, error) {
	scheme, rest, ok := strings.Cut(location, "://")
	if !ok || !strings.EqualFold(scheme, "hdfs") {
		return target{}, fmt.Errorf("open %s: %w: not an hdfs:// location", location, fileio.ErrUnsupportedScheme)
	}
	// The path is taken literally, never percent-decoded: Hadoop's Path
	// keeps "%3A" in a name as written, so it is the real name on HDFS.
	authority, p, _ := strings.Cut(rest, "/")
	p = "/" + p
	host, port, err := net.SplitHostPort(authority)
	if err == nil && port != "" {
		return target{addrs: []string{authority}, path: p, nn: authority}, nil
	}
	if err != nil {
		host = authority
	}
	if f.cfg.Host != "" {
		addrs := f.hostAddrs()
		return target{addrs: addrs, path: p, nn: strings.Join(addrs, ",")}, nil
	}
	if host == "" {
		return target{}, fmt.Errorf("open %s: no NameNode: the location names none and %s is not set", location, PropHost)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(f.cfg.Port))
	return target{addrs: []string{addr}, path: p, nn: addr}, nil
}

// hostAddrs lists the configured NameNodes, each with a port.
func (f *FileIO) hostAddrs() []string {
	var addrs []string
	for _, h := range strings.Split(f.cfg.Host, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, strconv.Itoa(f.cfg.Port))
		}
		addrs = append(addrs, h)
	}
	return addrs
}
