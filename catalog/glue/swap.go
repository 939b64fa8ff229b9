package glue

import (
	"context"
	"fmt"
	"net/http/httptrace"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// Swap points the Glue table id at loc if it points at base, as Java's
// GlueTableOperations commits: it reads the table, compares its
// metadata_location with base, and updates it with the version it read
// (Glue's optimistic lock: Glue refuses the update, with a
// ConcurrentModificationException, when another writer updated the table
// in between). The update keeps the table's other parameters and records
// base as previous_metadata_location.
//
// The update is sent once, never retried: a retry of an update that Glue
// applied would fail on the version it changed and report a conflict for
// a commit that won. When the connection breaks after the update was
// written, the table is read again: pointing at loc, the commit won;
// otherwise its outcome is unknown (catalog.ErrCommitStateUnknown).
func (s *Store) Swap(ctx context.Context, id catalog.Identifier, base, loc string, md *iceberg.TableMetadata) error {
	unlock, err := s.locks.lock(ctx, id.String())
	if err != nil {
		return err
	}
	defer unlock()
	t, err := s.table(ctx, id)
	if err != nil {
		return err
	}
	if now := t.Parameters[metadataLocationParam]; now != base {
		return fmt.Errorf("%w: the table points at %s, not at %s", catalog.ErrCommitConflict, now, base)
	}
	db, name, _ := names(id)
	in := tableInput(name, loc, t.Parameters, md, t)
	in.Parameters[previousLocationParam] = base
	sent := &writeTrace{}
	_, err = s.client.UpdateTable(sent.context(ctx), &glue.UpdateTableInput{
		CatalogId:    s.catalogID,
		DatabaseName: aws.String(db),
		TableInput:   in,
		VersionId:    t.VersionId,
		SkipArchive:  aws.Bool(s.skipArchive),
	}, func(o *glue.Options) { o.RetryMaxAttempts = 1 })
	switch code := errorCode(err); {
	case err == nil:
		return nil
	case code == codeConcurrent:
		return fmt.Errorf("%w: Glue saw another update of table version %s: %w", catalog.ErrCommitConflict, aws.ToString(t.VersionId), err)
	case code == codeNotFound:
		return fmt.Errorf("%w: dropped during the commit", catalog.ErrTableNotFound)
	case code != "" || !sent.wrote() || dialFailed(err):
		// Glue answered, or never had the whole request: nothing changed.
		return s.wrapErr(ctx, "update table "+id.String(), err)
	}
	return s.settle(ctx, id, loc, err)
}

// settle finds out what became of an update of the table id to loc whose
// answer was lost (err): it won if the table points at loc now.
func (s *Store) settle(ctx context.Context, id catalog.Identifier, loc string, lost error) error {
	unknown := fmt.Errorf("%w: the connection to Glue failed after the update was sent: %w", catalog.ErrCommitStateUnknown, lost)
	if ctx.Err() != nil {
		return unknown
	}
	if now, err := s.Locate(ctx, id); err == nil && now == loc {
		return nil
	}
	return unknown
}

// tableLocks serializes the swaps of each table within one Store, as Iceberg
// Java's in-memory lock manager does where it cannot use Glue's VersionId:
// writers of one process then lose a race on the metadata location they
// read, whether or not the Glue they talk to checks versions (an emulator
// may not). Across processes Glue's VersionId alone guards the swap.
type tableLocks struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed when released
}

// lock waits until no other swap of key runs in this Store, or ctx ends,
// and returns the function that lets the next one in.
func (l *tableLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	for {
		l.mu.Lock()
		if l.held == nil {
			l.held = map[string]chan struct{}{}
		}
		busy, ok := l.held[key]
		if !ok {
			done := make(chan struct{})
			l.held[key] = done
			l.mu.Unlock()
			return func() {
				l.mu.Lock()
				delete(l.held, key)
				l.mu.Unlock()
				close(done)
			}, nil
		}
		l.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// writeTrace records whether a request was written out whole, so that a
// lost answer can be told from a request that never reached Glue.
type writeTrace struct {
	mu    sync.Mutex
	whole bool
}

// context returns ctx with the trace attached to the requests made with it.
func (w *writeTrace) context(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				w.mu.Lock()
				w.whole = true
				w.mu.Unlock()
			}
		},
	})
}

// wrote reports whether a request was written whole.
func (w *writeTrace) wrote() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.whole
}
