package io.iceflight.javaref;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CheckedEntries;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * {@code tablecheck}: checks one table from outside, as Iceberg Java reads it, for the write tests
 * of iceflight. Every metadata file of the metadata log is parsed with TableMetadataParser; every
 * manifest list and every entry of every manifest of every snapshot is read, its sequence numbers
 * and counts checked and the snapshot summary's counts recomputed; then the current snapshot (and
 * each --snapshot-id) is scanned into canonical JSON lines as {@code oracle} writes them.
 *
 * <p>The table is one of: {@code --metadata LOCATION} (a metadata file, read as recorded), {@code
 * --table-dir DIR} (the current metadata of DIR/metadata, recorded paths remapped to DIR, as the
 * oracle does), or {@code --jdbc-uri URI --catalog NAME --table NS.T} (loaded through Iceberg's
 * JdbcCatalog). {@code --out DIR} receives report.json and the row files. Problems found are listed
 * under "errors" in the report (exit 0); exit 1 means the table could not be loaded.
 */
final class TableCheck {
  private final List<String> errors = new ArrayList<>();
  private final TreeSet<String> reachable = new TreeSet<>();
  /** Data files whose footers were checked already. */
  private final java.util.Set<String> footersChecked = new java.util.HashSet<>();
  private TableMetadata metadata;
  private int metadataFiles;
  private int manifestLists;
  private int manifests;
  private long entries;

  private TableCheck() {}

  static int run(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    List<Long> snapshotIds = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        System.err.println("tablecheck: bad argument " + args[i]);
        return 2;
      }
      String key = args[i].substring(2);
      String value = args[++i];
      if (key.equals("snapshot-id")) {
        snapshotIds.add(Long.parseLong(value));
      } else {
        opts.put(key, value);
      }
    }
    if (!opts.containsKey("out")) {
      System.err.println("tablecheck: --out is required");
      return 2;
    }
    Path out = Paths.get(opts.get("out")).toAbsolutePath();
    Files.createDirectories(out);
    Table table;
    JdbcCatalog catalog = null;
    try {
      if (opts.containsKey("metadata")) {
        HadoopFileIO io = new HadoopFileIO(localConf());
        TableMetadata md = TableMetadataParser.read(io, opts.get("metadata"));
        table = new BaseTable(new StaticTableOperations(md, io), opts.getOrDefault("table", "t"));
      } else if (opts.containsKey("table-dir")) {
        Path dir = Paths.get(opts.get("table-dir")).toAbsolutePath().normalize();
        Path md = MetadataLocator.currentMetadata(dir.resolve("metadata"));
        table = Oracle.openTable(opts.getOrDefault("table", "t"), dir, md);
      } else if (opts.containsKey("jdbc-uri") && opts.containsKey("table")) {
        Map<String, String> props = new HashMap<>();
        props.put(CatalogProperties.URI, opts.get("jdbc-uri"));
        props.put(CatalogProperties.WAREHOUSE_LOCATION, opts.getOrDefault("warehouse", out.toString()));
        props.put("jdbc.schema-version", opts.getOrDefault("schema-version", "V1"));
        if (opts.containsKey("user")) {
          props.put("jdbc.user", opts.get("user"));
          props.put("jdbc.password", opts.getOrDefault("password", ""));
        }
        catalog = new JdbcCatalog();
        catalog.setConf(localConf());
        catalog.initialize(opts.getOrDefault("catalog", "default"), props);
        table = catalog.loadTable(TableIdentifier.parse(opts.get("table")));
      } else {
        System.err.println(
            "usage: tablecheck --out DIR (--metadata LOC | --table-dir DIR | --jdbc-uri URI"
                + " --catalog NAME --table NS.T) [--snapshot-id ID ...]");
        return 2;
      }
    } catch (Exception e) {
      System.err.println("tablecheck: load: " + Oracle.describe(e, out));
      return 1;
    }
    try {
      TableCheck check = new TableCheck();
      ObjectNode report = check.check(table, out, snapshotIds);
      Oracle.writeIndex(out, report);
      Files.move(out.resolve("index.json"), out.resolve("report.json"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      System.out.printf(
          "tablecheck: %s: %d metadata files, %d manifest lists, %d manifests, %d entries, %d"
              + " errors%n",
          table.name(), check.metadataFiles, check.manifestLists, check.manifests, check.entries,
          check.errors.size());
      return 0;
    } finally {
      if (catalog != null) {
        catalog.close();
      }
    }
  }

  private static Configuration localConf() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  private ObjectNode check(Table table, Path out, List<Long> snapshotIds) throws IOException {
    TableMetadata md = ((HasTableOperations) table).operations().current();
    metadata = md;
    FileIO io = table.io();
    ObjectNode report = Oracle.MAPPER.createObjectNode();
    report.put("table", table.name());
    report.put("metadata_location", md.metadataFileLocation());
    report.put("location", md.location());
    report.put("format_version", md.formatVersion());
    report.put("last_sequence_number", md.lastSequenceNumber());
    if (md.currentSnapshot() == null) {
      report.putNull("current_snapshot_id");
    } else {
      report.put("current_snapshot_id", md.currentSnapshot().snapshotId());
    }
    report.set("schema", Oracle.MAPPER.readTree(SchemaParser.toJson(table.schema())));

    checkMetadataLog(md, io);
    ArrayNode snaps = report.putArray("snapshots");
    Map<Long, Snapshot> byId = new HashMap<>();
    for (Snapshot s : md.snapshots()) {
      if (byId.put(s.snapshotId(), s) != null) {
        errors.add("snapshot id " + s.snapshotId() + " appears twice");
      }
    }
    for (Snapshot s : md.snapshots()) {
      snaps.add(checkSnapshot(md, s, byId, io));
    }
    for (StatisticsFile f : md.statisticsFiles()) {
      reachable.add(f.path());
      checkExists(io, f.path(), f.fileSizeInBytes(), "statistics file");
    }
    for (PartitionStatisticsFile f : md.partitionStatisticsFiles()) {
      reachable.add(f.path());
      checkExists(io, f.path(), f.fileSizeInBytes(), "partition statistics file");
    }

    ArrayNode scans = report.putArray("scans");
    List<Long> scanIds = new ArrayList<>();
    scanIds.add(null);
    scanIds.addAll(snapshotIds);
    for (Long id : scanIds) {
      String name = id == null ? "current" : "snapshot-" + id;
      ObjectNode node = scans.addObject();
      node.put("name", name);
      try {
        ScanRows scan = ScanRows.prepare(table, id, null, null, true);
        Oracle.putScanned(node, "snapshot_id", scan);
        ScanRows.Result r = scan.write(ScanRows.plan(scan.scan), false, out.resolve(name + ".jsonl"));
        node.put("rows", r.rows);
        node.put("file", name + ".jsonl");
      } catch (Exception | LinkageError | AssertionError e) {
        String err = Oracle.putError(node, e, out, out.resolve(name + ".jsonl"));
        errors.add("scan " + name + ": " + err);
      }
    }
    ArrayNode files = report.putArray("files");
    reachable.forEach(files::add);
    ArrayNode errs = report.putArray("errors");
    errors.forEach(errs::add);
    ObjectNode counts = report.putObject("checked");
    counts.put("metadata_files", metadataFiles);
    counts.put("manifest_lists", manifestLists);
    counts.put("manifests", manifests);
    counts.put("entries", entries);
    return report;
  }

  /** Parses the current metadata file and every one of its log; versions and clocks only grow. */
  private void checkMetadataLog(TableMetadata current, FileIO io) {
    List<String> locations = new ArrayList<>();
    for (TableMetadata.MetadataLogEntry e : current.previousFiles()) {
      locations.add(e.file());
    }
    locations.add(current.metadataFileLocation());
    TableMetadata prev = null;
    for (String loc : locations) {
      reachable.add(loc);
      TableMetadata md;
      try {
        md = TableMetadataParser.read(io, loc);
        metadataFiles++;
      } catch (Exception e) {
        errors.add("metadata file " + loc + " does not parse: " + e);
        continue;
      }
      if (!md.uuid().equals(current.uuid())) {
        errors.add("metadata file " + loc + " has table uuid " + md.uuid() + ", current " + current.uuid());
      }
      if (prev != null) {
        if (md.formatVersion() < prev.formatVersion()) {
          errors.add("metadata file " + loc + " lowers the format version");
        }
        if (md.lastSequenceNumber() < prev.lastSequenceNumber()) {
          errors.add("metadata file " + loc + " lowers last-sequence-number");
        }
        if (md.lastColumnId() < prev.lastColumnId()) {
          errors.add("metadata file " + loc + " lowers last-column-id");
        }
      }
      prev = md;
    }
  }

  private void checkExists(FileIO io, String location, long size, String what) {
    try {
      long len = io.newInputFile(location).getLength();
      if (size >= 0 && len != size) {
        errors.add(what + " " + location + " is " + len + " bytes, recorded " + size);
      }
    } catch (Exception e) {
      errors.add(what + " " + location + " cannot be opened: " + e);
    }
  }

  private ObjectNode checkSnapshot(TableMetadata md, Snapshot s, Map<Long, Snapshot> byId, FileIO io) {
    String where = "snapshot " + s.snapshotId();
    ObjectNode node = Oracle.MAPPER.createObjectNode();
    node.put("snapshot_id", s.snapshotId());
    if (s.parentId() != null) {
      node.put("parent_id", s.parentId());
    }
    node.put("sequence_number", s.sequenceNumber());
    node.put("timestamp_ms", s.timestampMillis());
    node.put("operation", s.operation());
    node.put("manifest_list", s.manifestListLocation());
    ObjectNode summary = node.putObject("summary");
    if (s.summary() != null) {
      new TreeMap<>(s.summary()).forEach(summary::put);
    }
    if (s.operation() == null) {
      errors.add(where + " has no operation in its summary");
    }
    long seq = s.sequenceNumber();
    if (md.formatVersion() >= 2) {
      if (seq > md.lastSequenceNumber()) {
        errors.add(where + " sequence number " + seq + " > last-sequence-number " + md.lastSequenceNumber());
      }
      Snapshot parent = s.parentId() == null ? null : byId.get(s.parentId());
      if (parent != null && parent.sequenceNumber() >= seq) {
        errors.add(where + " sequence number " + seq + " not above its parent's " + parent.sequenceNumber());
      }
    }
    if (md.formatVersion() >= 3) {
      if (s.firstRowId() == null || s.addedRows() == null) {
        errors.add(where + " has no first-row-id or added-rows (v3)");
      } else if (s.firstRowId() + s.addedRows() > md.nextRowId()) {
        errors.add(where + " row ids end at " + (s.firstRowId() + s.addedRows()) + " > next-row-id " + md.nextRowId());
      }
    }
    if (s.manifestListLocation() != null) {
      reachable.add(s.manifestListLocation());
      manifestLists++;
    }
    List<ManifestFile> list;
    try {
      list = s.allManifests(io);
    } catch (Exception e) {
      errors.add(where + " manifest list " + s.manifestListLocation() + " does not read: " + e);
      return node;
    }
    Counts c = new Counts();
    for (ManifestFile m : list) {
      checkManifest(md, s, m, io, c);
    }
    ObjectNode recomputed = node.putObject("recomputed");
    c.put(recomputed);
    for (Map.Entry<String, Long> e : c.asMap().entrySet()) {
      String got = s.summary() == null ? null : s.summary().get(e.getKey());
      if (got == null) {
        continue;
      }
      if (Long.parseLong(got) != e.getValue()) {
        errors.add(where + " summary " + e.getKey() + "=" + got + ", recomputed " + e.getValue());
      }
    }
    return node;
  }

  private void checkManifest(TableMetadata md, Snapshot s, ManifestFile m, FileIO io, Counts c) {
    String where = "snapshot " + s.snapshotId() + " manifest " + m.path();
    reachable.add(m.path());
    checkExists(io, m.path(), m.length(), "manifest");
    if (md.formatVersion() >= 2 && m.sequenceNumber() > s.sequenceNumber()) {
      errors.add(where + " sequence number " + m.sequenceNumber() + " > the snapshot's " + s.sequenceNumber());
    }
    if (md.spec(m.partitionSpecId()) == null) {
      errors.add(where + " names partition spec " + m.partitionSpecId() + ", not in the table");
    }
    List<CheckedEntries.Entry> list;
    try {
      list = CheckedEntries.read(m, io, md.specsById());
    } catch (Exception e) {
      errors.add(where + " does not read: " + e);
      return;
    }
    manifests++;
    int[] byStatus = new int[3];
    long[] rowsByStatus = new long[3];
    for (CheckedEntries.Entry e : list) {
      entries++;
      byStatus[e.status]++;
      rowsByStatus[e.status] += e.file.recordCount();
      String fw = where + " entry " + e.file.location();
      boolean isDelete = e.file.content() != FileContent.DATA;
      if (isDelete != (m.content() == org.apache.iceberg.ManifestContent.DELETES)) {
        errors.add(fw + " has content " + e.file.content() + " in a " + m.content() + " manifest");
      }
      if (e.file.specId() != m.partitionSpecId()) {
        errors.add(fw + " has spec " + e.file.specId() + ", its manifest " + m.partitionSpecId());
      }
      if (md.formatVersion() >= 2) {
        if (e.dataSequenceNumber == null || e.fileSequenceNumber == null) {
          errors.add(fw + " has no sequence number after inheritance");
        } else {
          if (e.dataSequenceNumber > m.sequenceNumber() || e.fileSequenceNumber > m.sequenceNumber()) {
            errors.add(fw + " sequence numbers " + e.dataSequenceNumber + "/" + e.fileSequenceNumber
                + " above the manifest's " + m.sequenceNumber());
          }
          if (e.status == 1 && e.fileSequenceNumber != m.sequenceNumber()) {
            errors.add(fw + " added with file sequence number " + e.fileSequenceNumber
                + ", its manifest's is " + m.sequenceNumber());
          }
          if (e.status != 2 && e.dataSequenceNumber < m.minSequenceNumber()) {
            errors.add(fw + " data sequence number " + e.dataSequenceNumber
                + " below the manifest's min " + m.minSequenceNumber());
          }
        }
      }
      if (e.status == 1 && !java.util.Objects.equals(e.snapshotId, m.snapshotId())) {
        errors.add(fw + " added by snapshot " + e.snapshotId + ", its manifest by " + m.snapshotId());
      }
      if (e.status == 2) {
        if (e.snapshotId != null && e.snapshotId == s.snapshotId()) {
          c.removed(e.file);
        }
        continue;
      }
      reachable.add(e.file.location());
      checkExists(io, e.file.location(), e.file.fileSizeInBytes(), "file");
      // Iceberg Java itself collects no column metrics for Avro data files.
      if (e.file.content() == FileContent.DATA && e.file.valueCounts() == null
          && e.file.format() != org.apache.iceberg.FileFormat.AVRO && e.file.recordCount() > 0) {
        errors.add(fw + " has no value counts");
      }
      if (e.file.content() == FileContent.DATA && e.file.format() == org.apache.iceberg.FileFormat.PARQUET
          && footersChecked.add(e.file.location())) {
        checkFooter(io, e.file, fw);
      }
      c.live(e.file);
      if (e.status == 1 && e.snapshotId != null && e.snapshotId == s.snapshotId()) {
        c.added(e.file);
      }
    }
    check(where, "added files", m.addedFilesCount(), byStatus[1]);
    check(where, "existing files", m.existingFilesCount(), byStatus[0]);
    check(where, "deleted files", m.deletedFilesCount(), byStatus[2]);
    check(where, "added rows", m.addedRowsCount(), rowsByStatus[1]);
    check(where, "existing rows", m.existingRowsCount(), rowsByStatus[0]);
    check(where, "deleted rows", m.deletedRowsCount(), rowsByStatus[2]);
  }

  /**
   * Compares a Parquet data file's recorded metrics with what Iceberg Java computes from its
   * footer (full metrics): the record count and every recorded value and null count must be
   * equal; every recorded lower bound must be at most the column's minimum and every upper
   * bound at least its maximum (truncated bounds included), or scans would prune wrongly.
   */
  private void checkFooter(FileIO io, org.apache.iceberg.ContentFile<?> f, String where) {
    org.apache.iceberg.Metrics actual;
    try {
      actual =
          org.apache.iceberg.parquet.ParquetUtil.fileMetrics(
              io.newInputFile(f.location()),
              org.apache.iceberg.MetricsConfig.fromProperties(
                  Map.of("write.metadata.metrics.default", "full")));
    } catch (Exception e) {
      errors.add(where + " footer does not read: " + e);
      return;
    }
    if (actual.recordCount() != f.recordCount()) {
      errors.add(where + " records " + f.recordCount() + ", its footer " + actual.recordCount());
    }
    compareCounts(where, "value count", f.valueCounts(), actual.valueCounts());
    compareCounts(where, "null count", f.nullValueCounts(), actual.nullValueCounts());
    compareBounds(where, f.lowerBounds(), actual.lowerBounds(), true);
    compareBounds(where, f.upperBounds(), actual.upperBounds(), false);
  }

  private void compareCounts(String where, String what, Map<Integer, Long> recorded, Map<Integer, Long> actual) {
    if (recorded == null || actual == null) {
      return;
    }
    for (Map.Entry<Integer, Long> e : recorded.entrySet()) {
      Long a = actual.get(e.getKey());
      if (a != null && !a.equals(e.getValue())) {
        errors.add(where + " field " + e.getKey() + " " + what + " " + e.getValue() + ", its footer " + a);
      }
    }
  }

  private org.apache.iceberg.types.Type.PrimitiveType typeOf(int id) {
    for (org.apache.iceberg.Schema s : metadata.schemas()) {
      org.apache.iceberg.types.Types.NestedField f = s.findField(id);
      if (f != null && f.type().isPrimitiveType()) {
        return f.type().asPrimitiveType();
      }
    }
    return null;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void compareBounds(
      String where,
      Map<Integer, java.nio.ByteBuffer> recorded,
      Map<Integer, java.nio.ByteBuffer> actual,
      boolean lower) {
    if (recorded == null || actual == null) {
      return;
    }
    for (Map.Entry<Integer, java.nio.ByteBuffer> e : recorded.entrySet()) {
      java.nio.ByteBuffer a = actual.get(e.getKey());
      org.apache.iceberg.types.Type.PrimitiveType type = typeOf(e.getKey());
      if (a == null || type == null) {
        continue;
      }
      Object got = org.apache.iceberg.types.Conversions.fromByteBuffer(type, e.getValue());
      Object exact = org.apache.iceberg.types.Conversions.fromByteBuffer(type, a);
      java.util.Comparator cmp = org.apache.iceberg.types.Comparators.forType(type);
      int c = cmp.compare(got, exact);
      // -0.0 and 0.0 are one value for bounds (Java's own writers record either).
      if (got instanceof Number && exact instanceof Number
          && ((Number) got).doubleValue() == ((Number) exact).doubleValue()) {
        c = 0;
      }
      if (lower ? c > 0 : c < 0) {
        errors.add(
            where + " field " + e.getKey() + (lower ? " lower bound " : " upper bound ") + got
                + (lower ? " above the column's minimum " : " below the column's maximum ") + exact);
      }
    }
  }

  private void check(String where, String what, Number recorded, long actual) {
    if (recorded == null) {
      errors.add(where + " has no " + what + " count in the manifest list");
    } else if (recorded.longValue() != actual) {
      errors.add(where + " " + what + " " + recorded + " in the manifest list, " + actual + " entries");
    }
  }

  /** The snapshot summary's counts, recomputed from the entries (SnapshotSummary's keys). */
  private static final class Counts {
    final Map<String, Long> m = new TreeMap<>();

    void add(String key, long n) {
      m.merge(key, n, Long::sum);
    }

    /** A file's size as SnapshotSummary counts it: a deletion vector's is its blob's. */
    static long size(org.apache.iceberg.ContentFile<?> f) {
      if (f instanceof org.apache.iceberg.DeleteFile
          && f.format() == org.apache.iceberg.FileFormat.PUFFIN
          && ((org.apache.iceberg.DeleteFile) f).contentSizeInBytes() != null) {
        return ((org.apache.iceberg.DeleteFile) f).contentSizeInBytes();
      }
      return f.fileSizeInBytes();
    }

    void live(org.apache.iceberg.ContentFile<?> f) {
      add("total-files-size", size(f));
      switch (f.content()) {
        case DATA:
          add("total-data-files", 1);
          add("total-records", f.recordCount());
          break;
        case POSITION_DELETES:
          add("total-delete-files", 1);
          add("total-position-deletes", f.recordCount());
          break;
        case EQUALITY_DELETES:
          add("total-delete-files", 1);
          add("total-equality-deletes", f.recordCount());
          break;
      }
    }

    void added(org.apache.iceberg.ContentFile<?> f) {
      add("added-files-size", size(f));
      switch (f.content()) {
        case DATA:
          add("added-data-files", 1);
          add("added-records", f.recordCount());
          break;
        case POSITION_DELETES:
          add("added-delete-files", 1);
          add("added-position-deletes", f.recordCount());
          if (f.format() == org.apache.iceberg.FileFormat.PUFFIN) {
            add("added-dvs", 1);
          } else {
            add("added-position-delete-files", 1);
          }
          break;
        case EQUALITY_DELETES:
          add("added-delete-files", 1);
          add("added-equality-deletes", f.recordCount());
          add("added-equality-delete-files", 1);
          break;
      }
    }

    void removed(org.apache.iceberg.ContentFile<?> f) {
      add("removed-files-size", size(f));
      switch (f.content()) {
        case DATA:
          add("deleted-data-files", 1);
          add("deleted-records", f.recordCount());
          break;
        case POSITION_DELETES:
          add("removed-delete-files", 1);
          add("removed-position-deletes", f.recordCount());
          if (f.format() == org.apache.iceberg.FileFormat.PUFFIN) {
            add("removed-dvs", 1);
          } else {
            add("removed-position-delete-files", 1);
          }
          break;
        case EQUALITY_DELETES:
          add("removed-delete-files", 1);
          add("removed-equality-deletes", f.recordCount());
          add("removed-equality-delete-files", 1);
          break;
      }
    }

    /** Every key, totals zero when nothing counts (summaries record totals of 0). */
    Map<String, Long> asMap() {
      Map<String, Long> all = new TreeMap<>(m);
      for (String k : List.of("total-files-size", "total-data-files", "total-records",
          "total-delete-files", "total-position-deletes", "total-equality-deletes")) {
        all.putIfAbsent(k, 0L);
      }
      for (String k : List.of("added-data-files", "added-records", "deleted-data-files",
          "deleted-records", "added-delete-files", "removed-delete-files",
          "added-position-deletes", "removed-position-deletes", "added-equality-deletes",
          "removed-equality-deletes", "added-files-size", "removed-files-size")) {
        all.putIfAbsent(k, 0L);
      }
      return all;
    }

    void put(ObjectNode node) {
      asMap().forEach(node::put);
    }
  }
}
