package io.iceflight.javaref;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * The steps {@code restclient} runs, each a JSON object with an {@code op}. Tables and namespaces
 * are arrays of names ({@code ["db", "t"]}: namespace levels, then the table's name). Ops and what
 * they print besides {@code op}:
 *
 * <ul>
 *   <li>{@code namespaces}: every namespace below the root, depth first ({@code namespaces}).
 *   <li>{@code tables} {@code namespace}: the tables of one namespace ({@code tables}).
 *   <li>{@code load} {@code table}: {@code metadata_location}, {@code location}, {@code
 *       snapshot_id}, {@code schema}, {@code properties}.
 *   <li>{@code read} {@code table} [{@code snapshot_id}] [{@code reader}]: the rows IcebergGenerics
 *       reads ({@code rows}, in RowJson's form, with {@code schema} and {@code snapshot_id}), or
 *       the oracle's reader with {@code "reader": "oracle"}; the class of the scan that planned
 *       them ({@code scan}: RESTTableScan when the server planned it); whether the table was
 *       read from its remapped folder ({@code remapped}).
 *   <li>{@code create_namespace} {@code namespace}; {@code create_table} {@code table}, {@code
 *       schema} (Iceberg schema JSON), [{@code partition_by}: columns, identity], [{@code
 *       properties}].
 *   <li>{@code append} {@code table}, {@code rows} (RowJson's form): one Parquet file per
 *       partition, one commit ({@code snapshot_id}, and the {@code rows} as written).
 *   <li>{@code add_column} {@code table}, {@code name}, {@code type} (a primitive type's name).
 *   <li>{@code rename_table} {@code from}, {@code to}; {@code drop_table} {@code table}, [{@code
 *       purge}] ({@code dropped}).
 *   <li>{@code transaction} {@code appends}: [{@code table}, {@code rows}]...: every append staged
 *       in its table's transaction, then all committed at once by {@code
 *       RESTCatalog.commitTransaction} ({@code snapshot_ids}, in the order given).
 * </ul>
 */
final class RestSteps {
  private final RESTCatalog catalog;
  private final RestRows rows;

  RestSteps(RESTCatalog catalog, boolean remap) {
    this.catalog = catalog;
    this.rows = new RestRows(remap);
  }

  /** Runs one step and returns its result line. */
  ObjectNode run(JsonNode step) {
    ObjectNode out = Oracle.MAPPER.createObjectNode();
    String op = step.path("op").asText();
    out.put("op", op);
    try {
      switch (op) {
        case "namespaces":
          namespaces(out);
          break;
        case "tables":
          tables(Namespace.of(RestClient.names(step, "namespace").toArray(new String[0])), out);
          break;
        case "load":
          load(catalog.loadTable(table(step, "table")), out);
          break;
        case "read":
          Long snapshot = step.hasNonNull("snapshot_id") ? step.get("snapshot_id").asLong() : null;
          boolean oracle = step.path("reader").asText("generics").equals("oracle");
          rows.read(catalog.loadTable(table(step, "table")), snapshot, oracle, out);
          break;
        case "create_namespace":
          catalog.createNamespace(
              Namespace.of(RestClient.names(step, "namespace").toArray(new String[0])));
          break;
        case "create_table":
          createTable(step, out);
          break;
        case "append":
          // The commit leaves the table at the metadata it answered: its snapshot is this
          // append's, whatever other writers commit after it.
          Table t = catalog.loadTable(table(step, "table"));
          rows.appendIn(t, t.newAppend(), step.get("rows"), out).commit();
          putSnapshot(out, t.currentSnapshot());
          break;
        case "add_column":
          Table evolved = catalog.loadTable(table(step, "table"));
          String type = step.get("type").asText();
          evolved
              .updateSchema()
              .addColumn(step.get("name").asText(), Types.fromPrimitiveString(type))
              .commit();
          load(catalog.loadTable(table(step, "table")), out);
          break;
        case "rename_table":
          catalog.renameTable(table(step, "from"), table(step, "to"));
          break;
        case "drop_table":
          boolean purge = step.path("purge").asBoolean(false);
          out.put("dropped", catalog.dropTable(table(step, "table"), purge));
          break;
        case "transaction":
          transaction(step.get("appends"), out);
          break;
        default:
          throw new IllegalArgumentException("unknown op " + op);
      }
    } catch (Exception | LinkageError | AssertionError e) {
      ObjectNode err = out.putObject("error");
      err.put("type", e.getClass().getSimpleName());
      err.put("message", String.valueOf(e.getMessage()));
      if (System.getenv("JAVAREF_DEBUG") != null) {
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        err.put("trace", trace.toString());
      }
    }
    return out;
  }

  static TableIdentifier table(JsonNode step, String member) {
    List<String> names = RestClient.names(step, member);
    if (names.isEmpty()) {
      throw new IllegalArgumentException(member + " names no table");
    }
    return TableIdentifier.of(names.toArray(new String[0]));
  }

  /** Lists every namespace below the root, each after its parent. */
  private void namespaces(ObjectNode out) {
    ArrayNode all = out.putArray("namespaces");
    Deque<Namespace> todo = new ArrayDeque<>(catalog.listNamespaces());
    while (!todo.isEmpty()) {
      Namespace ns = todo.pollFirst();
      ArrayNode levels = all.addArray();
      for (String l : ns.levels()) {
        levels.add(l);
      }
      List<Namespace> children = catalog.listNamespaces(ns);
      for (int i = children.size() - 1; i >= 0; i--) {
        todo.addFirst(children.get(i));
      }
    }
  }

  private void tables(Namespace ns, ObjectNode out) {
    ArrayNode all = out.putArray("tables");
    for (TableIdentifier id : catalog.listTables(ns)) {
      ArrayNode levels = all.addArray();
      for (String l : id.namespace().levels()) {
        levels.add(l);
      }
      levels.add(id.name());
    }
  }

  private static void load(Table table, ObjectNode out) throws Exception {
    out.put("metadata_location", RestRows.metadata(table).metadataFileLocation());
    out.put("location", table.location());
    putSnapshot(out, table.currentSnapshot());
    out.set("schema", Oracle.MAPPER.readTree(SchemaParser.toJson(table.schema())));
    out.set("properties", Oracle.MAPPER.valueToTree(table.properties()));
  }

  static void putSnapshot(ObjectNode out, Snapshot snapshot) {
    if (snapshot == null) {
      out.putNull("snapshot_id");
    } else {
      out.put("snapshot_id", snapshot.snapshotId());
    }
  }

  private void createTable(JsonNode step, ObjectNode out) throws Exception {
    Schema schema = SchemaParser.fromJson(step.get("schema").toString());
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    for (JsonNode col : step.path("partition_by")) {
      spec.identity(col.asText());
    }
    Map<String, String> props = new HashMap<>();
    step.path("properties")
        .fields()
        .forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
    Table table = catalog.createTable(table(step, "table"), schema, spec.build(), props);
    load(table, out);
  }

  /**
   * Stages each append in its own table's transaction, then commits them together: one request
   * to the server's transactions/commit endpoint, all or none.
   */
  private void transaction(JsonNode appends, ObjectNode out) throws Exception {
    List<TableCommit> commits = new ArrayList<>();
    ArrayNode ids = out.putArray("snapshot_ids");
    for (JsonNode a : appends) {
      TableIdentifier id = table(a, "table");
      Transaction tx = catalog.loadTable(id).newTransaction();
      rows.appendIn(tx.table(), tx.newAppend(), a.get("rows"), Oracle.MAPPER.createObjectNode())
          .commit();
      BaseTransaction staged = (BaseTransaction) tx;
      commits.add(TableCommit.create(id, staged.startMetadata(), staged.currentMetadata()));
      // The server adds the staged snapshot as it is, id included.
      ids.add(staged.currentMetadata().currentSnapshot().snapshotId());
    }
    catalog.commitTransaction(commits);
  }
}
