package writer

import (
	"context"
	"fmt"
	"slices"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// Manifest merging properties and Iceberg Java's defaults
// (TableProperties.MANIFEST_*).
const (
	propMergeEnabled  = "commit.manifest-merge.enabled"
	propMinMergeCount = "commit.manifest.min-count-to-merge"
	propManifestSize  = "commit.manifest.target-size-bytes"

	defaultMinMergeCount = 100
	defaultManifestSize  = 8 << 20
)

// mergeManifests merges small manifests as Java's MergeAppend does
// (ManifestMergeManager): once a (content, spec) group holds
// commit.manifest.min-count-to-merge manifests, consecutive manifests are
// packed into bins of commit.manifest.target-size-bytes and each bin of
// more than one is written as one manifest. Without it a table that
// commits often gains a manifest per commit and plans ever slower.
func (p *producer) mergeManifests(ctx context.Context, list []iceberg.ManifestFile) ([]iceberg.ManifestFile, error) {
	props := p.md.Properties
	if v, ok := props[propMergeEnabled]; ok && v == "false" {
		return list, nil
	}
	minCount := int64(defaultMinMergeCount)
	if n, ok := intProp(props, propMinMergeCount); ok && n > 0 {
		minCount = n
	}
	target := int64(defaultManifestSize)
	if n, ok := intProp(props, propManifestSize); ok && n > 0 {
		target = n
	}
	type key struct {
		content iceberg.ManifestContent
		spec    int
	}
	groups := map[key][]int{}
	for i, mf := range list {
		k := key{mf.Content, mf.SpecID}
		groups[k] = append(groups[k], i)
	}
	replace := map[int]*iceberg.ManifestFile{} // first index of a bin -> merged
	drop := map[int]bool{}
	for k, idx := range groups {
		if int64(len(idx)) < minCount {
			continue
		}
		spec, ok := p.md.SpecByID(k.spec)
		if !ok {
			return nil, fmt.Errorf("%w: manifest of unknown partition spec %d", iceberg.ErrInvalidMetadata, k.spec)
		}
		for _, bin := range packBins(list, idx, target) {
			if len(bin) < 2 {
				continue
			}
			merged, err := p.mergeBin(ctx, k.content, spec, list, bin)
			if err != nil {
				return nil, err
			}
			replace[bin[0]] = &merged
			for _, i := range bin[1:] {
				drop[i] = true
			}
		}
	}
	if len(replace) == 0 {
		return list, nil
	}
	var out []iceberg.ManifestFile
	for i, mf := range list {
		switch {
		case replace[i] != nil:
			out = append(out, *replace[i])
		case !drop[i]:
			out = append(out, mf)
		}
	}
	return out, nil
}

// packBins packs the manifests at idx, in order, into bins of at most
// target bytes (a larger manifest gets a bin of its own).
func packBins(list []iceberg.ManifestFile, idx []int, target int64) [][]int {
	var bins [][]int
	var cur []int
	var size int64
	for _, i := range idx {
		n := list[i].Length
		if len(cur) > 0 && size+n > target {
			bins = append(bins, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += n
	}
	if len(cur) > 0 {
		bins = append(bins, cur)
	}
	return bins
}

// mergeBin writes the manifests of a bin as one: entries this snapshot
// added or deleted keep their status, other live entries become
// EXISTING, and entries an earlier snapshot deleted are dropped. The
// manifests this attempt wrote are removed at once.
func (p *producer) mergeBin(ctx context.Context, content iceberg.ManifestContent, spec iceberg.PartitionSpec, list []iceberg.ManifestFile, bin []int) (iceberg.ManifestFile, error) {
	merged, err := p.writeManifest(ctx, content, spec, func(mw *manifest.Writer) error {
		for _, i := range bin {
			mf := list[i]
			if mf.AddedSnapshotID == p.snapshotID && mf.SequenceNumber == 0 {
				// Written by this attempt: the list has not numbered it
				// yet, and a manifest read with sequence number 0 reads
				// every entry's as 0 (the v1 upgrade rule).
				mf.SequenceNumber = p.seq
			}
			entries, err := readManifest(ctx, p.t, mf)
			if err != nil {
				return err
			}
			for _, e := range entries {
				ours := e.SnapshotID == p.snapshotID
				switch {
				case e.Status == iceberg.EntryDeleted && !ours:
					continue
				case e.Status == iceberg.EntryAdded && !ours:
					e.Status = iceberg.EntryExisting
				}
				if err := mw.Add(e); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return iceberg.ManifestFile{}, err
	}
	for _, i := range bin {
		mf := list[i]
		if mf.AddedSnapshotID == p.snapshotID {
			p.w.removeFiles(context.WithoutCancel(ctx), p.t.IO, []string{mf.Path})
			p.written = slices.DeleteFunc(p.written, func(loc string) bool { return loc == mf.Path })
			p.sum.manifestsCreated--
		} else {
			p.sum.manifestsKept--
			p.sum.manifestsReplaced++
		}
	}
	return merged, nil
}
