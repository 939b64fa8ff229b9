package writer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// maxManifestBytes bounds what one manifest or manifest list read may
// take into memory.
const maxManifestBytes = 1 << 30

// producer writes one attempt's snapshot of a change: Iceberg Java's
// SnapshotProducer and MergingSnapshotProducer, without manifest merging.
type producer struct {
	w      *Writer
	t      *catalog.Table
	md     *iceberg.TableMetadata
	ch     *change
	schema *iceberg.Schema
	branch string
	// parent is the branch head, or for a new branch the current
	// snapshot it forks from (Java's SnapshotUtil.latestSnapshot).
	parent       *iceberg.Snapshot
	branchExists bool
	attempt      int

	snapshotID int64
	seq        int64
	commitUUID string
	metaDir    string
	manifests  int
	sum        *summaryBuilder

	// written are the manifests and the manifest list of this attempt.
	written []string
}

func newProducer(w *Writer, t *catalog.Table, ch *change, attempt int) (*producer, error) {
	md := t.Metadata
	p := &producer{w: w, t: t, md: md, ch: ch, schema: md.CurrentSchema(), branch: ch.branch, attempt: attempt,
		commitUUID: newUUID(), metaDir: metadataDir(t), sum: newSummaryBuilder()}
	if p.branch == "" {
		p.branch = mainBranch
	}
	if p.schema == nil {
		return nil, fmt.Errorf("table %s: %w: no current schema", t.Identifier, iceberg.ErrInvalidMetadata)
	}
	parent, err := branchHead(md, p.branch)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Identifier, err)
	}
	p.parent = parent
	_, p.branchExists = md.Refs[p.branch]
	p.snapshotID = newSnapshotID(md)
	if md.FormatVersion >= 2 {
		p.seq = md.LastSequenceNumber + 1
	}
	return p, nil
}

// newSnapshotID returns a random positive id no snapshot of md has.
func newSnapshotID(md *iceberg.TableMetadata) int64 {
	for {
		id := rand.Int64()
		if id == 0 {
			continue
		}
		if _, taken := md.SnapshotByID(id); !taken {
			return id
		}
	}
}

// commit writes the manifests, the manifest list and the snapshot and
// commits them to the catalog.
func (p *producer) commit(ctx context.Context) (*Result, error) {
	name := p.t.Identifier.String()
	var parentManifests []iceberg.ManifestFile
	if p.parent != nil {
		var err error
		if parentManifests, err = readList(ctx, p.t, p.parent); err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
	}
	kept, err := p.filterManifests(ctx, parentManifests)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	added, err := p.writeAdded(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	if err := p.w.runHook("manifests-written"); err != nil {
		return nil, err
	}
	// Java's order: data manifests (new first), then delete manifests.
	var list []iceberg.ManifestFile
	for _, content := range []iceberg.ManifestContent{iceberg.ManifestContentData, iceberg.ManifestContentDeletes} {
		for _, group := range [][]iceberg.ManifestFile{added, kept} {
			for _, mf := range group {
				if mf.Content == content {
					list = append(list, mf)
				}
			}
		}
	}
	if list, err = p.mergeManifests(ctx, list); err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	snap, err := p.writeList(ctx, list)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	if err := p.w.runHook("metadata-written"); err != nil {
		return nil, err
	}
	reqs := []iceberg.Requirement{iceberg.AssertTableUUID{UUID: p.md.TableUUID}, p.headRequirement()}
	updates := []iceberg.Update{
		iceberg.AddSnapshot{Snapshot: *snap},
		iceberg.SetSnapshotRef{Name: p.branch, Ref: p.ref()},
	}
	committed, err := p.w.cat.CommitTable(ctx, p.t.Identifier, reqs, updates)
	if err != nil {
		return nil, fmt.Errorf("commit snapshot %d to %s: %w", p.snapshotID, name, err)
	}
	if err := p.w.runHook("committed"); err != nil {
		return nil, err
	}
	return p.result(committed), nil
}

// headRequirement pins the branch to the head the change was built on.
func (p *producer) headRequirement() iceberg.Requirement {
	if !p.branchExists {
		return iceberg.AssertRefSnapshotID{Ref: p.branch}
	}
	id := p.parent.SnapshotID
	return iceberg.AssertRefSnapshotID{Ref: p.branch, SnapshotID: &id}
}

// ref is the branch moved to the new snapshot, keeping its retention.
func (p *producer) ref() iceberg.SnapshotRef {
	ref, ok := p.md.Refs[p.branch]
	if !ok {
		ref = iceberg.SnapshotRef{Type: iceberg.RefBranch}
	}
	ref.SnapshotID = p.snapshotID
	return ref
}

func (p *producer) result(committed *catalog.Table) *Result {
	s := p.sum
	r := &Result{
		SnapshotID:       p.snapshotID,
		SequenceNumber:   p.seq,
		Operation:        p.ch.operation,
		AddedDataFiles:   s.addedDataFiles,
		AddedRecords:     s.addedRecords,
		AddedDeleteFiles: s.addedDeleteFiles,
		DeletedDataFiles: s.deletedDataFiles,
		DeletedRecords:   s.deletedRecords + s.addedPosDeletes - s.removedPosDeletes,
		AddedBytes:       s.addedSize,
	}
	if committed != nil {
		r.MetadataLocation = committed.MetadataLocation
	}
	return r
}

// readList reads a snapshot's manifest list of the producer's table.
//
//lint:ignore U1000 rewrite_manifests (maint) calls it
func (p *producer) readList(ctx context.Context, s *iceberg.Snapshot) ([]iceberg.ManifestFile, error) {
	return readList(ctx, p.t, s)
}

// readList reads a snapshot's manifest list.
func readList(ctx context.Context, t *catalog.Table, s *iceberg.Snapshot) ([]iceberg.ManifestFile, error) {
	if s.ManifestList == "" {
		return nil, fmt.Errorf("snapshot %d: %w: no manifest list (a v1 snapshot listing manifests is not rewritten)", s.SnapshotID, ErrUnsupported)
	}
	b, err := fileio.ReadAll(ctx, t.IO, s.ManifestList, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s: %w", s.ManifestList, err)
	}
	mfs, err := manifest.ReadList(strings.NewReader(string(b)), t.Metadata.FormatVersion, s)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s: %w", s.ManifestList, err)
	}
	return mfs, nil
}

// readManifest reads every entry of a manifest, DELETED ones included.
func readManifest(ctx context.Context, t *catalog.Table, mf iceberg.ManifestFile) ([]iceberg.ManifestEntry, error) {
	md := t.Metadata
	spec, ok := md.SpecByID(mf.SpecID)
	if !ok {
		return nil, fmt.Errorf("read manifest %s: %w: unknown partition spec %d", mf.Path, iceberg.ErrInvalidMetadata, mf.SpecID)
	}
	b, err := fileio.ReadAll(ctx, t.IO, mf.Path, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", mf.Path, err)
	}
	entries, err := manifest.Read(strings.NewReader(string(b)), mf, spec.PartitionType(md.CurrentSchema()))
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", mf.Path, err)
	}
	return entries, nil
}

// filterManifests carries the parent's manifests over: those holding a
// removed file are rewritten with its entry DELETED (and the others
// EXISTING), the rest are kept as they are. Manifests left with no live
// files by an earlier snapshot are dropped, as Java drops them. A removed
// file not live in the parent is a conflict: another commit removed it.
func (p *producer) filterManifests(ctx context.Context, mfs []iceberg.ManifestFile) ([]iceberg.ManifestFile, error) {
	found := make(map[string]bool, len(p.ch.removed))
	var out []iceberg.ManifestFile
	for _, mf := range mfs {
		live := mf.AddedFilesCount != 0 || mf.ExistingFilesCount != 0
		if !live {
			continue
		}
		if !p.ch.mayHoldRemoved(mf) {
			p.sum.manifestsKept++
			out = append(out, mf)
			continue
		}
		entries, err := readManifest(ctx, p.t, mf)
		if err != nil {
			return nil, err
		}
		hit := false
		for _, e := range entries {
			if e.Status != iceberg.EntryDeleted {
				if _, ok := p.ch.removed[fileKey(e.DataFile)]; ok {
					hit = true
					break
				}
			}
		}
		if !hit {
			p.sum.manifestsKept++
			out = append(out, mf)
			continue
		}
		rewritten, err := p.rewriteManifest(ctx, mf, entries, found)
		if err != nil {
			return nil, err
		}
		p.sum.manifestsReplaced++
		out = append(out, rewritten)
	}
	for loc := range p.ch.removed {
		if !found[loc] {
			return nil, fmt.Errorf("%w: file %s is no longer in the table", catalog.ErrCommitConflict, loc)
		}
	}
	return out, nil
}

// rewriteManifest writes mf again with the removed files' entries DELETED
// by this snapshot and the other live ones EXISTING.
func (p *producer) rewriteManifest(ctx context.Context, mf iceberg.ManifestFile, entries []iceberg.ManifestEntry, found map[string]bool) (iceberg.ManifestFile, error) {
	spec, _ := p.md.SpecByID(mf.SpecID)
	return p.writeManifest(ctx, mf.Content, spec, func(mw *manifest.Writer) error {
		for _, e := range entries {
			if e.Status == iceberg.EntryDeleted {
				continue
			}
			if _, ok := p.ch.removed[fileKey(e.DataFile)]; ok {
				found[fileKey(e.DataFile)] = true
				e.Status = iceberg.EntryDeleted
				e.SnapshotID = p.snapshotID
				p.sum.removedFile(e.DataFile)
			} else {
				e.Status = iceberg.EntryExisting
			}
			if err := mw.Add(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeAdded writes one manifest per content and spec of the added files.
func (p *producer) writeAdded(ctx context.Context) ([]iceberg.ManifestFile, error) {
	type key struct {
		content iceberg.ManifestContent
		spec    int
	}
	var order []key
	groups := map[key][]iceberg.DataFile{}
	add := func(content iceberg.ManifestContent, files []iceberg.DataFile) {
		for _, df := range files {
			k := key{content, df.SpecID}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], df)
		}
	}
	add(iceberg.ManifestContentData, p.ch.addedData)
	add(iceberg.ManifestContentDeletes, p.ch.addedDeletes)
	var out []iceberg.ManifestFile
	for _, k := range order {
		spec, ok := p.md.SpecByID(k.spec)
		if !ok {
			return nil, fmt.Errorf("%w: added file names unknown partition spec %d", iceberg.ErrInvalidMetadata, k.spec)
		}
		if k.content == iceberg.ManifestContentDeletes && p.md.FormatVersion < 2 {
			return nil, fmt.Errorf("%w: delete files need format version 2 or later", ErrUnsupported)
		}
		mf, err := p.writeManifest(ctx, k.content, spec, func(mw *manifest.Writer) error {
			for _, df := range groups[k] {
				p.sum.addedFile(df)
				if err := mw.Add(iceberg.ManifestEntry{Status: iceberg.EntryAdded, SnapshotID: p.snapshotID, DataFile: df}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, mf)
	}
	return out, nil
}

// writeManifest writes one manifest of this snapshot at
// <metadata>/<commit-uuid>-m<n>.avro, as Java names them.
func (p *producer) writeManifest(ctx context.Context, content iceberg.ManifestContent, spec iceberg.PartitionSpec, fill func(*manifest.Writer) error) (iceberg.ManifestFile, error) {
	loc := fmt.Sprintf("%s/%s-m%d.avro", p.metaDir, p.commitUUID, p.manifests)
	p.manifests++
	p.sum.manifestsCreated++
	var mf iceberg.ManifestFile
	err := p.create(ctx, loc, func(out io.Writer) error {
		mw, err := manifest.NewWriter(out, manifest.WriterOptions{FormatVersion: p.md.FormatVersion, Content: content, Schema: p.schema, Spec: spec, SnapshotID: p.snapshotID})
		if err != nil {
			return err
		}
		if err := fill(mw); err != nil {
			return err
		}
		mf, err = mw.Close()
		return err
	})
	if err != nil {
		return iceberg.ManifestFile{}, fmt.Errorf("write manifest %s: %w", loc, err)
	}
	mf.Path = loc
	mf.SpecID = spec.ID
	mf.Content = content
	mf.AddedSnapshotID = p.snapshotID
	return mf, nil
}

// create writes one new file through the table's FileIO and records it
// as written by this attempt.
func (p *producer) create(ctx context.Context, loc string, fill func(io.Writer) error) error {
	f, err := fileio.Create(ctx, p.t.IO, loc)
	if err != nil {
		return err
	}
	p.written = append(p.written, loc)
	if err := fill(f); err != nil {
		return errors.Join(err, f.Close())
	}
	return f.Close()
}

// writeList writes the manifest list at
// <metadata>/snap-<id>-<attempt>-<commit-uuid>.avro and returns the
// snapshot.
func (p *producer) writeList(ctx context.Context, list []iceberg.ManifestFile) (*iceberg.Snapshot, error) {
	loc := fmt.Sprintf("%s/snap-%d-%d-%s.avro", p.metaDir, p.snapshotID, p.attempt, p.commitUUID)
	opts := manifest.WriteListOptions{FormatVersion: p.md.FormatVersion, SnapshotID: p.snapshotID, SequenceNumber: p.seq}
	var parentID *int64
	if p.parent != nil {
		id := p.parent.SnapshotID
		parentID = &id
		opts.ParentID = parentID
	}
	var firstRowID int64
	if p.md.NextRowID != nil {
		firstRowID = *p.md.NextRowID
	}
	opts.FirstRowID = firstRowID
	var assigned int64
	err := p.create(ctx, loc, func(out io.Writer) error {
		var err error
		assigned, err = manifest.WriteList(out, opts, list)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write manifest list %s: %w", loc, err)
	}
	schemaID := p.schema.ID
	snap := &iceberg.Snapshot{
		SnapshotID:       p.snapshotID,
		ParentSnapshotID: parentID,
		SequenceNumber:   p.seq,
		TimestampMs:      max(p.w.now().UnixMilli(), p.md.LastUpdatedMs),
		ManifestList:     loc,
		SchemaID:         &schemaID,
	}
	if p.md.FormatVersion >= 3 {
		snap.FirstRowID = &firstRowID
		snap.AddedRows = &assigned
	}
	var prev map[string]string
	if p.parent != nil {
		prev = p.parent.Summary.Map()
	}
	snap.Summary = iceberg.NewSummary(p.sum.build(p.ch.operation, prev, p.parent == nil, p.ch.summary))
	return snap, nil
}
