package io.iceflight.javaref;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;

/**
 * {@code oracle queries}: runs a list of filtered, projected scans (Iceberg's planning with the
 * filter, then the filter applied exactly to every row) and writes each result as JSON lines.
 * Query-file and output formats are documented in testdata/conformance/README.md.
 */
final class QueryOracle {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final Set<String> KEYS =
      Set.of(
          "name",
          "table",
          "snapshot_id",
          "ref",
          "as_of_timestamp_ms",
          "columns",
          "filter",
          "case_sensitive",
          "comment");

  private final Path root;
  private final Path out;
  private final boolean matchByLocation;
  private final Map<String, Path> tableDirs;
  private final Map<String, Object> tables = new HashMap<>();
  private int ok;
  private final List<String> failures = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  private QueryOracle(Path root, Path out, boolean matchByLocation, Map<String, Path> tableDirs) {
    this.root = root;
    this.out = out;
    this.matchByLocation = matchByLocation;
    this.tableDirs = tableDirs;
  }

  static int run(String[] args) throws IOException {
    Oracle.Options opts = Oracle.Options.parse(args, List.of(), List.of("--queries"));
    if (opts.status != 0) {
      return opts.status;
    }
    Path root = opts.root;
    Path out = opts.out;
    String queriesArg = opts.get("--queries");
    boolean matchByLocation = opts.matchByLocation;
    JsonNode queries = Oracle.MAPPER.readTree(Paths.get(queriesArg).toFile());
    String problem = validate(queries);
    if (problem != null) {
      System.err.println(queriesArg + ": " + problem);
      return 1;
    }
    clearOutputs(out);
    Files.createDirectories(out);
    QueryOracle oracle =
        new QueryOracle(root, out, matchByLocation, Oracle.TableDiscovery.discover(root));
    List<String> lines = new ArrayList<>();
    for (JsonNode q : queries) {
      lines.add(Oracle.MAPPER.writeValueAsString(oracle.runQuery(q)));
    }
    // One query per line: small, and a regeneration diffs query by query.
    String text = "{\"queries\": [\n" + String.join(",\n", lines) + "\n]}\n";
    Files.write(out.resolve("index.json"), text.getBytes(StandardCharsets.UTF_8));
    System.out.printf(
        "oracle queries: %s: %d queries, %d ok, %d failed%n",
        queriesArg, queries.size(), oracle.ok, oracle.failures.size());
    for (String n : oracle.notes) {
      System.out.println("  NOTE " + n);
    }
    for (String f : oracle.failures) {
      System.out.println("  FAILED " + f);
    }
    return 0;
  }

  /** Checks the query list's shape; returns a message, or null when it is fine. */
  private static String validate(JsonNode queries) {
    if (!queries.isArray()) {
      return "not a JSON list";
    }
    Set<String> names = new HashSet<>();
    for (JsonNode q : queries) {
      if (!q.isObject()) {
        return "query is not an object: " + q;
      }
      for (java.util.Iterator<String> it = q.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!KEYS.contains(key)) {
          return "unknown key " + key + " in " + q;
        }
      }
      if (!q.path("name").isTextual() || !NAME.matcher(q.get("name").asText()).matches()) {
        return "bad or missing name in " + q;
      }
      if (!names.add(q.get("name").asText())) {
        return "duplicate query name " + q.get("name").asText();
      }
      if (!q.path("table").isTextual()) {
        return "missing table in " + q;
      }
      if (q.has("snapshot_id") && !q.get("snapshot_id").isIntegralNumber()) {
        return "snapshot_id is not an integer in " + q;
      }
      if (q.has("ref") && !q.get("ref").isTextual()) {
        return "ref is not a string in " + q;
      }
      if (q.has("as_of_timestamp_ms") && !q.get("as_of_timestamp_ms").isIntegralNumber()) {
        return "as_of_timestamp_ms is not an integer in " + q;
      }
      if (q.has("columns") && !q.get("columns").isArray()) {
        return "columns is not a list in " + q;
      }
      if (q.has("case_sensitive") && !q.get("case_sensitive").isBoolean()) {
        return "case_sensitive is not a boolean in " + q;
      }
    }
    return null;
  }

  /** Removes the outputs of an earlier run (index.json and *.jsonl) from OUTDIR. */
  private static void clearOutputs(Path out) throws IOException {
    if (!Files.isDirectory(out)) {
      return;
    }
    List<Path> old;
    try (Stream<Path> list = Files.list(out)) {
      old =
          list.filter(
                  p -> {
                    String n = p.getFileName().toString();
                    return n.equals("index.json") || n.endsWith(".jsonl") || n.endsWith(".tmp");
                  })
              .collect(Collectors.toList());
    }
    for (Path p : old) {
      Files.delete(p);
    }
  }

  /** The opened table, or the exception that opening it threw (cached per name). */
  private Object table(String name) {
    return tables.computeIfAbsent(
        name,
        n -> {
          Path dir = tableDirs.get(n);
          if (dir == null) {
            return new IllegalArgumentException("no table named " + n + " under " + root);
          }
          try {
            return Oracle.openTable(
                n, dir, MetadataLocator.currentMetadata(dir.resolve("metadata")));
          } catch (Exception e) {
            return e;
          }
        });
  }

  private ObjectNode runQuery(JsonNode q) throws IOException {
    String name = q.get("name").asText();
    String tableName = q.get("table").asText();
    boolean caseSensitive = q.path("case_sensitive").asBoolean(true);
    Long snapshotId = q.has("snapshot_id") ? q.get("snapshot_id").asLong() : null;
    String ref = q.has("ref") ? q.get("ref").asText() : null;
    Long asOf = q.has("as_of_timestamp_ms") ? q.get("as_of_timestamp_ms").asLong() : null;
    List<String> columns = null;
    if (q.has("columns")) {
      columns = new ArrayList<>();
      for (JsonNode c : q.get("columns")) {
        columns.add(c.asText());
      }
    }
    JsonNode filterJson = q.get("filter");

    ObjectNode node = Oracle.MAPPER.createObjectNode();
    node.put("name", name);
    node.put("table", tableName);
    if (snapshotId == null) {
      node.putNull("snapshot_id");
    } else {
      node.put("snapshot_id", snapshotId);
    }
    // ref and as_of_timestamp_ms are echoed only when asked for, so that the indexes of query
    // files without them stay as they were.
    if (ref != null) {
      node.put("ref", ref);
    }
    if (asOf != null) {
      node.put("as_of_timestamp_ms", asOf);
    }
    node.put("case_sensitive", caseSensitive);
    if (columns == null) {
      node.putNull("columns");
    } else {
      node.set("columns", q.get("columns"));
    }
    node.set("filter", filterJson == null ? Oracle.MAPPER.nullNode() : filterJson);

    Path dir = tableDirs.getOrDefault(tableName, root);
    Path tmp = out.resolve(name + ".jsonl.tmp");
    Path tmpAll = out.resolve(name + ".unpruned.tmp");
    try {
      Object t = table(tableName);
      if (t instanceof Exception) {
        throw (Exception) t;
      }
      Table table = (Table) t;
      ScanRows scan =
          ScanRows.prepare(table, snapshotId, ref, asOf, columns, filterJson, caseSensitive);
      Oracle.putScanned(node, "scanned_snapshot_id", scan);
      List<FileScanTask> planned = ScanRows.plan(scan.scan);
      List<FileScanTask> all = ScanRows.plan(scan.unfiltered());
      ScanRows.Result result = scan.write(planned, matchByLocation, tmp);
      // The same filter over every file, without pruning: if this differs, the result depends on
      // how files were pruned (Iceberg's metrics evaluation and its row evaluator disagree).
      ScanRows.Result unpruned = scan.write(all, matchByLocation, tmpAll);
      boolean samePruned = Oracle.sha256(tmp).equals(Oracle.sha256(tmpAll));
      if (samePruned) {
        Files.delete(tmpAll);
      } else {
        Files.move(tmpAll, out.resolve(name + ".unpruned.jsonl"));
      }
      Files.move(tmp, out.resolve(name + ".jsonl"));
      node.put("rows", result.rows);
      node.put("file", name + ".jsonl");
      node.put("files_planned", planned.size());
      node.put("files_total", all.size());
      if (!samePruned) {
        node.put("rows_without_pruning", unpruned.rows);
        node.put("file_without_pruning", name + ".unpruned.jsonl");
        notes.add(
            name
                + ": pruning changes the result ("
                + result.rows
                + " rows pruned, "
                + unpruned.rows
                + " unpruned)");
      }
      if (result.nullOrNaNCompared > 0) {
        node.put("null_or_nan_compared_rows", result.nullOrNaNCompared);
        notes.add(
            name
                + ": "
                + result.nullOrNaNCompared
                + " kept rows compare a null or NaN (Iceberg Java's ordering, not SQL's)");
      }
      if (result.residualMismatches > 0) {
        node.put("residual_mismatches", result.residualMismatches);
        notes.add(name + ": " + result.residualMismatches + " rows where residual != filter");
      }
      ok++;
    } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {
      String err = Oracle.putError(node, e, dir, tmp, tmpAll);
      failures.add(name + " (" + tableName + "): " + err);
    }
    return node;
  }
}
