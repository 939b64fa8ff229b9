package io.iceflight.javaref;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * {@code dropfiles}: prints, one a line and sorted, the files Iceberg Java's {@code
 * CatalogUtil.dropTableData} deletes when a JdbcCatalog table is dropped with purge. Nothing is
 * deleted: the table's FileIO is wrapped in one that records deletes instead.
 *
 * <pre>
 * dropfiles --uri JDBC_URL --warehouse DIR --name CATALOG --table NS.NAME
 *           [--delete-where COL=VALUE]
 * </pre>
 *
 * <p>With {@code --delete-where}, the rows where the string column COL equals VALUE are first
 * deleted in a commit of their own, so the table's manifests also hold DELETED entries.
 */
final class DropFiles {
  private DropFiles() {}

  static int run(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    for (String required : List.of("uri", "warehouse", "name", "table")) {
      if (!opts.containsKey(required)) {
        System.err.println("dropfiles: --" + required + " is required");
        return 2;
      }
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, opts.get("uri"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, opts.get("warehouse"));
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.setConf(new Configuration());
      catalog.initialize(opts.get("name"), props);
      Table table = catalog.loadTable(TableIdentifier.parse(opts.get("table")));
      if (opts.containsKey("delete-where")) {
        String[] kv = opts.get("delete-where").split("=", 2);
        table.newDelete().deleteFromRowFilter(Expressions.equal(kv[0], kv[1])).commit();
        table.refresh();
      }
      RecordingIO io = new RecordingIO(table.io());
      CatalogUtil.dropTableData(io, ((BaseTable) table).operations().current());
      io.deleted.forEach(System.out::println);
    }
    return 0;
  }

  /** A FileIO that reads through another and records deletes instead of doing them. */
  private static final class RecordingIO implements FileIO {
    private final FileIO io;
    private final Set<String> deleted = new TreeSet<>();

    RecordingIO(FileIO io) {
      this.io = io;
    }

    @Override
    public InputFile newInputFile(String path) {
      return io.newInputFile(path);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      throw new UnsupportedOperationException("dropfiles writes nothing: " + path);
    }

    @Override
    public synchronized void deleteFile(String path) {
      deleted.add(path);
    }
  }
}
