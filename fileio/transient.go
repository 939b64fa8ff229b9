package fileio

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
)

// HTTPStatus returns the sentinel an object store's HTTP status code
// belongs under: 404 ErrNotFound, 401 and 403 ErrPermissionDenied, 408,
// 429 and 5xx ErrUnavailable (what a store's own retries have not
// mended), 416 ErrSizeMismatch; nil for any other code. A store answers
// 416 to a range that starts past the object's end, and ranged reads ask
// only for bytes below the size the file was opened with: the object is
// shorter than that size.
func HTTPStatus(code int) error {
	switch {
	case code == http.StatusNotFound:
		return ErrNotFound
	case code == http.StatusRequestedRangeNotSatisfiable:
		return ErrSizeMismatch
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return ErrPermissionDenied
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return ErrUnavailable
	}
	return nil
}

// Transient reports whether err is a failure of the connection to a storage
// server rather than the server's answer: refused or reset connections, a
// body cut short, a network timeout. An object-store back end wraps such
// errors, once its retries are spent, with ErrUnavailable. The caller's own
// context ending is not transient: that is the caller giving up.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE) {
		return true
	}
	// *url.Error is a net.Error whatever it wraps (a token source's
	// refusal too): judge what it wraps.
	var ue *url.Error
	if errors.As(err, &ue) {
		return Transient(ue.Err)
	}
	var ne net.Error
	return errors.As(err, &ne)
}
