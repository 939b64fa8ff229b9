package io.iceflight.javaref;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;

/**
 * {@code jdbcwrite}: writes tables through Iceberg Java's JdbcCatalog (SQLite or PostgreSQL) and
 * writes the rows Iceberg's generic reader reads back from each, as the oracle does, for the SQL
 * catalog tests of iceflight.
 *
 * <pre>
 * jdbcwrite --uri JDBC_URL --warehouse DIR --name CATALOG --out DIR
 *           [--user U --password P] [--schema-version V0|V1]
 * </pre>
 *
 * <p>Writes {@code sales.items} (partitioned by identity on {@code kind}, two appends) and {@code
 * a.b.logs} (a nested namespace), a namespace {@code empty} with only properties, and with schema
 * V1 a view {@code sales.cheap}, which a reader must not list as a table. Rows go to {@code
 * OUT/<table>.jsonl}.
 */
final class JdbcWrite {
  private JdbcWrite() {}

  static final Schema ITEMS =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "kind", Types.StringType.get()),
          Types.NestedField.optional(3, "price", Types.DoubleType.get()),
          Types.NestedField.optional(4, "added", Types.DateType.get()));

  static final Schema LOGS =
      new Schema(
          Types.NestedField.required(1, "seq", Types.IntegerType.get()),
          Types.NestedField.optional(2, "line", Types.StringType.get()));

  static int run(String[] args) throws IOException {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    for (String required : List.of("uri", "warehouse", "name", "out")) {
      if (!opts.containsKey(required)) {
        System.err.println("jdbcwrite: --" + required + " is required");
        return 2;
      }
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, opts.get("uri"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, opts.get("warehouse"));
    props.put("jdbc.schema-version", opts.getOrDefault("schema-version", "V1"));
    if (opts.containsKey("user")) {
      props.put("jdbc.user", opts.get("user"));
    }
    if (opts.containsKey("password")) {
      props.put("jdbc.password", opts.get("password"));
    }
    boolean views = "V1".equals(props.get("jdbc.schema-version"));

    Path out = Paths.get(opts.get("out"));
    Files.createDirectories(out);
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.setConf(new Configuration());
      catalog.initialize(opts.get("name"), props);
      Namespace sales = Namespace.of("sales");
      catalog.createNamespace(sales, Map.of("owner", "java"));
      catalog.createNamespace(Namespace.of("a"));
      catalog.createNamespace(Namespace.of("a", "b"));
      catalog.createNamespace(Namespace.of("empty"), Map.of("comment", "no tables"));

      Table items =
          catalog.createTable(
              TableIdentifier.of(sales, "items"),
              ITEMS,
              PartitionSpec.builderFor(ITEMS).identity("kind").build());
      appendItems(items, 0, 12);
      appendItems(items, 12, 9);

      Table logs = catalog.createTable(TableIdentifier.of(Namespace.of("a", "b"), "logs"), LOGS);
      List<Record> lines = new ArrayList<>();
      for (int i = 0; i < 15; i++) {
        lines.add(FixtureGen.record(LOGS, i, i % 4 == 0 ? null : "line " + i));
      }
      logs.newAppend().appendFile(FixtureGen.write(logs, "logs-0.parquet", null, lines)).commit();

      if (views) {
        catalog
            .buildView(TableIdentifier.of(sales, "cheap"))
            .withSchema(ITEMS)
            .withDefaultNamespace(sales)
            .withQuery("spark", "SELECT * FROM sales.items WHERE price < 5")
            .create();
      }

      for (TableIdentifier id :
          List.of(TableIdentifier.of(sales, "items"), TableIdentifier.of("a", "b", "logs"))) {
        Table table = catalog.loadTable(id);
        ScanRows scan = ScanRows.prepare(table, null, null, null, true);
        scan.write(ScanRows.plan(scan.scan), false, out.resolve(id + ".jsonl"));
      }
    }
    return 0;
  }

  /** Appends rows first..first+n-1 of sales.items, one data file per kind. */
  private static void appendItems(Table table, int first, int n) throws IOException {
    Map<String, List<Record>> byKind = new HashMap<>();
    for (int i = first; i < first + n; i++) {
      String kind = i % 5 == 0 ? null : "k" + (i % 3);
      Record r =
          FixtureGen.record(ITEMS, (long) i, kind, i * 1.25, LocalDate.of(2026, 1, 1).plusDays(i));
      byKind.computeIfAbsent(String.valueOf(kind), k -> new ArrayList<>()).add(r);
    }
    var append = table.newAppend();
    for (Map.Entry<String, List<Record>> e : byKind.entrySet()) {
      List<Record> rows = e.getValue();
      append.appendFile(
          FixtureGen.write(
              table,
              "items-" + first + "-" + e.getKey() + ".parquet",
              FixtureGen.partitionOf(table, rows.get(0)),
              rows));
    }
    append.commit();
  }
}
