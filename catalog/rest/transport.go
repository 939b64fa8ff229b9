package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// maxBodyBytes bounds every response body but a loaded table's, which may
// hold a large metadata document (see WithMaxMetadataBytes).
const maxBodyBytes = 16 << 20

// call is one request to the catalog.
type call struct {
	method string
	url    string // absolute, already escaped
	query  url.Values
	header http.Header // besides the catalog's own headers
	form   url.Values  // a form body (the OAuth2 token request)
	body   []byte      // a JSON body (commits, creates)
	limit  int64       // body bound; 0: maxBodyBytes
	what   string      // what the call does, for messages: "load table demo.t"
	// notFound is wrapped by a 404's error, besides the server's type.
	notFound error
	// noAuth sends no Authorization header (the token request itself).
	noAuth bool
}

// response is what a call got back.
type response struct {
	status int
	header http.Header
	body   []byte
}

// call sends c and decodes a 200 body into out (nil: ignore the body).
func (c *Catalog) call(ctx context.Context, cl call, out any) error {
	resp, err := c.send(ctx, cl)
	if err != nil {
		return err
	}
	return c.decode(cl, resp, out)
}

// decode parses a response body into out, naming the call on failure.
func (c *Catalog) decode(cl call, resp *response, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.body, out); err != nil {
		return c.errorf(cl, "%w: malformed body: %v", errProtocol, err)
	}
	return nil
}

// send performs a call, with the catalog's headers and a bearer token. A
// 401 (or the spec's 419, token expired) is retried once after the token
// is refreshed, when it can be. Any status but 200, 204 and 304 is an
// error.
func (c *Catalog) send(ctx context.Context, cl call) (*response, error) {
	resp, err := c.sendOnce(ctx, cl)
	if err == nil && !cl.noAuth && (resp.status == http.StatusUnauthorized || resp.status == 419) {
		var refreshed bool
		if refreshed, err = c.auth.refresh(ctx); err == nil && refreshed {
			resp, err = c.sendOnce(ctx, cl)
		}
	}
	if err != nil {
		return nil, err
	}
	switch resp.status {
	case http.StatusOK, http.StatusNoContent, http.StatusNotModified:
		return resp, nil
	}
	return nil, c.statusError(cl, resp)
}

// sendOnce performs one HTTP exchange and reads the body, within the
// call's limit. Transport failures are ErrCatalogUnavailable, unless the
// caller's context ended them, which then says so.
func (c *Catalog) sendOnce(ctx context.Context, cl call) (*response, error) {
	reqCtx := ctx
	if _, ok := ctx.Deadline(); !ok && c.requestTimeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(ctx, c.requestTimeout)
		defer cancel()
	}
	target := cl.url
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	var body io.Reader
	var payload []byte // what is sent, which a SigV4 signature covers
	if cl.form != nil {
		payload = []byte(cl.form.Encode())
	} else if cl.body != nil {
		payload = cl.body
	}
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(reqCtx, cl.method, target, body)
	if err != nil {
		return nil, c.errorf(cl, "%w: %v", errProtocol, err)
	}
	for k, vs := range c.headers {
		req.Header[k] = vs
	}
	for k, vs := range cl.header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "iceflight")
	if cl.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if !cl.noAuth {
		if err := c.authorize(ctx, req, payload); err != nil {
			return nil, err
		}
	}
	hr, err := c.httpc.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, cl, err)
	}
	defer hr.Body.Close()
	limit := cl.limit
	if limit <= 0 {
		limit = maxBodyBytes
	}
	b, err := io.ReadAll(io.LimitReader(hr.Body, limit+1))
	if err != nil {
		return nil, c.transportError(ctx, cl, err)
	}
	if int64(len(b)) > limit {
		return nil, c.errorf(cl, "%w: response body over %d bytes", errProtocol, limit)
	}
	return &response{status: hr.StatusCode, header: hr.Header, body: b}, nil
}

// transportError classifies an error of the HTTP exchange itself: the
// caller's context ending (canceled, or its deadline passed), else a
// catalog that could not be reached, or not in the request timeout.
func (c *Catalog) transportError(ctx context.Context, cl call, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return c.errorf(cl, "%w", cerr)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// The message names the call already; the URL would repeat it.
		err = uerr.Err
	}
	return c.errorf(cl, "%w: %v", catalog.ErrCatalogUnavailable, err)
}

// errorModel is the spec's error body (IcebergErrorResponse).
type errorModel struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
}

// maxServerMessage bounds the part of a server's error message that is
// repeated in ours.
const maxServerMessage = 512

// statusError maps an HTTP status to the catalog's sentinel errors:
// 401/403 (and 419) PermissionDenied, 404 not found (the call's kind of
// not found, unless the server says a namespace is missing), 5xx and 429
// Unavailable, 3xx and other 4xx protocol errors. The server's error type
// and message are kept, cut short.
func (c *Catalog) statusError(cl call, resp *response) error {
	var em errorModel
	detail := ""
	if json.Unmarshal(resp.body, &em) == nil && (em.Error.Type != "" || em.Error.Message != "") {
		detail = em.Error.Type
		if m := em.Error.Message; m != "" {
			if detail != "" {
				detail += ": "
			}
			detail += truncate(m)
		}
	}
	if detail == "" {
		detail = http.StatusText(resp.status)
	}
	code := resp.status
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden || code == 419:
		return c.errorf(cl, "%w: HTTP %d: %s", catalog.ErrCatalogPermissionDenied, code, detail)
	case code == http.StatusNotFound:
		var kind error = catalog.ErrTableNotFound
		if em.Error.Type == "NoSuchNamespaceException" {
			kind = catalog.ErrNamespaceNotFound
			if errors.Is(cl.notFound, catalog.ErrTableNotFound) {
				// A table in a namespace that is not there is not there.
				return c.errorf(cl, "%w: %w: HTTP 404: %s", catalog.ErrTableNotFound, kind, detail)
			}
		}
		if cl.notFound != nil && em.Error.Type != "NoSuchNamespaceException" {
			kind = cl.notFound
		}
		return c.errorf(cl, "%w: HTTP 404: %s", kind, detail)
	case code == http.StatusTooManyRequests || code >= 500:
		return c.errorf(cl, "%w: HTTP %d: %s", catalog.ErrCatalogUnavailable, code, detail)
	case code >= 300 && code < 400:
		return c.errorf(cl, "%w: HTTP %d redirect to %q not followed", errProtocol, code, resp.header.Get("Location"))
	}
	return c.errorf(cl, "%w: HTTP %d: %s", errProtocol, code, detail)
}

// errProtocol is catalog.ErrCatalogProtocol, short.
var errProtocol = catalog.ErrCatalogProtocol

// errorf names the catalog and the call before the message.
func (c *Catalog) errorf(cl call, format string, args ...any) error {
	return fmt.Errorf("rest catalog %q: %s: %w", c.name, cl.what, fmt.Errorf(format, args...))
}

// truncate cuts a server's message to maxServerMessage bytes and to its
// first line (servers such as the Java fixture append stack traces).
func truncate(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > maxServerMessage {
		s = strings.ToValidUTF8(s[:maxServerMessage], "") + "…"
	}
	return string(bytes.TrimSpace([]byte(s)))
}
