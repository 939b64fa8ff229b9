package fileio

import "regexp"

// urlQuery matches the query of a URL quoted in a message.
var urlQuery = regexp.MustCompile(`(https?://[^\s"?]*)\?[^\s"]*`)

// RedactQuery returns err with every URL in its message cut at its query,
// or err itself when its message quotes none. Object-store requests carry
// credentials there (an Azure SAS signature, a presigned S3 request's
// signature), and net/http's and the SDKs' errors quote whole URLs: a back
// end passes every error it returns through this, so no message holds a
// secret. errors.Is and errors.As still see the whole chain.
func RedactQuery(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := urlQuery.ReplaceAllString(msg, "$1?REDACTED")
	if red == msg {
		return err
	}
	return &redacted{msg: red, err: err}
}

// redacted is an error whose message is its cause's, redacted.
type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }
