package planner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/panics"
)

// panicOnManifests is a FileIO that panics when a manifest (not the
// manifest list) is opened, as a decoder bug met by a hostile manifest
// would in a planning worker.
type panicOnManifests struct{ fileio.FileIO }

func (p panicOnManifests) Open(ctx context.Context, loc string) (fileio.File, error) {
	if strings.HasSuffix(loc, ".avro") && !strings.Contains(filepath.Base(loc), "snap-") {
		panic("injected fault opening " + loc)
	}
	return p.FileIO.Open(ctx, loc)
}

// TestAPanicInAPlanningWorkerFailsThePlan checks that a panic in one of
// the goroutines that read manifests in parallel comes back from Plan as
// an error naming the manifest, instead of ending the process.
func TestAPanicInAPlanningWorkerFailsThePlan(t *testing.T) {
	t.Parallel()
	table := loadSampleTable(t, "history")
	table.IO = panicOnManifests{table.IO}
	_, err := New().Plan(context.Background(), table, Request{})
	if !errors.Is(err, panics.ErrPanic) || !strings.Contains(err.Error(), "read manifest") || !strings.Contains(err.Error(), ".avro") {
		t.Fatalf("Plan returned %v, want the recovered panic naming the manifest", err)
	}
}
