package io.iceflight.javaref;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;

/**
 * Writes {@code testdata/locations}: one small table per spelling of a table location that
 * writers record (relative, {@code ./}-relative, {@code file:/}, {@code file:///}, {@code
 * file://localhost/}, {@code hdfs://nn:8020/}, {@code s3a://}, Windows {@code C:\}), tables whose
 * data lies under a {@code write.data.path} beside the table, and a table with a snapshot whose
 * manifest list is missing.
 *
 * <p>Each table is written through the Iceberg Java API with a {@link RemappingFileIO} for writing:
 * the metadata and manifests record the spelled location and paths below it, while the files land
 * in the table's folder under the warehouse (data under a sibling root lands in {@code
 * <table>/_siblings/<root>}, as a copy of such a table is laid out). No path of the machine that
 * runs it is recorded. Snapshot ids are seeded and rows fixed, so the oracle's output is stable.
 */
final class LocationGen {
  /** The namespace folder every table is written in. */
  static final String NAMESPACE = "spellings";

  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "value", Types.DoubleType.get()));

  private final Path warehouse;
  private final Configuration conf;
  private int written;

  private LocationGen(Path warehouse, Configuration conf) {
    this.warehouse = warehouse;
    this.conf = conf;
  }

  static int run(String[] args) throws IOException {
    Path warehouse = FixtureGen.freshWarehouse(args);
    if (warehouse == null) {
      return 2;
    }
    Configuration conf = FixtureGen.rawLocal();
    LocationGen gen = new LocationGen(warehouse, conf);
    // Relative to the writer's working directory. The data paths of these two are spelled
    // otherwise than the location (a "..", doubled slashes, no "./") to be matched after cleaning.
    gen.table("relative", "data/some/dir/relative",
        Map.of(TableProperties.WRITE_DATA_LOCATION, "data/some/dir/x/../relative//data"));
    gen.table("dot_relative", "./warehouse/dot_relative",
        Map.of(TableProperties.WRITE_DATA_LOCATION, "warehouse//dot_relative/data"));
    gen.table("file_colon", "file:/wh/spellings/file_colon", Map.of());
    gen.table("file_triple", "file:///wh/spellings/file_triple", Map.of());
    gen.table("file_localhost", "file://localhost/wh/spellings/file_localhost", Map.of());
    gen.table("hdfs", "hdfs://nn:8020/wh/spellings/hdfs", Map.of());
    gen.table("s3a", "s3a://bucket/wh/spellings/s3a", Map.of());
    gen.table("windows", "C:\\wh\\spellings\\windows", Map.of());
    // write.data.path under a sibling root of the table: copied along as _siblings/<root>.
    gen.table("data_path_hdfs", "hdfs://nn:8020/wh/spellings/data_path_hdfs",
        Map.of(TableProperties.WRITE_DATA_LOCATION, "hdfs://nn:8020/wh/spellings/data_path_hdfs_files/data"));
    gen.table("data_path_relative", "warehouse/data_path_relative",
        Map.of(TableProperties.WRITE_DATA_LOCATION, "warehouse/data_path_relative_files/data"));
    gen.missingManifestList("missing_manifest_list", "./warehouse/missing_manifest_list");
    System.out.println("locationgen: wrote " + gen.written + " tables under " + warehouse);
    return 0;
  }

  /** Writes NAMESPACE.name recording location, with one snapshot of four rows. */
  private void table(String name, String location, Map<String, String> props) throws IOException {
    Table table = create(name, location, props);
    table.newAppend().appendFile(FixtureGen.write(table, name + "-1.parquet", null, rows(name, 1)))
        .commit();
  }

  /**
   * Writes NAMESPACE.name with three snapshots, then deletes the manifest list of the second: that
   * snapshot cannot be read, the others can (the third's manifest list names the manifests of all
   * three commits).
   */
  private void missingManifestList(String name, String location) throws IOException {
    Table table = create(name, location, Map.of());
    for (int batch = 1; batch <= 3; batch++) {
      table.newAppend()
          .appendFile(FixtureGen.write(table, name + "-" + batch + ".parquet", null, rows(name, batch)))
          .commit();
    }
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    String manifestList = snapshots.get(1).manifestListLocation();
    Files.delete(Paths.get(((RemappingFileIO) table.io()).map(manifestList)));
  }

  /**
   * Creates NAMESPACE.name at location, unpartitioned, format v2, as a catalog does: the first
   * metadata file, then a table on it. No transaction: its temporary operations would not hand out
   * the seeded snapshot ids.
   */
  private Table create(String name, String location, Map<String, String> props)
      throws IOException {
    TableOperations ops = operations(name, location, props);
    ops.commit(
        null,
        TableMetadata.newTableMetadata(
            SCHEMA, PartitionSpec.unpartitioned(), SortOrder.unsorted(), location, props));
    written++;
    return new BaseTable(ops, NAMESPACE + "." + name);
  }

  /**
   * The operations of NAMESPACE.name: files mapped from the spelled location to the table's folder
   * (and, when props set a write.data.path, from the sibling root {@code <name>_files} beside the
   * location to {@code _siblings/<name>_files}), snapshot ids seeded by the table's name.
   */
  private TableOperations operations(String name, String location, Map<String, String> props)
      throws IOException {
    Path dir = warehouse.resolve(NAMESPACE).resolve(name);
    Files.createDirectories(dir.resolve("metadata"));
    if (props.containsKey(TableProperties.WRITE_DATA_LOCATION)) {
      Files.createDirectories(dir.resolve("_siblings").resolve(name + "_files"));
    }
    RemappingFileIO io = RemappingFileIO.forWriting(new HadoopFileIO(conf), dir);
    io.setRecordedLocation(location);
    return new FixtureGen.SeededIdOperations(
        new SpelledOperations(io, NAMESPACE + "." + name), new Random(name.hashCode()), null);
  }

  private static List<Record> rows(String name, int batch) {
    List<Record> rows = new ArrayList<>();
    for (long i = 1; i <= 4; i++) {
      long id = (batch - 1) * 4 + i;
      rows.add(FixtureGen.record(SCHEMA, id, name + "-" + id, id * 0.25));
    }
    return rows;
  }

  /**
   * Table operations that keep the current metadata location in memory and write metadata files
   * below the table's location, as a metastore catalog does: {@code
   * <location>/metadata/NNNNN-<uuid>.metadata.json}.
   */
  static final class SpelledOperations extends BaseMetastoreTableOperations {
    private final FileIO io;
    private final String name;
    private String current;

    SpelledOperations(FileIO io, String name) {
      this.io = io;
      this.name = name;
    }

    @Override
    protected String tableName() {
      return name;
    }

    @Override
    public FileIO io() {
      return io;
    }

    @Override
    protected void doRefresh() {
      refreshFromMetadataLocation(current);
    }

    @Override
    protected void doCommit(TableMetadata base, TableMetadata metadata) {
      current = writeNewMetadataIfRequired(base == null, metadata);
    }
  }
}
