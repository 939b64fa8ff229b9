package fileio

import (
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"testing"
)

func TestRedactQueryKeepsSignaturesOutOfMessages(t *testing.T) {
	t.Parallel()
	inner := &url.Error{Op: "Get", URL: "http://h/c/b?sig=inner", Err: syscall.ECONNREFUSED}
	err := fmt.Errorf("open x: %w", &url.Error{Op: "Head", URL: "http://h/c/b?se=1&sig=s3cr3t", Err: inner})
	msg := RedactQuery(err).Error()
	if strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "inner") {
		t.Errorf("message %q holds a signature", msg)
	}
	if !strings.Contains(msg, "http://h/c/b?REDACTED") || !Transient(err) {
		t.Errorf("message %q lost its URL or its cause", msg)
	}
	if RedactQuery(nil) != nil {
		t.Error("RedactQuery(nil) is not nil")
	}
}
