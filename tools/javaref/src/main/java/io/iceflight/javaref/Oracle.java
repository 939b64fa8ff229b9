package io.iceflight.javaref;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptingFileIO;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads every Iceberg table under a root folder with Iceberg Java's generic reader and writes the
 * rows as canonical JSON lines (see testdata/conformance/README.md).
 */
final class Oracle {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
          .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
          .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
          .build();
  private static final int MAX_ERROR_CHARS = 2000;

  private final Path root;
  private final Path out;
  private int tables;
  private int scansOk;
  private final List<String> failures = new ArrayList<>();

  private final boolean matchByLocation;

  private Oracle(Path root, Path out, boolean matchByLocation) {
    this.root = root;
    this.out = out;
    this.matchByLocation = matchByLocation;
  }

  static int run(String[] args) throws IOException {
    String rootArg = null;
    String outArg = null;
    String only = null;
    boolean matchByLocation = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--match-delete-paths-by-location")) {
        matchByLocation = true;
        continue;
      }
      if (i + 1 >= args.length) {
        System.err.println("missing value for " + a);
        return 2;
      }
      switch (a) {
        case "--root":
          rootArg = args[++i];
          break;
        case "--out":
          outArg = args[++i];
          break;
        case "--table":
          only = args[++i];
          break;
        default:
          System.err.println("unknown option " + a);
          return 2;
      }
    }
    if (rootArg == null || outArg == null) {
      Main.usage();
      return 2;
    }
    Path root = Paths.get(rootArg).toAbsolutePath().normalize();
    Path out = Paths.get(outArg).toAbsolutePath().normalize();
    if (!Files.isDirectory(root)) {
      System.err.println("not a folder: " + root);
      return 1;
    }
    Map<String, Path> found = TableDiscovery.discover(root);
    if (only != null) {
      if (!found.containsKey(only)) {
        System.err.println("no table named " + only + " under " + root);
        return 1;
      }
      found = Map.of(only, found.get(only));
    } else {
      removeStaleOutputs(out, found);
    }
    Files.createDirectories(out);
    Oracle oracle = new Oracle(root, out, matchByLocation);
    for (Map.Entry<String, Path> e : found.entrySet()) {
      oracle.processTable(e.getKey(), e.getValue());
    }
    System.out.printf(
        "oracle: %s: %d tables, %d scans ok, %d scans failed%n",
        root, oracle.tables, oracle.scansOk, oracle.failures.size());
    for (String f : oracle.failures) {
      System.out.println("  FAILED " + f);
    }
    return 0;
  }

  /** Deletes output folders of tables that no longer exist under the root. */
  private static void removeStaleOutputs(Path out, Map<String, Path> found) throws IOException {
    if (!Files.isDirectory(out)) {
      return;
    }
    List<Path> stale;
    try (Stream<Path> dirs = Files.list(out)) {
      stale =
          dirs.filter(d -> Files.isRegularFile(d.resolve("index.json")))
              .filter(d -> !found.containsKey(d.getFileName().toString()))
              .collect(Collectors.toList());
    }
    for (Path d : stale) {
      deleteTree(d);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
        Files.delete(p);
      }
    }
  }

  private void processTable(String name, Path tableDir) throws IOException {
    tables++;
    Path tableOut = out.resolve(name);
    deleteTree(tableOut);
    Files.createDirectories(tableOut);

    ObjectNode index = MAPPER.createObjectNode();
    index.put("table", name);
    Path metadataFile;
    try {
      metadataFile = MetadataLocator.currentMetadata(tableDir.resolve("metadata"));
    } catch (Exception e) {
      index.put("error", describe(e, tableDir));
      index.putArray("scans");
      failures.add(name + ": " + describe(e, tableDir));
      writeIndex(tableOut, index);
      return;
    }
    index.put("metadata_file", tableDir.relativize(metadataFile).toString());

    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    RemappingFileIO io = new RemappingFileIO(new HadoopFileIO(conf), tableDir);
    Table table;
    try {
      TableMetadata metadata = TableMetadataParser.read(io, metadataFile.toString());
      io.setRecordedLocation(metadata.location());
      table = new BaseTable(new StaticTableOperations(metadata, io), name);
    } catch (Exception e) {
      index.put("error", describe(e, tableDir));
      index.putArray("scans");
      failures.add(name + ": " + describe(e, tableDir));
      writeIndex(tableOut, index);
      return;
    }
    TableMetadata metadata = ((BaseTable) table).operations().current();
    index.put("format_version", metadata.formatVersion());
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      index.putNull("current_snapshot_id");
    } else {
      index.put("current_snapshot_id", current.snapshotId());
    }
    ArrayNode scans = index.putArray("scans");
    Map<String, String> filesByDigest = new HashMap<>();
    scans.add(scan(table, tableDir, tableOut, "current", null, filesByDigest));
    for (Snapshot snapshot : metadata.snapshots()) {
      long id = snapshot.snapshotId();
      scans.add(scan(table, tableDir, tableOut, "snapshot-" + id, id, filesByDigest));
    }
    writeIndex(tableOut, index);
  }

  /**
   * Runs one scan into NAME.jsonl. When the bytes equal an earlier scan's file of the same table,
   * the new file is dropped and the scan's "file" names the earlier one.
   */
  private ObjectNode scan(
      Table table,
      Path tableDir,
      Path tableOut,
      String name,
      Long snapshotId,
      Map<String, String> filesByDigest)
      throws IOException {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("name", name);
    String file = name + ".jsonl";
    Path target = tableOut.resolve(file);
    Path tmp = tableOut.resolve(file + ".tmp");
    try {
      TableScan tableScan = table.newScan();
      if (snapshotId != null) {
        tableScan = tableScan.useSnapshot(snapshotId);
      }
      Snapshot snapshot = tableScan.snapshot();
      if (snapshot == null) {
        node.putNull("snapshot_id");
      } else {
        node.put("snapshot_id", snapshot.snapshotId());
      }
      Schema schema = tableScan.schema();
      node.set("schema", MAPPER.readTree(SchemaParser.toJson(schema)));
      long rows = writeRows(table, tableScan, schema, tmp);
      String digest = sha256(tmp);
      String same = filesByDigest.get(digest);
      if (same != null) {
        Files.delete(tmp);
        file = same;
      } else {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        filesByDigest.put(digest, file);
      }
      node.put("rows", rows);
      node.put("file", file);
      scansOk++;
    } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {
      Files.deleteIfExists(tmp);
      if (System.getenv("JAVAREF_DEBUG") != null) {
        e.printStackTrace();
      }
      String err = describe(e, tableDir);
      node.put("error", err);
      failures.add(table.name() + " " + name + ": " + err);
    }
    return node;
  }

  /**
   * The same reading path as {@code IcebergGenerics.read(table)} (GenericReader): plan the scan,
   * apply deletes with GenericDeleteFilter, read each file through the generic format model with
   * identity-partition constants. Two differences: the table's default name mapping is passed to
   * the file readers (GenericReader does not, so files without field ids would read as nulls),
   * and files are read whole, one task per file, sorted by path so the output is stable.
   */
  private long writeRows(Table table, TableScan scan, Schema projection, Path target)
      throws IOException {
    String mappingJson = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    NameMapping mapping = mappingJson == null ? null : NameMappingParser.fromJson(mappingJson);
    Schema tableSchema = table.schema();
    // As Iceberg's engine readers do: data and delete files are opened through the table's
    // encryption manager (plaintext for these tables, so key metadata is only logged).
    FileIO io = EncryptingFileIO.combine(table.io(), table.encryption());

    List<FileScanTask> tasks = new ArrayList<>();
    if (scan.snapshot() != null) {
      try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
        for (FileScanTask task : planned) {
          tasks.add(task);
        }
      }
    }
    tasks.sort(
        Comparator.comparing((FileScanTask t) -> t.file().location())
            .thenComparingLong(FileScanTask::start));

    long rows = 0;
    try (OutputStream os = Files.newOutputStream(target);
        JsonGenerator gen = JSON.createGenerator(os, JsonEncoding.UTF8)) {
      gen.setPrettyPrinter(new MinimalPrettyPrinter("\n"));
      for (FileScanTask task : tasks) {
        DeleteFilter<Record> deletes =
            matchByLocation
                ? new LocationMatchingDeleteFilter(
                    io, (RemappingFileIO) table.io(), task, tableSchema, projection)
                : new GenericDeleteFilter(io, task, tableSchema, projection);
        Schema readSchema = deletes.requiredSchema();
        Map<Integer, ?> constants =
            PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
        ReadBuilder<Record, ?> builder =
            FormatModelRegistry.readBuilder(
                task.file().format(), Record.class, io.newInputFile(task.file()));
        builder
            .project(readSchema)
            .idToConstant(constants)
            .split(task.start(), task.length())
            .caseSensitive(true)
            .filter(task.residual());
        if (mapping != null) {
          builder.withNameMapping(mapping);
        }
        try (CloseableIterable<Record> records = deletes.filter(builder.build())) {
          for (Record record : records) {
            RowJson.writeRow(gen, projection, record);
            rows++;
          }
        }
      }
      if (rows > 0) {
        gen.writeRaw('\n');
      }
    }
    return rows;
  }

  private static String sha256(Path file) throws IOException {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      try (InputStream in = Files.newInputStream(file)) {
        byte[] buf = new byte[1 << 16];
        int n;
        while ((n = in.read(buf)) > 0) {
          md.update(buf, 0, n);
        }
      }
      return RowJson.hex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void writeIndex(Path tableOut, ObjectNode index) throws IOException {
    DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
    DefaultPrettyPrinter printer =
        new DefaultPrettyPrinter()
            .withSeparators(
                Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER));
    printer.indentObjectsWith(indenter);
    printer.indentArraysWith(indenter);
    String text = MAPPER.writer(printer).writeValueAsString(index) + "\n";
    Files.write(tableOut.resolve("index.json"), text.getBytes(StandardCharsets.UTF_8));
  }

  /** "ExceptionClass: message", plus the root cause; local folders are replaced by $TABLE. */
  static String describe(Throwable e, Path tableDir) {
    StringBuilder sb = new StringBuilder(e.getClass().getName()).append(": ").append(e.getMessage());
    Throwable rootCause = e;
    while (rootCause.getCause() != null && rootCause.getCause() != rootCause) {
      rootCause = rootCause.getCause();
    }
    if (rootCause != e) {
      sb.append(" (caused by ")
          .append(rootCause.getClass().getName())
          .append(": ")
          .append(rootCause.getMessage())
          .append(")");
    }
    String s = sb.toString().replace(tableDir.toString(), "$TABLE");
    if (s.length() > MAX_ERROR_CHARS) {
      s = s.substring(0, MAX_ERROR_CHARS) + "...";
    }
    return s;
  }

  /** Finds tables under a root folder. */
  static final class TableDiscovery {
    private TableDiscovery() {}

    /** Table name to folder, sorted by name. */
    static Map<String, Path> discover(Path root) throws IOException {
      Map<String, Path> found = new TreeMap<>();
      if (Files.isDirectory(root.resolve("metadata"))) {
        found.put(tableName(List.of(root.getFileName().toString())), root);
        return found;
      }
      walk(root, new ArrayList<>(), found);
      return found;
    }

    private static void walk(Path dir, List<String> segments, Map<String, Path> found)
        throws IOException {
      List<Path> children;
      try (Stream<Path> list = Files.list(dir)) {
        children = list.filter(Files::isDirectory).sorted().collect(Collectors.toList());
      }
      for (Path child : children) {
        String seg = child.getFileName().toString();
        if (seg.startsWith(".")) {
          continue;
        }
        List<String> next = new ArrayList<>(segments);
        next.add(seg);
        if (Files.isDirectory(child.resolve("metadata"))) {
          found.put(tableName(next), child);
        } else if (next.size() < 8) {
          walk(child, next, found);
        }
      }
    }

    static String tableName(List<String> segments) {
      return segments.stream()
          .map(s -> s.endsWith(".db") ? s.substring(0, s.length() - 3) : s)
          .collect(Collectors.joining("."));
    }
  }
}
