package testutil

import (
	"strings"
	"sync"
	"testing"
)

func TestLockedBufferKeepsEveryConcurrentWrite(t *testing.T) {
	t.Parallel()
	var b LockedBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("x"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("x", 800) {
		t.Fatalf("got %d bytes, want 800", len(got))
	}
}
