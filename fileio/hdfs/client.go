package hdfs

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	hdfsclient "github.com/colinmarc/hdfs/v2"
	"github.com/colinmarc/hdfs/v2/hadoopconf"
	krb "github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
)

// client returns the client of t's NameNode, connecting on first use.
// Connecting is a call like any other: a NameNode that is down fails it
// with an error that transient calls retriable, so the caller's retry
// loop covers it. The dial happens outside the lock, so a NameNode that
// is slow to answer holds up no call to another one.
func (f *FileIO) client(t target) (*hdfsclient.Client, error) {
	key := strings.Join(t.addrs, ",")
	f.mu.Lock()
	c, ok := f.clients[key]
	closed := f.closed
	f.mu.Unlock()
	switch {
	case closed:
		return nil, errClosed
	case ok:
		return c, nil
	}
	opts, err := f.clientOptions(t.addrs)
	if err != nil {
		return nil, err
	}
	c, err = hdfsclient.NewClient(opts)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		c.Close()
		return nil, errClosed
	}
	if other, ok := f.clients[key]; ok {
		// Another call connected meanwhile: keep one connection.
		c.Close()
		return other, nil
	}
	f.clients[key] = c
	return c, nil
}

// forget drops the client of t's NameNode after a failure that may have
// broken its connection, so the next attempt dials afresh instead of
// waiting out the library's back-off of a failed NameNode.
func (f *FileIO) forget(t target, c *hdfsclient.Client) {
	key := strings.Join(t.addrs, ",")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clients[key] == c {
		delete(f.clients, key)
		// Open files keep their reference; the library redials for them.
		c.Close()
	}
}

// clientOptions are the library's options for the NameNodes addrs: every
// connection dialled with the FileIO's timeout, and Kerberos when a ticket
// cache is configured.
func (f *FileIO) clientOptions(addrs []string) (hdfsclient.ClientOptions, error) {
	dial := timeoutDialer(f.cfg.Timeout)
	opts := hdfsclient.ClientOptions{
		Addresses:        addrs,
		User:             f.user,
		NamenodeDialFunc: dial,
		DatanodeDialFunc: dial,
	}
	if f.cfg.KerberosTicket == "" {
		return opts, nil
	}
	kc, spn, protection, err := kerberos(f.cfg.KerberosTicket)
	if err != nil {
		return opts, err
	}
	opts.KerberosClient = kc
	opts.KerberosServicePrincipleName = spn
	opts.DataTransferProtection = protection
	return opts, nil
}

// kerberos loads the ticket cache at ticket and what a Kerberos client
// needs besides, from where Hadoop's own clients find it: the realm
// settings from KRB5_CONFIG (default /etc/krb5.conf), and the NameNode's
// principal and the data transfer protection from the hdfs-site.xml of
// HADOOP_CONF_DIR (or HADOOP_HOME/etc/hadoop). Errors name files, never
// ticket contents, and keep their cause's text but not its identity: a
// missing ticket cache must not read as a missing HDFS file.
func kerberos(ticket string) (*krb.Client, string, string, error) {
	cc, err := credentials.LoadCCache(ticket)
	if err != nil {
		return nil, "", "", fmt.Errorf("load Kerberos ticket cache %s: %v", ticket, err)
	}
	krb5 := os.Getenv("KRB5_CONFIG")
	if krb5 == "" {
		krb5 = "/etc/krb5.conf"
	}
	kcfg, err := krbconfig.Load(krb5)
	if err != nil {
		return nil, "", "", fmt.Errorf("load Kerberos configuration %s: %v", krb5, err)
	}
	kc, err := krb.NewFromCCache(cc, kcfg, krb.DisablePAFXFAST(true))
	if err != nil {
		return nil, "", "", fmt.Errorf("kerberos client from ticket cache %s: %v", ticket, err)
	}
	conf, err := hadoopconf.LoadFromEnvironment()
	if err != nil {
		return nil, "", "", fmt.Errorf("load Hadoop configuration: %v", err)
	}
	opts := hdfsclient.ClientOptionsFromConf(conf)
	if opts.KerberosServicePrincipleName == "" {
		return nil, "", "", fmt.Errorf("kerberos needs the NameNode's principal: set dfs.namenode.kerberos.principal in the hdfs-site.xml of HADOOP_CONF_DIR")
	}
	return kc, opts.KerberosServicePrincipleName, opts.DataTransferProtection, nil
}

// timeoutDialer dials with timeout and returns connections whose every
// read and write must progress within timeout: the library sets no
// deadlines on NameNode calls, and a server that stops answering would
// otherwise hold a call forever.
func timeoutDialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &deadlineConn{Conn: c, timeout: timeout}, nil
	}
}

// deadlineConn renews its deadline before each read and write: now plus
// the timeout, or the deadline the library set (the block reader sets one
// per read) if that is sooner.
type deadlineConn struct {
	net.Conn
	timeout time.Duration

	mu       sync.Mutex
	deadline time.Time
}

func (c *deadlineConn) next() time.Time {
	d := time.Now().Add(c.timeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.deadline.IsZero() && c.deadline.Before(d) {
		return c.deadline
	}
	return d
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(c.next()); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(c.next()); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// SetDeadline records t for the reads and writes that follow; a zero t
// leaves only the timeout.
func (c *deadlineConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	return nil
}

// SetReadDeadline is SetDeadline: one deadline serves both directions.
func (c *deadlineConn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline is SetDeadline: one deadline serves both directions.
func (c *deadlineConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
