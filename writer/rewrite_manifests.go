package writer

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// Manifest rewrite settings (Iceberg Java's TableProperties).
const (
	propManifestTargetSize    = "commit.manifest.target-size-bytes"
	defaultManifestTargetSize = 8 << 20
)

// RewriteManifests rewrites the current snapshot's small data manifests
// (those under the target size, commit.manifest.target-size-bytes by
// default, 8 MiB) of each partition spec that has two or more of them
// into as few manifests of about the target size (when that lowers the
// count), as Iceberg Java's
// RewriteManifests does: every live entry is carried as EXISTING with its
// snapshot id, data and file sequence numbers (and v3 first row id), and
// DELETED entries are dropped. Delete manifests and large manifests are
// kept as they are. The commit is a replace snapshot on main that
// requires main's head it was built on; the files the table reads do not
// change.
func (w *Writer) RewriteManifests(ctx context.Context, id catalog.Identifier, req RewriteManifestsRequest) (*MaintenanceResult, error) {
	if req.TargetManifestSize < 0 {
		return nil, fmt.Errorf("rewrite manifests of %s: %w: negative target size", id, ErrInvalidArgument)
	}
	var out *MaintenanceResult
	_, err := w.retry(ctx, id, func(ctx context.Context, attempt int, t *catalog.Table) ([]string, error) {
		res, written, err := w.rewriteManifestsOnce(ctx, t, attempt, req)
		if err != nil {
			return written, fmt.Errorf("rewrite manifests of %s: %w", id, err)
		}
		out = res
		return written, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rewriteManifestsOnce is one attempt on a fresh load of the table.
func (w *Writer) rewriteManifestsOnce(ctx context.Context, t *catalog.Table, attempt int, req RewriteManifestsRequest) (*MaintenanceResult, []string, error) {
	res := &MaintenanceResult{DryRun: req.DryRun, Removed: []RemovedFile{}, Counts: map[string]int{}}
	md := t.Metadata
	head := md.CurrentSnapshot()
	if head == nil {
		return res, nil, nil
	}
	target := req.TargetManifestSize
	if target == 0 {
		target = propInt(md.Properties, propManifestTargetSize, defaultManifestTargetSize)
	}
	p, err := newProducer(w, t, &change{operation: operationReplace}, attempt)
	if err != nil {
		return nil, nil, err
	}
	mfs, err := p.readList(ctx, head)
	if err != nil {
		return nil, nil, err
	}
	// Small data manifests by spec, in list order.
	bySpec := map[int][]iceberg.ManifestFile{}
	var specs []int
	for _, mf := range mfs {
		if mf.Content != iceberg.ManifestContentData || mf.Length < 0 || mf.Length >= target {
			continue
		}
		if _, ok := bySpec[mf.SpecID]; !ok {
			specs = append(specs, mf.SpecID)
		}
		bySpec[mf.SpecID] = append(bySpec[mf.SpecID], mf)
	}
	replaced := map[string]bool{}
	var created []iceberg.ManifestFile
	entries := 0
	for _, specID := range specs {
		group := bySpec[specID]
		if len(group) < 2 {
			continue
		}
		spec, ok := md.SpecByID(specID)
		if !ok {
			return nil, p.written, fmt.Errorf("%w: manifest of unknown partition spec %d", iceberg.ErrInvalidMetadata, specID)
		}
		var bytes int64
		for _, mf := range group {
			bytes += mf.Length
		}
		// As many manifests as the bytes need; a rewrite that would not
		// lower the count is not worth a snapshot.
		n := int((bytes + target - 1) / target)
		if n >= len(group) {
			continue
		}
		var live []iceberg.ManifestEntry
		for _, mf := range group {
			es, err := readManifest(ctx, t, mf)
			if err != nil {
				return nil, p.written, err
			}
			for _, e := range es {
				if e.Status != iceberg.EntryDeleted {
					e.Status = iceberg.EntryExisting
					live = append(live, e)
				}
			}
			replaced[mf.Path] = true
			res.Removed = append(res.Removed, RemovedFile{Location: mf.Path, Kind: kindManifest, Size: mf.Length})
		}
		entries += len(live)
		// Entries spread evenly: an entry takes about the room it took.
		n = max(1, min(n, len(live)))
		if req.DryRun {
			res.AddedFiles += int64(n)
			continue
		}
		for i := range n {
			chunk := live[i*len(live)/n : (i+1)*len(live)/n]
			mf, err := p.writeManifest(ctx, iceberg.ManifestContentData, spec, func(mw *manifest.Writer) error {
				for _, e := range chunk {
					if err := mw.Add(e); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return nil, p.written, err
			}
			created = append(created, mf)
		}
	}
	res.RewrittenFiles = int64(len(replaced))
	res.Counts[kindManifest] = len(replaced)
	if len(replaced) == 0 {
		return res, nil, nil
	}
	if req.DryRun {
		res.Counts["added"] = int(res.AddedFiles)
		return res, nil, nil
	}
	res.AddedFiles = int64(len(created))
	res.Counts["added"] = len(created)
	// Java's order: data manifests (new first), then delete manifests.
	list := slices.Clone(created)
	for _, content := range []iceberg.ManifestContent{iceberg.ManifestContentData, iceberg.ManifestContentDeletes} {
		for _, mf := range mfs {
			if mf.Content == content && !replaced[mf.Path] {
				list = append(list, mf)
				p.sum.manifestsKept++
			}
		}
	}
	p.sum.manifestsReplaced = int64(len(replaced))
	p.ch.summary = map[string]string{"entries-processed": strconv.Itoa(entries)}
	if err := w.runHook("manifests-written"); err != nil {
		return nil, p.written, err
	}
	snap, err := p.writeList(ctx, list)
	if err != nil {
		return nil, p.written, err
	}
	if err := w.runHook("metadata-written"); err != nil {
		return nil, p.written, err
	}
	reqs := []iceberg.Requirement{iceberg.AssertTableUUID{UUID: md.TableUUID}, p.headRequirement()}
	updates := []iceberg.Update{iceberg.AddSnapshot{Snapshot: *snap}, iceberg.SetSnapshotRef{Name: p.branch, Ref: p.ref()}}
	if _, err := w.cat.CommitTable(ctx, t.Identifier, reqs, updates); err != nil {
		return nil, p.written, fmt.Errorf("commit snapshot %d: %w", p.snapshotID, err)
	}
	if err := w.runHook("committed"); err != nil {
		return nil, nil, err
	}
	res.SnapshotID = p.snapshotID
	sortRemoved(res.Removed)
	return res, nil, nil
}
