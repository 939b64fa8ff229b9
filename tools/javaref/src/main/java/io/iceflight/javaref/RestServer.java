package io.iceflight.javaref;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.types.Types;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;

/**
 * The Iceberg REST catalog fixture: Iceberg's own RESTCatalogAdapter and RESTCatalogServlet (what
 * iceberg-open-api's RESTCatalogServer runs) over a JdbcCatalog on SQLite, behind Jetty on
 * 127.0.0.1. With {@code --samples DIR} it then creates sample namespaces and tables through the
 * REST API with Iceberg's RESTCatalog client, as any Iceberg Java writer would, and writes each
 * table's rows as read back by Iceberg Java (the oracle's reader) to {@code DIR/<table>.jsonl}.
 *
 * <p>Catalog properties ({@code --prop io-impl=org.apache.iceberg.aws.s3.S3FileIO}, {@code --prop
 * s3.endpoint=...}) go to the backing catalog and to the sample writer alike, so the warehouse can
 * live on any FileIO Iceberg Java has.
 */
final class RestServer {
  private RestServer() {}

  static int run(String[] args) throws Exception {
    Integer port = null;
    String warehouse = null;
    Path samples = null;
    Map<String, String> props = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        return usage("missing value after " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--port":
          port = Integer.parseInt(v);
          break;
        case "--warehouse":
          warehouse = v;
          break;
        case "--samples":
          samples = Path.of(v);
          break;
        case "--prop":
          int eq = v.indexOf('=');
          if (eq <= 0) {
            return usage("--prop wants KEY=VALUE, got " + v);
          }
          props.put(v.substring(0, eq), v.substring(eq + 1));
          break;
        default:
          return usage("unknown flag " + a);
      }
    }
    if (port == null || warehouse == null) {
      return usage("--port and --warehouse are required");
    }

    Map<String, String> backend = new HashMap<>(props);
    backend.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    backend.putIfAbsent(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
    if (!backend.containsKey(CatalogProperties.URI)) {
      // A file rather than RESTCatalogServer's jdbc:sqlite::memory:, whose every pooled
      // connection would see a database of its own.
      Path db = Files.createTempDirectory("iceflight-rest-fixture").resolve("catalog.db");
      db.toFile().deleteOnExit();
      backend.put(CatalogProperties.URI, "jdbc:sqlite:" + db);
    }
    backend.putIfAbsent("jdbc.schema-version", "V1");
    Catalog catalog = CatalogUtil.buildIcebergCatalog("rest_backend", backend, new Configuration());

    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(catalog))), "/*");
    Server server = new Server(new InetSocketAddress("127.0.0.1", port));
    server.setHandler(context);
    server.start();
    System.out.println("listening on 127.0.0.1:" + port);
    System.out.flush();

    if (samples != null) {
      writeSamples("http://127.0.0.1:" + port, props, samples);
    }
    // The line the test starters wait for: the server is up and the samples are committed.
    System.out.println("ready");
    System.out.flush();
    server.join();
    return 0;
  }

  private static int usage(String why) {
    System.err.println("restserver: " + why);
    System.err.println(
        "usage: restserver --port N --warehouse LOCATION [--prop KEY=VALUE ...] [--samples DIR]");
    return 2;
  }

  static final Schema TRIPS =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "fare", Types.DoubleType.get()));

  static final Schema EVENTS =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "kind", Types.StringType.get()),
          Types.NestedField.optional(3, "score", Types.IntegerType.get()));

  /**
   * Creates, through the REST catalog at uri: namespace {@code demo} with the unpartitioned table
   * {@code trips} (two appends, so two snapshots), and the nested namespace {@code demo.nested}
   * with {@code events}, partitioned by identity(kind). Then writes the rows Iceberg Java reads
   * from each table's current snapshot.
   */
  static void writeSamples(String uri, Map<String, String> props, Path out) throws IOException {
    Files.createDirectories(out);
    Map<String, String> clientProps = new HashMap<>(props);
    clientProps.put(CatalogProperties.URI, uri);
    try (RESTCatalog client = new RESTCatalog()) {
      client.setConf(new Configuration());
      client.initialize("fixture", clientProps);
      Namespace demo = Namespace.of("demo");
      Namespace nested = Namespace.of("demo", "nested");
      client.createNamespace(demo, new HashMap<>(Map.of("owner", "javaref")));
      client.createNamespace(nested, new HashMap<>());

      TableIdentifier tripsId = TableIdentifier.of(demo, "trips");
      Table trips = client.createTable(tripsId, TRIPS, PartitionSpec.unpartitioned());
      append(trips, "trips-1.parquet", rows(TRIPS, 1, 5, false));
      append(trips, "trips-2.parquet", rows(TRIPS, 6, 3, false));

      PartitionSpec byKind = PartitionSpec.builderFor(EVENTS).identity("kind").build();
      TableIdentifier eventsId = TableIdentifier.of(nested, "events");
      Table events = client.createTable(eventsId, EVENTS, byKind);
      List<Record> all = rows(EVENTS, 1, 6, true);
      AppendFiles add = events.newAppend();
      for (String kind : List.of("click", "view")) {
        List<Record> part = new ArrayList<>();
        for (Record r : all) {
          if (kind.equals(r.getField("kind"))) {
            part.add(r);
          }
        }
        add.appendFile(
            FixtureGen.write(
                events, "events-" + kind + ".parquet", FixtureGen.partitionOf(events, part.get(0)), part));
      }
      add.commit();

      for (TableIdentifier id : List.of(tripsId, eventsId)) {
        Table t = client.loadTable(id);
        ScanRows scan = ScanRows.prepare(t, null, null, null, true);
        scan.write(ScanRows.plan(scan.scan), false, out.resolve(id.toString() + ".jsonl"));
      }
    }
  }

  private static void append(Table table, String fileName, List<Record> rows) throws IOException {
    table.newAppend().appendFile(FixtureGen.write(table, fileName, null, rows)).commit();
  }

  /** n rows with ids from first on; events alternate kind click/view, trips carry a fare. */
  private static List<Record> rows(Schema schema, long first, int n, boolean events) {
    List<Record> out = new ArrayList<>();
    for (long id = first; id < first + n; id++) {
      if (events) {
        out.add(FixtureGen.record(schema, id, id % 2 == 0 ? "view" : "click", (int) (id * 10)));
      } else {
        out.add(FixtureGen.record(schema, id, id % 3 == 0 ? null : "rider-" + id, id * 2.5));
      }
    }
    return out;
  }
}
