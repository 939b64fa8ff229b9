package hms

import (
	"errors"
	"fmt"
)

// Kinds of the exceptions the metastore declares (hive_metastore.thrift),
// as Exception.Kind holds them.
const (
	MetaException             = "MetaException"
	NoSuchObjectException     = "NoSuchObjectException"
	AlreadyExistsException    = "AlreadyExistsException"
	InvalidObjectException    = "InvalidObjectException"
	InvalidOperationException = "InvalidOperationException"
	UnknownDBException        = "UnknownDBException"
	NoSuchLockException       = "NoSuchLockException"
	NoSuchTxnException        = "NoSuchTxnException"
	TxnAbortedException       = "TxnAbortedException"
	TxnOpenException          = "TxnOpenException"
)

// Exception is an exception the metastore declares for a call, answered
// in place of its result: the call was received and refused.
type Exception struct {
	// Method is the call that was refused, "get_table_req".
	Method string
	// Kind is the exception's name in the IDL, such as
	// NoSuchObjectException.
	Kind string
	// Message is the metastore's explanation.
	Message string
}

func (e *Exception) Error() string {
	return fmt.Sprintf("metastore %s: %s: %s", e.Method, e.Kind, e.Message)
}

// IsException reports whether err is, or wraps, a metastore exception of
// the kind named.
func IsException(err error, kind string) bool {
	var e *Exception
	return errors.As(err, &e) && e.Kind == kind
}

// exceptionWire is every declared exception on the wire: a message only.
type exceptionWire struct {
	Message string `thrift:"1"`
	Unknown Unknown
}

// ApplicationError is a Thrift application exception: the metastore could
// not run the call at all (an unknown method, an internal error before the
// handler's own exceptions).
type ApplicationError struct {
	Method  string
	Type    int32
	Message string
}

func (e *ApplicationError) Error() string {
	return fmt.Sprintf("metastore %s: application error %d: %s", e.Method, e.Type, e.Message)
}

// ConnError is a call that failed in transport: no connection, a broken
// one, a deadline passed, or bytes that are not the call's reply.
type ConnError struct {
	// Method is the call.
	Method string
	// Sent reports whether the whole request may have reached the
	// metastore: when true, the call may or may not have taken effect.
	Sent bool
	// Err is the cause.
	Err error
}

func (e *ConnError) Error() string {
	state := "not sent"
	if e.Sent {
		state = "sent, no reply"
	}
	return fmt.Sprintf("metastore %s (%s): %v", e.Method, state, e.Err)
}

func (e *ConnError) Unwrap() error { return e.Err }
