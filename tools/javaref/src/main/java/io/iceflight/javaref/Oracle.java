package io.iceflight.javaref;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.hadoop.HadoopFileIO;

/**
 * Reads every Iceberg table under a root folder with Iceberg Java's generic reader and writes the
 * rows as canonical JSON lines (see testdata/conformance/README.md).
 */
final class Oracle {
  static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int MAX_ERROR_CHARS = 2000;

  private final Path root;
  private final Path out;
  private int tables;
  private int scansOk;
  private final List<String> failures = new ArrayList<>();

  private final boolean matchByLocation;
  /** --filter: REST expression JSON applied to every scan, or null. */
  private final JsonNode filter;
  /** --columns: the selected columns of every scan, or null for all. */
  private final List<String> columns;

  private Oracle(
      Path root, Path out, boolean matchByLocation, JsonNode filter, List<String> columns) {
    this.root = root;
    this.out = out;
    this.matchByLocation = matchByLocation;
    this.filter = filter;
    this.columns = columns;
  }

  static int run(String[] args) throws IOException {
    Options opts = Options.parse(args, List.of("--table", "--filter", "--columns"), List.of());
    if (opts.status != 0) {
      return opts.status;
    }
    Path root = opts.root;
    Path out = opts.out;
    String only = opts.get("--table");
    String filterArg = opts.get("--filter");
    String columnsArg = opts.get("--columns");
    boolean matchByLocation = opts.matchByLocation;
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
    JsonNode filter = filterArg == null ? null : MAPPER.readTree(filterArg);
    List<String> columns = null;
    if (columnsArg != null) {
      columns = new ArrayList<>();
      for (String c : columnsArg.split(",", -1)) {
        if (!c.isBlank()) {
          columns.add(c.trim());
        }
      }
    }
    Oracle oracle = new Oracle(root, out, matchByLocation, filter, columns);
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

  /** Opens a table read-only from its folder: current metadata file, paths remapped. */
  static Table openTable(String name, Path tableDir, Path metadataFile) {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    RemappingFileIO io = new RemappingFileIO(new HadoopFileIO(conf), tableDir);
    TableMetadata metadata = TableMetadataParser.read(io, metadataFile.toString());
    try {
      io.setRecordedLocation(metadata.location());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new BaseTable(new StaticTableOperations(metadata, io), name);
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

    Table table;
    try {
      table = openTable(name, tableDir, metadataFile);
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
      ScanRows scan = ScanRows.prepare(table, snapshotId, columns, filter, true);
      putScanned(node, "snapshot_id", scan);
      long rows = scan.write(ScanRows.plan(scan.scan), matchByLocation, tmp).rows;
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
      String err = putError(node, e, tableDir, tmp);
      failures.add(table.name() + " " + name + ": " + err);
    }
    return node;
  }

  /**
   * Sets the scanned snapshot's id (null when the table has none) under KEY and the scan's output
   * schema under "schema".
   */
  static void putScanned(ObjectNode node, String key, ScanRows scan) throws IOException {
    Snapshot snapshot = scan.scan.snapshot();
    if (snapshot == null) {
      node.putNull(key);
    } else {
      node.put(key, snapshot.snapshotId());
    }
    node.set("schema", MAPPER.readTree(SchemaParser.toJson(scan.output)));
  }

  /**
   * Records a failed scan: deletes its partial outputs, sets "error" to the description of E and
   * returns it. JAVAREF_DEBUG in the environment prints the stack trace.
   */
  static String putError(ObjectNode node, Throwable e, Path tableDir, Path... partial)
      throws IOException {
    for (Path p : partial) {
      Files.deleteIfExists(p);
    }
    if (System.getenv("JAVAREF_DEBUG") != null) {
      e.printStackTrace();
    }
    String err = describe(e, tableDir);
    node.put("error", err);
    return err;
  }

  static String sha256(Path file) throws IOException {
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

  static void writeIndex(Path tableOut, ObjectNode index) throws IOException {
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

  /**
   * The command line of both oracle modes: --root and --out (required), the flag
   * --match-delete-paths-by-location, and the mode's own options, each with a value.
   */
  static final class Options {
    /** Non-zero when the command must stop with this status; the problem is already printed. */
    int status;
    Path root;
    Path out;
    boolean matchByLocation;
    private final Map<String, String> values = new HashMap<>();

    private Options() {}

    /** The value given for OPTION, or null. */
    String get(String option) {
      return values.get(option);
    }

    /**
     * Parses ARGS, accepting OPTIONAL and REQUIRED besides the common options, and checks that the
     * root is a folder.
     */
    static Options parse(String[] args, List<String> optional, List<String> required) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (a.equals("--match-delete-paths-by-location")) {
          o.matchByLocation = true;
          continue;
        }
        if (i + 1 >= args.length) {
          System.err.println("missing value for " + a);
          o.status = 2;
          return o;
        }
        if (!a.equals("--root")
            && !a.equals("--out")
            && !optional.contains(a)
            && !required.contains(a)) {
          System.err.println("unknown option " + a);
          o.status = 2;
          return o;
        }
        o.values.put(a, args[++i]);
      }
      boolean missing = o.get("--root") == null || o.get("--out") == null;
      for (String r : required) {
        missing |= o.get(r) == null;
      }
      if (missing) {
        Main.usage();
        o.status = 2;
        return o;
      }
      o.root = Paths.get(o.get("--root")).toAbsolutePath().normalize();
      o.out = Paths.get(o.get("--out")).toAbsolutePath().normalize();
      if (!Files.isDirectory(o.root)) {
        System.err.println("not a folder: " + o.root);
        o.status = 1;
      }
      return o;
    }
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
