package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ErrNoNginx marks a machine without an nginx binary.
var ErrNoNginx = errors.New("nginx not installed (Debian package nginx-light)")

// NginxBinary returns the path of nginx: $NGINX, then the PATH, then
// /usr/sbin/nginx (not on an unprivileged user's PATH).
func NginxBinary() (string, error) {
	if p := os.Getenv("NGINX"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	return "", ErrNoNginx
}

// localRewrites turn deploy/nginx/nginx.conf into a configuration that
// runs from a temporary directory (its error log is already stderr, which
// the process's log file in that directory holds). Each must match:
// a changed deploy file fails the test rather than being tested half.
var localRewrites = []struct {
	what string
	re   *regexp.Regexp
	repl func(dir, listen string, upstreams []string) string
}{
	{"worker_processes", regexp.MustCompile(`(?m)^worker_processes .*;$`), func(string, string, []string) string {
		return "worker_processes 1;"
	}},
	{"pid", regexp.MustCompile(`(?m)^pid .*;$`), func(dir string, _ string, _ []string) string {
		return "pid " + filepath.Join(dir, "nginx.pid") + ";"
	}},
	{"access_log", regexp.MustCompile(`(?m)^(\s*)access_log \S+ grpc;$`), func(dir string, _ string, _ []string) string {
		return "${1}access_log " + filepath.Join(dir, "access.log") + " grpc;\n" +
			// nginx's compiled-in temporary folders are under /var/lib.
			"${1}client_body_temp_path " + filepath.Join(dir, "body") + ";\n" +
			"${1}proxy_temp_path " + filepath.Join(dir, "proxy") + ";\n" +
			"${1}fastcgi_temp_path " + filepath.Join(dir, "fastcgi") + ";\n" +
			"${1}uwsgi_temp_path " + filepath.Join(dir, "uwsgi") + ";\n" +
			"${1}scgi_temp_path " + filepath.Join(dir, "scgi") + ";"
	}},
	{"upstream servers", regexp.MustCompile(`(?m)^(\s*)server \S+:8815 (.*);$`), func(_ string, _ string, upstreams []string) string {
		var b strings.Builder
		for i, u := range upstreams {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("${1}server " + u + " ${2};")
		}
		return b.String()
	}},
	{"listen", regexp.MustCompile(`(?m)^(\s*)listen 8815 http2;$`), func(_ string, listen string, _ []string) string {
		return "${1}listen " + listen + " http2;"
	}},
}

// LocalNginxConfig rewrites the deployment's nginx.conf to listen on
// listen, balance over upstreams and keep its pid, logs and temporary
// files in dir.
func LocalNginxConfig(deployConf, dir, listen string, upstreams []string) (string, error) {
	conf := deployConf
	for _, rw := range localRewrites {
		if !rw.re.MatchString(conf) {
			return "", fmt.Errorf("nginx.conf: no %s directive to rewrite for a local run", rw.what)
		}
		conf = rw.re.ReplaceAllString(conf, rw.repl(dir, listen, upstreams))
	}
	return conf, nil
}

// Nginx is a running nginx balancing gRPC over workers.
type Nginx struct {
	*Process
	// AccessLog is the file of nginx's per-call log lines.
	AccessLog string
}

// StartNginx writes the local variant of deployConf to dir, checks it with
// nginx -t, starts nginx on a free loopback port in front of upstreams and
// waits until it accepts connections.
func StartNginx(ctx context.Context, bin, deployConf, dir string, upstreams []string) (*Nginx, error) {
	var lastErr error
	// A free port found now may be taken by another process before nginx
	// binds it: try a few.
	for range 3 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := net.JoinHostPort("127.0.0.1", port)
		n, err := startNginxAt(ctx, bin, deployConf, dir, addr, upstreams)
		if err == nil {
			return n, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	return nil, lastErr
}

func startNginxAt(ctx context.Context, bin, deployConf, dir, addr string, upstreams []string) (*Nginx, error) {
	conf, err := LocalNginxConfig(deployConf, dir, addr, upstreams)
	if err != nil {
		return nil, err
	}
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, fmt.Errorf("nginx config: %w", err)
	}
	if out, err := exec.CommandContext(ctx, bin, "-t", "-p", dir, "-c", confPath).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("nginx -t -c %s: %w\n%s", confPath, err, out)
	}
	p, stdout, err := start("nginx", dir, bin, "-p", dir, "-c", confPath, "-g", "daemon off;")
	if err != nil {
		return nil, err
	}
	stdout.Close() // nginx logs to files only
	n := &Nginx{Process: p, AccessLog: filepath.Join(dir, "access.log")}
	n.Addr = addr
	deadline := time.Now().Add(StartTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return n, nil
		}
		if exited, _ := p.Exited(); exited {
			return nil, fmt.Errorf("nginx exited: %s", p.Tail(10))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.Stop()
			return nil, fmt.Errorf("nginx does not accept connections on %s: %s", addr, p.Tail(10))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Call is one gRPC call as nginx's access log records it.
type Call struct {
	// Method is the full gRPC method, "/arrow.flight.protocol.FlightService/DoGet".
	Method string
	// Upstream is the worker that answered (the last tried, if nginx
	// retried).
	Upstream string
	// GRPCStatus is the call's grpc-status ("0" is OK; "" if none).
	GRPCStatus string
}

// Calls parses nginx's access log. nginx writes a line when a call ends,
// so only finished calls are listed.
func (n *Nginx) Calls() ([]Call, error) {
	f, err := os.Open(n.AccessLog)
	if err != nil {
		return nil, fmt.Errorf("nginx access log: %w", err)
	}
	defer f.Close()
	var calls []Call
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kv := map[string]string{}
		for _, field := range strings.Fields(sc.Text()) {
			if k, v, ok := strings.Cut(field, "="); ok && v != "-" {
				kv[k] = v
			}
		}
		c := Call{Method: kv["uri"], GRPCStatus: kv["grpc_status"]}
		if c.GRPCStatus == "" {
			c.GRPCStatus = kv["grpc_status_header"]
		}
		// "a:1, b:2" after a retry: the last one answered.
		ups := strings.Split(kv["upstream"], ",")
		c.Upstream = strings.TrimSpace(ups[len(ups)-1])
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("nginx access log: %w", err)
	}
	return calls, nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}
