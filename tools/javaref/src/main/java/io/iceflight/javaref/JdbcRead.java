package io.iceflight.javaref;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * {@code jdbcread}: reads a SQL catalog as Iceberg Java's JdbcCatalog sees it, for the tests of
 * iceflight's SQL catalog writes: every namespace (nested ones too) with the properties {@code
 * loadNamespaceMetadata} gives it, and every table with the metadata file it loads, its UUID and
 * its current snapshot. Prints one JSON object:
 *
 * <pre>
 * {"namespaces": {"a.b": {"key": "value", ...}, ...},
 *  "tables": {"a.b.t": {"metadata-location": "...", "table-uuid": "...",
 *                       "current-snapshot-id": N}, ...}}
 * </pre>
 *
 * <pre>
 * jdbcread --uri JDBC_URL --warehouse DIR --name CATALOG [--user U --password P]
 * </pre>
 *
 * <p>No schema version is asked for, so the catalog's tables are read as they are, never
 * migrated.
 */
final class JdbcRead {
  private JdbcRead() {}

  static int run(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    for (String required : List.of("uri", "warehouse", "name")) {
      if (!opts.containsKey(required)) {
        System.err.println("jdbcread: --" + required + " is required");
        return 2;
      }
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, opts.get("uri"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, opts.get("warehouse"));
    if (opts.containsKey("user")) {
      props.put("jdbc.user", opts.get("user"));
      props.put("jdbc.password", opts.getOrDefault("password", ""));
    }
    ObjectNode out = Oracle.MAPPER.createObjectNode();
    Map<String, Map<String, String>> namespaces = new TreeMap<>();
    Map<String, ObjectNode> tables = new TreeMap<>();
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.setConf(new Configuration());
      catalog.initialize(opts.get("name"), props);
      Deque<Namespace> todo = new ArrayDeque<>(catalog.listNamespaces(Namespace.empty()));
      while (!todo.isEmpty()) {
        Namespace ns = todo.pop();
        namespaces.put(ns.toString(), new TreeMap<>(catalog.loadNamespaceMetadata(ns)));
        todo.addAll(catalog.listNamespaces(ns));
        for (TableIdentifier id : catalog.listTables(ns)) {
          Table table = catalog.loadTable(id);
          TableMetadata md = ((BaseTable) table).operations().current();
          ObjectNode node = Oracle.MAPPER.createObjectNode();
          node.put("metadata-location", md.metadataFileLocation());
          node.put("table-uuid", md.uuid());
          if (md.currentSnapshot() != null) {
            node.put("current-snapshot-id", md.currentSnapshot().snapshotId());
          }
          tables.put(id.toString(), node);
        }
      }
    }
    ObjectNode nsNode = out.putObject("namespaces");
    for (Map.Entry<String, Map<String, String>> ns : namespaces.entrySet()) {
      ObjectNode node = nsNode.putObject(ns.getKey());
      ns.getValue().forEach(node::put);
    }
    ObjectNode tablesNode = out.putObject("tables");
    tables.forEach(tablesNode::set);
    System.out.println(Oracle.MAPPER.writeValueAsString(out));
    return 0;
  }
}
