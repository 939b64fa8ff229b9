package engine

import (
	"context"
	"path/filepath"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg/scantask"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// access returns the tables the caller of ctx may read, for a table's
// confinement (catalog.Table.ForCaller); nil, every table, when
// authentication is disabled.
func (a *Authenticator) access(ctx context.Context) catalog.Access {
	p, err := a.Principal(ctx)
	if err != nil || p == nil {
		return nil
	}
	return func(id catalog.Identifier) bool { return p.CanRead(id.Namespace()) }
}

// readError names the files in an error of task's read as a client may see
// them: the data file by its recorded path when the ticket carries it,
// and any file of the table's folder relative to the table, as Iceberg's
// relative locations are. A ticket's paths are where the coordinator
// found the files, the server's own, and stay in the ticket.
func readError(t *iceflightv1.Ticket, task *scantask.Task, err error) error {
	if task.FilePath != "" {
		err = fileio.Rename(err, task.Path, task.FilePath)
	}
	// The metadata location is <table folder>/metadata/<file>.
	meta := filepath.Dir(t.MetadataLocation)
	if filepath.Base(meta) != "metadata" {
		return err
	}
	return fileio.Rename(err, filepath.Dir(meta)+string(filepath.Separator), "")
}
