package io.iceflight.javaref;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Scan;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.TableScanResponseParser;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;

/**
 * {@code resttaskcheck --table DIR --checks FILE}: checks REST catalog ScanTasks objects (the JSON
 * of planTableScan's file-scan-tasks and delete-files) against Iceberg Java. FILE holds a JSON
 * array of checks, each {"tasks": FILE?, "snapshot": ID?, "from": ID?, "to": ID?, "filter":
 * EXPR_JSON?, "stats": [NAME...]?, "case_sensitive": BOOL?}. For each, the ScanTasks object in
 * "tasks" is read with Iceberg Java's own parsers (TableScanResponseParser over ContentFileParser
 * and RESTFileScanTaskParser) against the table's specs, and the same scan is planned with Iceberg
 * Java ({@code newScan()}, or {@code newIncrementalAppendScan()} when "to" is set); the output is a
 * JSON array of {"parsed": [task...], "planned": [task...]}, tasks sorted by data file path, each
 * describing its data file, its delete files and its residual in one form so that a test compares
 * them as they are. A parsed task also says whether its residual is equivalent to the planned
 * task's of the same file. A planning error Java raises (an invalid range) is {"plan_error":
 * message}.
 */
final class RestTaskCheck {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private RestTaskCheck() {}

  static int run(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opts.put(args[i], args[i + 1]);
    }
    if (opts.get("--table") == null || opts.get("--checks") == null) {
      System.err.println("usage: resttaskcheck --table DIR --checks FILE");
      return 2;
    }
    Path dir = Paths.get(opts.get("--table")).toAbsolutePath().normalize();
    Path metadataFile = MetadataLocator.currentMetadata(dir.resolve("metadata"));
    Table table = Oracle.openTable(dir.getFileName().toString(), dir, metadataFile);
    ArrayNode results = MAPPER.createArrayNode();
    for (JsonNode check : MAPPER.readTree(Files.readString(Paths.get(opts.get("--checks"))))) {
      results.add(check(table, check));
    }
    System.out.println(MAPPER.writeValueAsString(results));
    return 0;
  }

  private static ObjectNode check(Table table, JsonNode check) throws Exception {
    boolean caseSensitive = !check.has("case_sensitive") || check.get("case_sensitive").asBoolean();
    ObjectNode out = MAPPER.createObjectNode();
    List<FileScanTask> planned;
    Schema schema;
    try {
      Scan<?, FileScanTask, ?> scan = scan(table, check, caseSensitive);
      schema = scan.schema();
      planned = planFiles(scan);
    } catch (IllegalArgumentException e) {
      out.put("plan_error", String.valueOf(e.getMessage()));
      return out;
    }
    Map<String, Expression> plannedResiduals = new HashMap<>();
    ArrayNode plannedOut = out.putArray("planned");
    for (FileScanTask task : planned) {
      plannedOut.add(describe(table, task));
      plannedResiduals.put(task.file().location(), unbound(task.residual()));
    }
    if (!check.hasNonNull("tasks")) {
      return out;
    }
    JsonNode node = MAPPER.readTree(Files.readString(Paths.get(check.get("tasks").asText())));
    List<DeleteFile> deletes = TableScanResponseParser.parseDeleteFiles(node, table.specs());
    List<FileScanTask> parsed =
        TableScanResponseParser.parseFileScanTasks(node, deletes, table.specs(), caseSensitive);
    ArrayNode parsedOut = out.putArray("parsed");
    for (FileScanTask task : sorted(parsed == null ? List.of() : parsed)) {
      ObjectNode t = describe(table, task);
      Expression theirs = plannedResiduals.get(task.file().location());
      if (t.hasNonNull("residual") && theirs != null) {
        t.put(
            "residual_equivalent",
            ExpressionUtil.equivalent(
                unbound(task.residual()), theirs, schema.asStruct(), caseSensitive));
      }
      parsedOut.add(t);
    }
    return out;
  }

  /** The scan a check describes, as Iceberg Java builds it. */
  private static Scan<?, FileScanTask, ?> scan(Table table, JsonNode check, boolean caseSensitive) {
    if (check.hasNonNull("to")) {
      IncrementalAppendScan inc =
          table.newIncrementalAppendScan().toSnapshot(check.get("to").asLong());
      if (check.hasNonNull("from")) {
        inc = inc.fromSnapshotExclusive(check.get("from").asLong());
      }
      return refine(inc, check, caseSensitive);
    }
    TableScan scan = table.newScan();
    if (check.hasNonNull("snapshot")) {
      scan = scan.useSnapshot(check.get("snapshot").asLong());
    }
    return refine(scan, check, caseSensitive);
  }

  /** The scan with the options every kind of scan shares. */
  private static <S extends Scan<S, FileScanTask, ?>> S refine(
      S scan, JsonNode check, boolean caseSensitive) {
    S out = scan.caseSensitive(caseSensitive);
    if (check.hasNonNull("filter")) {
      out = out.filter(ExpressionParser.fromJson(check.get("filter").toString(), out.schema()));
    }
    if (check.hasNonNull("stats")) {
      List<String> names = new ArrayList<>();
      check.get("stats").forEach(n -> names.add(n.asText()));
      out = out.includeColumnStats(names);
    }
    return out;
  }

  private static List<FileScanTask> planFiles(Scan<?, FileScanTask, ?> scan) throws Exception {
    List<FileScanTask> tasks = new ArrayList<>();
    if (scan instanceof TableScan && ((TableScan) scan).snapshot() == null) {
      return tasks;
    }
    try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
      planned.forEach(tasks::add);
    }
    return sorted(tasks);
  }

  private static List<FileScanTask> sorted(List<FileScanTask> tasks) {
    List<FileScanTask> out = new ArrayList<>(tasks);
    out.sort(Comparator.comparing((FileScanTask t) -> t.file().location()));
    return out;
  }

  /** A residual as an unbound expression (bound ones cannot be bound again); null stays null. */
  private static Expression unbound(Expression residual) {
    return residual == null ? null : ExpressionParser.fromJson(ExpressionParser.toJson(residual));
  }

  private static ObjectNode describe(Table table, FileScanTask task) throws Exception {
    ObjectNode t = MAPPER.createObjectNode();
    t.set("data_file", describe(table, task.file()));
    ArrayNode deletes = t.putArray("deletes");
    List<DeleteFile> ds = new ArrayList<>(task.deletes());
    ds.sort(
        Comparator.comparing((DeleteFile d) -> d.location())
            .thenComparing(d -> d.contentOffset() == null ? -1 : d.contentOffset()));
    for (DeleteFile d : ds) {
      deletes.add(describe(table, d));
    }
    try {
      Expression residual = task.residual();
      t.set(
          "residual",
          residual == null ? null : MAPPER.readTree(ExpressionParser.toJson(residual)));
    } catch (RuntimeException e) {
      t.put("residual_error", e.toString());
    }
    return t;
  }

  /** Every field a ContentFile has, the partition in the JSON form of the spec's field types. */
  private static ObjectNode describe(Table table, ContentFile<?> f) throws Exception {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("path", f.location());
    n.put("content", f.content().name());
    n.put("format", f.format().name());
    n.put("spec_id", f.specId());
    PartitionSpec spec = table.specs().get(f.specId());
    ArrayNode partition = n.putArray("partition");
    List<Types.NestedField> fields = spec.partitionType().fields();
    for (int i = 0; i < fields.size(); i++) {
      Object v = f.partition().get(i, Object.class);
      partition.add(MAPPER.readTree(SingleValueParser.toJson(fields.get(i).type(), v)));
    }
    n.put("record_count", f.recordCount());
    n.put("file_size", f.fileSizeInBytes());
    n.put("key_metadata", hex(f.keyMetadata()));
    n.set("split_offsets", MAPPER.valueToTree(f.splitOffsets()));
    n.set("equality_ids", MAPPER.valueToTree(f.equalityFieldIds()));
    n.set("sort_order_id", MAPPER.valueToTree(f.sortOrderId()));
    n.set("first_row_id", MAPPER.valueToTree(f.firstRowId()));
    n.set("column_sizes", MAPPER.valueToTree(sortedMap(f.columnSizes())));
    n.set("value_counts", MAPPER.valueToTree(sortedMap(f.valueCounts())));
    n.set("null_value_counts", MAPPER.valueToTree(sortedMap(f.nullValueCounts())));
    n.set("nan_value_counts", MAPPER.valueToTree(sortedMap(f.nanValueCounts())));
    n.set("lower_bounds", MAPPER.valueToTree(hexMap(f.lowerBounds())));
    n.set("upper_bounds", MAPPER.valueToTree(hexMap(f.upperBounds())));
    if (f instanceof DeleteFile) {
      DeleteFile d = (DeleteFile) f;
      n.put("referenced_data_file", d.referencedDataFile());
      n.set("content_offset", MAPPER.valueToTree(d.contentOffset()));
      n.set("content_size", MAPPER.valueToTree(d.contentSizeInBytes()));
    }
    return n;
  }

  /**
   * A metric sorted by field id; null when empty, as when absent: a writer's empty map (Trino
   * writes one for NaN counts) and no map say nothing of any column alike.
   */
  private static <V> Map<Integer, V> sortedMap(Map<Integer, V> m) {
    return m == null || m.isEmpty() ? null : new TreeMap<>(m);
  }

  /** A bound metric sorted by field id, values as upper-case hex; null when empty. */
  private static Map<Integer, String> hexMap(Map<Integer, ByteBuffer> m) {
    if (m == null || m.isEmpty()) {
      return null;
    }
    return m.entrySet().stream()
        .collect(
            Collectors.toMap(Map.Entry::getKey, e -> hex(e.getValue()), (a, b) -> a, TreeMap::new));
  }

  private static String hex(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    StringBuilder s = new StringBuilder();
    for (byte x : ByteBuffers.toByteArray(b)) {
      s.append(String.format("%02X", x));
    }
    return s.toString();
  }
}
