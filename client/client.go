// Package client reads tables from an iceflight server for Go Flight
// users: it plans a scan, reads the endpoints in parallel (a bounded
// number at once), fails over across each endpoint's locations when one
// is unavailable, even in the middle of a stream (the rows delivered are
// skipped on the next location, so each row arrives once), and hands back
// an arrow.Table or a stream of record batches.
//
//	c, err := client.Dial(ctx, "grpc://127.0.0.1:8815")
//	...
//	defer c.Close()
//	tbl, err := c.Read(ctx, client.Command{Table: "samples.trips", Filter: "fare > 10"})
//	...
//	defer tbl.Release()
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/metadata"

	"github.com/iceflight/iceflight/proto/actions"
)

// Client is a connection to an iceflight server and to the locations its
// plans name. It is safe for concurrent use.
type Client struct {
	opts  options
	addr  string
	conns *pool

	// onRecord, when set, sees every record batch as it arrives (tests).
	onRecord func()
}

// Dial returns a Client of the server at addr ("grpc://host:port",
// "grpc+tls://host:port" or "host:port"). Connections are made lazily: an
// unreachable server fails the first call, not Dial.
func Dial(ctx context.Context, addr string, opts ...Option) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &Client{opts: defaultOptions(), addr: addr}
	for _, o := range opts {
		o(&c.opts)
	}
	if c.opts.buffered == 0 {
		c.opts.buffered = 2 * c.opts.maxWorkers
	}
	c.conns = newPool(&c.opts, addr)
	fc, err := c.conns.get(addr)
	if err != nil {
		return nil, err
	}
	if c.opts.user != "" {
		if err := c.login(ctx, fc); err != nil {
			c.conns.close()
			return nil, err
		}
	}
	return c, nil
}

// login trades the Basic credentials for a session bearer token, which
// every later call then sends instead of them.
func (c *Client) login(ctx context.Context, fc flight.Client) error {
	authed, err := fc.AuthenticateBasicToken(ctx, c.opts.user, c.opts.pass)
	if err != nil {
		return fmt.Errorf("log in to %s as %s: %w", c.addr, c.opts.user, err)
	}
	md, _ := metadata.FromOutgoingContext(authed)
	bearer := md.Get("authorization")
	if len(bearer) == 0 {
		return fmt.Errorf("log in to %s as %s: the server returned no bearer token", c.addr, c.opts.user)
	}
	c.opts.headers = append(c.opts.headers, "authorization", bearer[len(bearer)-1])
	return nil
}

// Close closes every connection of the client.
func (c *Client) Close() error { return c.conns.close() }

// Addr returns the address the client was dialed with.
func (c *Client) Addr() string { return c.addr }

// outgoing adds the client's headers to a call's context.
func (c *Client) outgoing(ctx context.Context) context.Context {
	if len(c.opts.headers) == 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, c.opts.headers...)
}

func (c *Client) origin() (flight.Client, error) { return c.conns.get(c.addr) }

// Tables returns the names of the server's tables, sorted.
func (c *Client) Tables(ctx context.Context) ([]string, error) {
	fc, err := c.origin()
	if err != nil {
		return nil, err
	}
	stream, err := fc.ListFlights(c.outgoing(ctx), &flight.Criteria{})
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var names []string
	for {
		info, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list tables: %w", err)
		}
		names = append(names, strings.Join(info.GetFlightDescriptor().GetPath(), "."))
	}
	sort.Strings(names)
	return names, nil
}

// Snapshot is one snapshot of a table as the server's "snapshots" action
// lists it.
type Snapshot = actions.Snapshot

// Ref is a branch or tag as the server's "refs" action lists it.
type Ref = actions.Ref

// Snapshots returns a table's snapshots, oldest first.
func (c *Client) Snapshots(ctx context.Context, table string) ([]Snapshot, error) {
	out := []Snapshot{}
	err := c.action(ctx, actions.Snapshots, table, func(body []byte) error {
		var page []Snapshot
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		out = append(out, page...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Refs returns a table's branches and tags by name.
func (c *Client) Refs(ctx context.Context, table string) (map[string]Ref, error) {
	out := map[string]Ref{}
	// Unmarshal into a map adds the page's keys to those already there.
	err := c.action(ctx, actions.Refs, table, func(body []byte) error { return json.Unmarshal(body, &out) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// action runs a table action and hands each result's body to page, in
// order: the server splits a long answer over several results.
func (c *Client) action(ctx context.Context, kind, table string, page func(body []byte) error) error {
	fc, err := c.origin()
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]string{"table": table})
	if err != nil {
		return err
	}
	stream, err := fc.DoAction(c.outgoing(ctx), &flight.Action{Type: kind, Body: body})
	if err != nil {
		return withTable(table, fmt.Errorf("%s: %w", kind, err))
	}
	for {
		res, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return withTable(table, fmt.Errorf("%s: %w", kind, err))
		}
		if err := page(res.GetBody()); err != nil {
			return fmt.Errorf("table %s: %s answer: %w", table, kind, err)
		}
	}
}
