package io.iceflight.javaref;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.CloseableIterable;

/**
 * {@code metatables --queries FILE}: reads Iceberg metadata tables ({@code snapshots}, {@code
 * files}, {@code all_entries}, ...) with Iceberg Java's own implementation and prints what they
 * hold, for {@code metatable}'s tests.
 *
 * <p>FILE is a JSON array of queries, each {"table_dir": DIR, "metadata_file": FILE, "kind": NAME,
 * "snapshot_id": ID?, "filter": EXPR_JSON?, "columns": [NAME...]?, "case_sensitive": BOOL?}. The
 * table is opened read-only from the metadata file, its recorded paths mapped onto DIR as the
 * oracle does; the metadata table is {@code MetadataTableUtils.createMetadataTableInstance} of the
 * kind; its scan is {@code newScan()}, then {@code useSnapshot}, {@code filter} (the REST
 * expression parsed against the metadata table's schema) and {@code select} as the query asks.
 * Every planned task is a DataTask whose rows are read; with a filter, only the rows Iceberg's
 * {@code Evaluator} accepts are kept, as an engine applies a scan's residual (metadata tables
 * themselves only prune manifests with it).
 *
 * <p>Prints one JSON line per query, in order: {"schema": the metadata table's schema, "projected":
 * the scan's schema, "snapshot_id": the scan's snapshot or null, "tasks": planned tasks, "rows":
 * [row...]} with rows in the oracle's canonical form (RowJson) of the projected schema, or
 * {"error": message} when Java fails.
 */
final class MetaTables {
  private MetaTables() {}

  static int run(String[] args) throws Exception {
    if (args.length != 2 || !args[0].equals("--queries")) {
      System.err.println("usage: metatables --queries FILE");
      return 2;
    }
    JsonNode queries = Oracle.MAPPER.readTree(Files.readString(Paths.get(args[1])));
    Map<String, Table> tables = new HashMap<>();
    try (JsonGenerator gen = ScanRows.JSON.createGenerator(System.out, JsonEncoding.UTF8)) {
      for (JsonNode q : queries) {
        answer(gen, tables, q);
        gen.writeRaw('\n');
        gen.flush();
      }
    }
    return 0;
  }

  private static void answer(JsonGenerator gen, Map<String, Table> tables, JsonNode q)
      throws Exception {
    Table metaTable;
    TableScan scan;
    int tasks = 0;
    try {
      Table table = open(tables, q);
      MetadataTableType type = MetadataTableType.from(q.get("kind").asText());
      if (type == null) {
        throw new IllegalArgumentException("unknown metadata table " + q.get("kind"));
      }
      metaTable = MetadataTableUtils.createMetadataTableInstance(table, type);
      boolean caseSensitive =
          !q.hasNonNull("case_sensitive") || q.get("case_sensitive").asBoolean();
      scan = metaTable.newScan().caseSensitive(caseSensitive);
      if (q.hasNonNull("snapshot_id")) {
        scan = scan.useSnapshot(q.get("snapshot_id").asLong());
      }
      Expression filter = null;
      if (q.hasNonNull("filter")) {
        filter = ExpressionParser.fromJson(q.get("filter").toString(), metaTable.schema());
        scan = scan.filter(filter);
      }
      if (q.hasNonNull("columns")) {
        List<String> columns = new ArrayList<>();
        q.get("columns").forEach(c -> columns.add(c.asText()));
        scan = scan.select(columns);
      }
      Evaluator keep =
          filter == null ? null : new Evaluator(scan.schema().asStruct(), filter, caseSensitive);
      // Rows are rendered as they come, since a task may hand out one object for every row, and
      // written out only once all of them were read, so that a failure midway is an error line,
      // not half an answer.
      StringWriter buffered = new StringWriter();
      try (JsonGenerator rowGen = ScanRows.JSON.createGenerator(buffered);
          CloseableIterable<FileScanTask> planned = scan.planFiles()) {
        rowGen.writeStartArray();
        for (FileScanTask task : planned) {
          tasks++;
          try (CloseableIterable<StructLike> taskRows = ((DataTask) task).rows()) {
            for (StructLike row : taskRows) {
              if (keep == null || keep.eval(row)) {
                RowJson.writeValue(rowGen, scan.schema().asStruct(), row);
              }
            }
          }
        }
        rowGen.writeEndArray();
      }
      gen.writeStartObject();
      gen.writeFieldName("schema");
      gen.writeRawValue(SchemaParser.toJson(metaTable.schema()));
      gen.writeFieldName("projected");
      gen.writeRawValue(SchemaParser.toJson(scan.schema()));
      if (scan.snapshot() == null) {
        gen.writeNullField("snapshot_id");
      } else {
        gen.writeNumberField("snapshot_id", scan.snapshot().snapshotId());
      }
      gen.writeNumberField("tasks", tasks);
      gen.writeFieldName("rows");
      gen.writeRawValue(buffered.toString());
      gen.writeEndObject();
    } catch (Exception | StackOverflowError e) {
      gen.writeStartObject();
      gen.writeStringField("error", e.getClass().getSimpleName() + ": " + e.getMessage());
      if (System.getenv("JAVAREF_DEBUG") != null) {
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        gen.writeStringField("trace", trace.toString());
      }
      gen.writeEndObject();
    }
  }

  /** Opens a query's table once per metadata file. */
  private static Table open(Map<String, Table> tables, JsonNode q) {
    String metadataFile = q.get("metadata_file").asText();
    return tables.computeIfAbsent(
        metadataFile,
        f -> {
          Path dir = Paths.get(q.get("table_dir").asText()).toAbsolutePath().normalize();
          return Oracle.openTable(dir.getFileName().toString(), dir, Paths.get(f));
        });
  }
}
