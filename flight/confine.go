package flight

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// access returns the tables the caller of ctx may read, for a table's
// confinement (catalog.Table.ForCaller); nil, every table, when
// authentication is disabled.
func (a *Authenticator) access(ctx context.Context) catalog.Access {
	p, err := a.principal(ctx)
	if err != nil || p == nil {
		return nil
	}
	return func(id catalog.Identifier) bool { return p.CanRead(id.Namespace()) }
}

// checkPlanFiles refuses a plan that names a data or delete file its table
// may not read: outside the warehouse, or in the folder of a table the
// caller may not read. Tickets are signed and workers trust them, so the
// coordinator is the last place that knows the caller: once a path is in a
// ticket, any worker opens it. The error names the file as the table's
// metadata records it.
func checkPlanFiles(tbl *catalog.Table, plan *planner.Plan) error {
	seen := make(map[string]bool)
	check := func(kind, path string) error {
		if seen[path] {
			return nil
		}
		seen[path] = true
		if err := tbl.CheckFile(path); err != nil {
			return fmt.Errorf("table %s: %s %s: %w", tbl.Identifier, kind, tbl.Recorded(path), err)
		}
		return nil
	}
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			if err := check("data file", task.Path); err != nil {
				return err
			}
			for _, d := range task.Deletes {
				if err := check("delete file", d.Path); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readError names the files in an error of task's read as a client may see
// them: the data file by its recorded path when the ticket carries it,
// and any file of the table's folder relative to the table, as Iceberg's
// relative locations are. A ticket's paths are where the coordinator
// found the files, the server's own, and stay in the ticket.
func readError(t *iceflightv1.Ticket, task *iceflightv1.Task, err error) error {
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
