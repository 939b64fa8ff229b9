package hive

import (
	"errors"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/hive/hms"
)

// object is what a call was about, for the sentinel a missing or
// duplicate one maps to.
type object int

const (
	aTable object = iota
	aNamespace
)

// mapError turns an error of the metastore client into one wrapping the
// catalog package's sentinels, about the object what names:
//
//   - NoSuchObjectException (and UnknownDBException): the object is not
//     found, ErrTableNotFound or ErrNamespaceNotFound;
//   - AlreadyExistsException: ErrTableExists or ErrNamespaceExists;
//   - MetaException, the metastore failing on its side (its database, its
//     file system), and a transport failure (refused, timed out, broken):
//     ErrCatalogUnavailable;
//   - any other refusal (InvalidObjectException ...) or a reply outside
//     the protocol: ErrCatalogProtocol.
//
// The metastore's own message is kept; it names no secret.
func mapError(err error, what object) error {
	if err == nil || mapped(err) {
		return err
	}
	var ex *hms.Exception
	var app *hms.ApplicationError
	var conn *hms.ConnError
	switch {
	case errors.As(err, &ex):
		switch ex.Kind {
		case hms.NoSuchObjectException, hms.UnknownDBException:
			return fmt.Errorf("%w: %v", notFound(what), err)
		case hms.AlreadyExistsException:
			if what == aNamespace {
				return fmt.Errorf("%w: %v", catalog.ErrNamespaceExists, err)
			}
			return fmt.Errorf("%w: %v", catalog.ErrTableExists, err)
		case hms.MetaException:
			return fmt.Errorf("%w: %v", catalog.ErrCatalogUnavailable, err)
		}
		return fmt.Errorf("%w: %v", catalog.ErrCatalogProtocol, err)
	case errors.As(err, &app):
		if app.Type == thrift.INTERNAL_ERROR {
			return fmt.Errorf("%w: %v", catalog.ErrCatalogUnavailable, err)
		}
		return fmt.Errorf("%w: %v", catalog.ErrCatalogProtocol, err)
	case errors.As(err, &conn), errors.Is(err, hms.ErrClosed):
		return fmt.Errorf("%w: %w", catalog.ErrCatalogUnavailable, err)
	}
	return err
}

// mapChange maps the error of a call that changes the metastore: as
// mapError, and a change whose reply was lost after the request went out
// also wraps catalog.ErrCommitStateUnknown, since it may have been made.
func mapChange(err error, what object) error {
	var conn *hms.ConnError
	if errors.As(err, &conn) && conn.Sent {
		return fmt.Errorf("%w: %w", catalog.ErrCommitStateUnknown, mapError(err, what))
	}
	return mapError(err, what)
}

// mapped reports whether err already wraps a sentinel mapError gives.
func mapped(err error) bool {
	for _, s := range []error{catalog.ErrTableNotFound, catalog.ErrNamespaceNotFound, catalog.ErrTableExists,
		catalog.ErrNamespaceExists, catalog.ErrCatalogUnavailable, catalog.ErrCatalogProtocol} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func notFound(what object) error {
	if what == aNamespace {
		return catalog.ErrNamespaceNotFound
	}
	return catalog.ErrTableNotFound
}
