package testutil

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// LockedBuffer is a bytes.Buffer that one side may write (a server's
// goroutines, a child process's output copiers) while a test reads it.
// The zero value is ready to use.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p to the buffer.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what has been written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// JSONLines decodes what has been written so far as JSON lines (a JSON
// log handler's output), failing t on a line that is not a JSON object.
func (b *LockedBuffer) JSONLines(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}
