package hms

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"reflect"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/iceflight/iceflight/internal/thriftval"
)

// maxReply bounds one reply of the metastore (a listing of thousands of
// tables is a few MB).
const maxReply = 256 << 20

// conn is one connection to a metastore: Thrift's binary protocol over a
// buffered socket, as the metastore serves it without SASL. It is not safe
// for concurrent calls; the Pool hands it to one caller at a time.
type conn struct {
	nc      net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	proto   *thrift.TBinaryProtocol
	timeout time.Duration // a call's bound when its context has none
	seq     int32
	idle    time.Time // when it was last given back to the pool
	broken  bool      // a call failed in transport: close, never reuse
}

func newConn(nc net.Conn, timeout time.Duration) *conn {
	c := &conn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10), w: bufio.NewWriterSize(nc, 64<<10), timeout: timeout}
	c.proto = thrift.NewTBinaryProtocolConf(transport{c}, &thrift.TConfiguration{MaxMessageSize: maxReply})
	return c
}

// transport lets the Thrift protocol read and write conn's buffers; the
// deadlines are conn's to set, not the transport's.
type transport struct{ c *conn }

func (t transport) Read(p []byte) (int, error)        { return t.c.r.Read(p) }
func (t transport) Write(p []byte) (int, error)       { return t.c.w.Write(p) }
func (t transport) Close() error                      { return t.c.nc.Close() }
func (t transport) Flush(context.Context) error       { return t.c.w.Flush() }
func (t transport) RemainingBytes() uint64            { return math.MaxUint64 }
func (t transport) Open() error                       { return nil }
func (t transport) IsOpen() bool                      { return true }
func (t transport) ReadByte() (byte, error)           { return t.c.r.ReadByte() }
func (t transport) WriteByte(b byte) error            { return t.c.w.WriteByte(b) }
func (t transport) WriteString(s string) (int, error) { return t.c.w.WriteString(s) }

// close closes the socket.
func (c *conn) close() { _ = c.nc.Close() }

// stale reports whether the metastore closed the connection while it sat
// in the pool: a read that does not block finds the end of the stream (or
// a stray byte, which means the stream is out of step).
func (c *conn) stale() bool {
	if c.r.Buffered() > 0 {
		return true
	}
	_ = c.nc.SetReadDeadline(time.Now())
	_, err := c.r.Peek(1)
	_ = c.nc.SetReadDeadline(time.Time{})
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// call sends the request method with the struct args and reads its reply:
// the result into success (a pointer; nil for a void method), or the
// exception the metastore raised, whose kinds by field id (1, 2, ...) are
// exceptions. Transport failures are *ConnError and leave c broken.
func (c *conn) call(ctx context.Context, method string, args, success any, exceptions ...string) error {
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := c.nc.SetDeadline(deadline); err != nil {
		c.broken = true
		return &ConnError{Method: method, Err: err}
	}
	// A cancelled context ends the call at once: the socket's deadline is
	// moved to now, which fails the read or write in progress.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Now()) })
	defer stop()

	sent := false
	fail := func(err error) error {
		c.broken = true
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return &ConnError{Method: method, Sent: sent, Err: err}
	}
	c.seq++
	p := c.proto
	if err := p.WriteMessageBegin(ctx, method, thrift.CALL, c.seq); err != nil {
		return fail(err)
	}
	if err := writeStruct(ctx, p, args); err != nil {
		return fail(err)
	}
	if err := p.WriteMessageEnd(ctx); err != nil {
		return fail(err)
	}
	if err := p.Flush(ctx); err != nil {
		return fail(err)
	}
	// From here on the metastore may have the whole request.
	sent = true

	name, kind, seq, err := p.ReadMessageBegin(ctx)
	if err != nil {
		return fail(err)
	}
	if kind == thrift.EXCEPTION {
		ae := thrift.NewTApplicationException(thrift.UNKNOWN_APPLICATION_EXCEPTION, "")
		if err := ae.Read(ctx, p); err != nil {
			return fail(err)
		}
		if err := p.ReadMessageEnd(ctx); err != nil {
			return fail(err)
		}
		return &ApplicationError{Method: method, Type: ae.TypeId(), Message: ae.Error()}
	}
	if kind != thrift.REPLY || name != method || seq != c.seq {
		return fail(fmt.Errorf("reply %q (type %d, seq %d) to call %q seq %d", name, kind, seq, method, c.seq))
	}
	raised, err := readResult(ctx, p, method, success, exceptions)
	if err != nil {
		return fail(err)
	}
	if err := p.ReadMessageEnd(ctx); err != nil {
		return fail(err)
	}
	if raised != nil {
		return raised
	}
	return nil
}

// readResult reads a call's result struct: field 0 is the return value,
// fields 1... the exceptions declared. It returns the exception raised,
// if any.
func readResult(ctx context.Context, p thrift.TProtocol, method string, success any, exceptions []string) (*Exception, error) {
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return nil, err
	}
	var raised *Exception
	got := false
	for {
		_, tt, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return nil, err
		}
		if tt == thrift.STOP {
			break
		}
		switch {
		case id == 0 && success != nil:
			if err := readValue(ctx, p, reflect.ValueOf(success).Elem(), 0); err != nil {
				return nil, fmt.Errorf("result of %s: %w", method, err)
			}
			got = true
		case id >= 1 && tt == thrift.STRUCT:
			var e exceptionWire
			if err := readStruct(ctx, p, &e); err != nil {
				return nil, fmt.Errorf("exception of %s: %w", method, err)
			}
			kind := fmt.Sprintf("exception %d", id)
			if int(id) <= len(exceptions) {
				kind = exceptions[id-1]
			}
			raised = &Exception{Method: method, Kind: kind, Message: e.Message}
		default:
			if _, err := thriftval.Read(ctx, p, tt); err != nil {
				return nil, err
			}
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return nil, err
		}
	}
	if err := p.ReadStructEnd(ctx); err != nil {
		return nil, err
	}
	if raised == nil && success != nil && !got {
		return nil, fmt.Errorf("reply to %s holds neither a result nor an exception", method)
	}
	return raised, nil
}
