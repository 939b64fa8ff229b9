package org.apache.iceberg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * Every entry of a manifest with its status, live or deleted, for javaref's tablecheck. It lives in
 * Iceberg's package because ManifestReader's entries (with their status and sequence numbers as
 * read, after inheritance) are package-private; only public readers are called.
 */
public final class CheckedEntries {
  private CheckedEntries() {}

  /** One manifest entry as Iceberg Java read it. */
  public static final class Entry {
    /** 0 existing, 1 added, 2 deleted (the spec's status values). */
    public final int status;

    public final Long snapshotId;
    public final Long dataSequenceNumber;
    public final Long fileSequenceNumber;
    public final ContentFile<?> file;

    Entry(ManifestEntry<?> e) {
      this.status = e.status().id();
      this.snapshotId = e.snapshotId();
      this.dataSequenceNumber = e.dataSequenceNumber();
      this.fileSequenceNumber = e.fileSequenceNumber();
      this.file = e.file().copy();
    }
  }

  /** Reads every entry of MANIFEST (data or deletes) through IO. */
  public static List<Entry> read(ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specs)
      throws IOException {
    List<Entry> out = new ArrayList<>();
    if (manifest.content() == ManifestContent.DATA) {
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, specs);
          CloseableIterable<ManifestEntry<DataFile>> entries = reader.entries()) {
        for (ManifestEntry<DataFile> e : entries) {
          out.add(new Entry(e));
        }
      }
    } else {
      try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, io, specs);
          CloseableIterable<ManifestEntry<DeleteFile>> entries = reader.entries()) {
        for (ManifestEntry<DeleteFile> e : entries) {
          out.add(new Entry(e));
        }
      }
    }
    return out;
  }
}
