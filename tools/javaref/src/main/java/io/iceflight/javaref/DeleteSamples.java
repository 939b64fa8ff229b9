package io.iceflight.javaref;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Sample tables for delete files: equality deletes across partition evolution, position deletes
 * over row-group boundaries, and v3 deletion vectors over many files. Every delete file is written
 * by Iceberg's own writers ({@link GenericFileWriterFactory}, {@link BaseDVFileWriter}).
 */
final class DeleteSamples {
  private final FixtureGen gen;

  DeleteSamples(FixtureGen gen) {
    this.gen = gen;
  }

  // ---------------------------------------------------------------- helpers

  /** The partition of ROW (a full table row) under SPEC. */
  static PartitionKey partitionOf(Table table, PartitionSpec spec, Record row) {
    PartitionKey key = new PartitionKey(spec, table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    return key.copy();
  }

  private static EncryptedOutputFile output(
      Table table, PartitionSpec spec, StructLike partition, String fileName) {
    String location =
        spec.isUnpartitioned()
            ? table.locationProvider().newDataLocation(fileName)
            : table.locationProvider().newDataLocation(spec, partition, fileName);
    return EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location));
  }

  /** Writes an equality delete file with Iceberg's generic writer factory. */
  static DeleteFile equalityDeletes(
      Table table,
      String fileName,
      PartitionSpec spec,
      StructLike partition,
      List<String> keyColumns,
      List<Object[]> keys)
      throws IOException {
    Schema keySchema = table.schema().select(keyColumns);
    int[] ids = keySchema.columns().stream().mapToInt(Types.NestedField::fieldId).toArray();
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(ids)
            .equalityDeleteRowSchema(keySchema)
            .build();
    EqualityDeleteWriter<Record> writer =
        factory.newEqualityDeleteWriter(
            output(table, spec, partition, fileName), spec, spec.isUnpartitioned() ? null : partition);
    try {
      for (Object[] key : keys) {
        writer.write(FixtureGen.record(keySchema, key));
      }
    } finally {
      writer.close();
    }
    return writer.toDeleteFile();
  }

  /** Writes a position delete file (no row data) with Iceberg's generic writer factory. */
  static DeleteFile positionDeletes(
      Table table, String fileName, String dataPath, Iterable<Long> positions) throws IOException {
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table).build();
    PositionDeleteWriter<Record> writer =
        factory.newPositionDeleteWriter(
            output(table, table.spec(), null, fileName), table.spec(), null);
    PositionDelete<Record> delete = PositionDelete.create();
    try {
      for (long pos : positions) {
        writer.write(delete.set(dataPath, pos));
      }
    } finally {
      writer.close();
    }
    return writer.toDeleteFile();
  }

  // ---------------------------------------------------------------- tables

  /**
   * Equality deletes under three partition specs: identity(region), then + bucket[4](id), then
   * unpartitioned (so the last delete is global).
   */
  void eqDeletesEvolved() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "name", Types.StringType.get()),
            Types.NestedField.optional(4, "amount", Types.IntegerType.get()));
    Table table =
        gen.create(
            "eq_deletes_evolved",
            schema,
            sc -> PartitionSpec.builderFor(sc).identity("region").build(),
            Map.of());
    Schema s = table.schema();
    String[] regions = {"west", "east", null};

    // snapshot 1 (spec 0): ids 1..24, region by id % 3, plus a row with a NULL id per region.
    Map<String, List<Record>> byRegion = new LinkedHashMap<>();
    for (long id = 1; id <= 24; id++) {
      String region = regions[(int) (id % 3)];
      byRegion.computeIfAbsent(String.valueOf(region), k -> new ArrayList<>())
          .add(FixtureGen.record(s, id, region, "r" + id, (int) id * 10));
    }
    byRegion.get("east").add(FixtureGen.record(s, null, "east", "null-id-east", -1));
    byRegion.get("west").add(FixtureGen.record(s, null, "west", "null-id-west", -2));
    byRegion.get("null").add(FixtureGen.record(s, null, null, "null-id-null-region", -3));
    var append = table.newAppend();
    for (Map.Entry<String, List<Record>> e : byRegion.entrySet()) {
      List<Record> rows = e.getValue();
      append.appendFile(
          FixtureGen.write(
              table, "s1-" + e.getKey() + ".parquet", FixtureGen.partitionOf(table, rows.get(0)),
              rows));
    }
    append.commit();

    // snapshot 2 (spec 0): partition-scoped equality deletes.
    PartitionSpec spec0 = table.spec();
    Record east = FixtureGen.record(s, null, "east", null, null);
    Record west = FixtureGen.record(s, null, "west", null, null);
    Record none = FixtureGen.record(s, null, null, null, null);
    table
        .newRowDelta()
        // regions: id % 3 == 0 west, 1 east, 2 NULL.
        // key id in region=east: 4 and 10 go, the NULL id row goes; 6 lives in west: no effect
        .addDeletes(
            equalityDeletes(
                table, "s2-eq-id-east.parquet", spec0, partitionOf(table, spec0, east),
                List.of("id"), List.of(new Object[] {4L}, new Object[] {10L},
                    new Object[] {null}, new Object[] {6L})))
        // key (id, region) in region=west: (3, west), (9, west), (NULL, west) go; (12, east)
        // names a west row with another region and matches nothing
        .addDeletes(
            equalityDeletes(
                table, "s2-eq-id-region-west.parquet", spec0, partitionOf(table, spec0, west),
                List.of("id", "region"),
                List.of(new Object[] {3L, "west"}, new Object[] {9L, "west"},
                    new Object[] {null, "west"}, new Object[] {12L, "east"})))
        // key region = NULL in the NULL partition: every row there goes
        .addDeletes(
            equalityDeletes(
                table, "s2-eq-region-null.parquet", spec0, partitionOf(table, spec0, none),
                List.of("region"), List.<Object[]>of(new Object[] {null})))
        .commit();

    // spec 1: identity(region), bucket[4](id)
    table.updateSpec().addField("id_bucket", Expressions.bucket("id", 4)).commit();
    PartitionSpec spec1 = table.spec();

    // snapshot 4 (spec 1): ids 25..36, re-inserted ids 4 and 3, a NULL id and a NULL region.
    List<Record> rows = new ArrayList<>();
    for (long id = 25; id <= 36; id++) {
      rows.add(FixtureGen.record(s, id, regions[(int) (id % 3)], "r" + id, (int) id * 10));
    }
    rows.add(FixtureGen.record(s, 4L, "east", "reinserted-4", 4));
    rows.add(FixtureGen.record(s, 3L, "west", "reinserted-3", 3));
    rows.add(FixtureGen.record(s, null, "east", "null-id-east-2", -4));
    rows.add(FixtureGen.record(s, 37L, null, "r37-null-region", 370));
    appendByPartition(table, "s4", rows);

    // snapshot 5 (spec 1): deletes scoped to (region, bucket) partitions. Id 7 lives in a spec 0
    // file, so a spec 1 delete for it must not apply.
    Map<PartitionKey, List<Object[]>> keys = new LinkedHashMap<>();
    for (long id : new long[] {28L, 33L, 7L}) {
      Record key = FixtureGen.record(s, id, regions[(int) (id % 3)], null, null);
      keys.computeIfAbsent(partitionOf(table, spec1, key), k -> new ArrayList<>())
          .add(new Object[] {id});
    }
    RowDelta delta = table.newRowDelta();
    int n = 0;
    for (Map.Entry<PartitionKey, List<Object[]>> e : keys.entrySet()) {
      delta.addDeletes(
          equalityDeletes(
              table, "s5-eq-id-" + n++ + ".parquet", spec1, e.getKey(), List.of("id"),
              e.getValue()));
    }
    delta.commit();

    // spec 2: unpartitioned; its equality deletes are global (apply to every partition).
    table.updateSpec().removeField("region").removeField("id_bucket").commit();
    PartitionSpec spec2 = table.spec();
    table
        .newRowDelta()
        .addDeletes(
            equalityDeletes(
                table, "s7-eq-id-global.parquet", spec2, null, List.of("id"),
                List.of(new Object[] {13L}, new Object[] {34L}, new Object[] {null})))
        .commit();

    // snapshot 8 (spec 2): id 13 again, after the global delete, so it stays.
    List<Record> last = new ArrayList<>();
    for (long id = 38; id <= 40; id++) {
      last.add(FixtureGen.record(s, id, regions[(int) (id % 3)], "r" + id, (int) id * 10));
    }
    last.add(FixtureGen.record(s, 13L, "east", "reinserted-13", 13));
    table.newAppend().appendFile(FixtureGen.write(table, "s8-unpartitioned.parquet", null, last))
        .commit();
  }

  private static void appendByPartition(Table table, String prefix, List<Record> rows)
      throws IOException {
    Map<PartitionKey, List<Record>> parts = new LinkedHashMap<>();
    for (Record r : rows) {
      parts.computeIfAbsent(FixtureGen.partitionOf(table, r), k -> new ArrayList<>()).add(r);
    }
    var append = table.newAppend();
    int n = 0;
    for (Map.Entry<PartitionKey, List<Record>> e : parts.entrySet()) {
      append.appendFile(
          FixtureGen.write(table, prefix + "-" + n++ + ".parquet", e.getKey(), e.getValue()));
    }
    append.commit();
  }

  /**
   * One data file with many small row groups and a position delete file hitting the first and last
   * row of every group and runs across group boundaries; a second data file has no deletes.
   */
  void posDeletesRowGroups() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "payload", Types.StringType.get()),
            Types.NestedField.optional(3, "v", Types.DoubleType.get()));
    Table table =
        gen.create("pos_deletes_rowgroups", schema, sc -> PartitionSpec.unpartitioned(), Map.of());
    Schema s = table.schema();
    Random rnd = new Random(99L);
    List<Record> first = new ArrayList<>();
    for (long id = 0; id < 3000; id++) {
      // v: NaN every 97th row, null every 89th, else a random amount
      Double v = null;
      if (id % 97 == 13) {
        v = Double.NaN;
      } else if (id % 89 != 7) {
        v = Math.round(rnd.nextDouble() * 1e6) / 100.0;
      }
      first.add(FixtureGen.record(s, id, "payload " + Long.toString(rnd.nextLong(), 36), v));
    }
    Map<String, String> props =
        Map.of(
            "write.parquet.row-group-size-bytes", "8192",
            "write.parquet.row-group-check-min-record-count", "50",
            "write.parquet.row-group-check-max-record-count", "200");
    DataFile multi = FixtureGen.write(table, "rowgroups-0.parquet", null, first, props);
    List<Record> second = new ArrayList<>();
    for (long id = 3000; id < 3100; id++) {
      second.add(
          FixtureGen.record(s, id, "untouched " + id, id % 10 == 0 ? Double.NaN : id / 4.0));
    }
    DataFile plain = FixtureGen.write(table, "rowgroups-1.parquet", null, second);
    table.newAppend().appendFile(multi).appendFile(plain).commit();

    long[] groupRows = rowGroupSizes(multi.location());
    TreeSet<Long> positions = new TreeSet<>();
    long start = 0;
    for (int g = 0; g < groupRows.length; g++) {
      long end = start + groupRows[g];
      positions.add(start);
      positions.add(end - 1);
      if (g + 1 < groupRows.length) {
        // a run across the boundary to the next group
        for (long p = end - 3; p <= end + 2; p++) {
          positions.add(p);
        }
      }
      // one row in the middle of every other group
      if (g % 2 == 0) {
        positions.add(start + groupRows[g] / 2);
      }
      start = end;
    }
    DeleteFile deletes =
        positionDeletes(table, "rowgroups-0-deletes.parquet", multi.location(), positions);
    table.newRowDelta().addDeletes(deletes).commit();
    System.out.printf(
        "  samples.pos_deletes_rowgroups: %d row groups %s, %d positions deleted%n",
        groupRows.length, Arrays.toString(groupRows), positions.size());
  }

  private static long[] rowGroupSizes(String location) throws IOException {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), conf))) {
      return reader.getFooter().getBlocks().stream().mapToLong(BlockMetaData::getRowCount).toArray();
    }
  }

  /**
   * Format v3: ten data files in two identity partitions, deletion vectors on most of them (one
   * file loses every row, one keeps all), then a second delete that merges new positions into the
   * existing vectors of two files and replaces those vectors.
   */
  void dvManyFiles() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "grp", Types.IntegerType.get()),
            Types.NestedField.optional(3, "val", Types.StringType.get()));
    Table table =
        gen.create(
            "dv_many_files",
            schema,
            sc -> PartitionSpec.builderFor(sc).identity("grp").build(),
            Map.of(),
            3);
    Schema s = table.schema();
    int files = 10;
    int rowsPerFile = 40;
    List<DataFile> dataFiles = new ArrayList<>();
    var append = table.newAppend();
    for (int f = 0; f < files; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < rowsPerFile; i++) {
        long id = f * 100L + i;
        rows.add(FixtureGen.record(s, id, f % 2, "f" + f + "-" + i));
      }
      DataFile file =
          FixtureGen.write(
              table, String.format("dv-%02d.parquet", f), FixtureGen.partitionOf(table, rows.get(0)),
              rows);
      dataFiles.add(file);
      append.appendFile(file);
    }
    append.commit();

    // snapshot 2: one Puffin file with a vector per data file; file 0 has none.
    BaseDVFileWriter writer = new BaseDVFileWriter(dvFiles(table, "dv-a"), path -> null);
    try {
      for (int f = 1; f < files; f++) {
        DataFile file = dataFiles.get(f);
        for (long pos : firstPositions(f, rowsPerFile)) {
          writer.delete(file.location(), pos, table.spec(), file.partition());
        }
      }
    } finally {
      writer.close();
    }
    RowDelta delta =
        table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId());
    writer.result().deleteFiles().forEach(delta::addDeletes);
    delta.commit();
    List<DeleteFile> firstDVs = writer.result().deleteFiles();

    // snapshot 3: more deletes for files 2 and 3, merged with their previous vectors, which this
    // commit removes (v3 allows one vector per data file).
    BaseDeleteLoader loader = new BaseDeleteLoader(dv -> table.io().newInputFile(dv.location()));
    Function<String, PositionDeleteIndex> previous =
        path -> {
          for (DeleteFile dv : firstDVs) {
            if (dv.referencedDataFile().equals(path)) {
              return loader.loadPositionDeletes(List.of(dv), path);
            }
          }
          return null;
        };
    BaseDVFileWriter second = new BaseDVFileWriter(dvFiles(table, "dv-b"), previous);
    try {
      for (int f = 2; f <= 3; f++) {
        DataFile file = dataFiles.get(f);
        for (long pos = 20; pos < 25; pos++) {
          second.delete(file.location(), pos, table.spec(), file.partition());
        }
      }
    } finally {
      second.close();
    }
    DeleteWriteResult result = second.result();
    // validated from the current snapshot, as an engine that read it would: the vectors it
    // replaces are not concurrent additions
    RowDelta replace =
        table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId());
    result.deleteFiles().forEach(replace::addDeletes);
    result.rewrittenDeleteFiles().forEach(replace::removeDeletes);
    replace.commit();
    System.out.printf(
        "  samples.dv_many_files: %d vectors, then %d vectors replacing %d%n",
        firstDVs.size(), result.deleteFiles().size(), result.rewrittenDeleteFiles().size());
  }

  /** Deterministic Puffin file names: data/00001-1-OPERATION-00001.puffin. */
  private static OutputFileFactory dvFiles(Table table, String operationId) {
    return OutputFileFactory.builderFor(table, 1, 1)
        .format(FileFormat.PUFFIN)
        .operationId(operationId)
        .build();
  }

  /** The positions the first deletion vectors remove from file F (of N rows). */
  private static List<Long> firstPositions(int f, int n) {
    List<Long> out = new ArrayList<>();
    for (long p = 0; p < n; p++) {
      boolean delete;
      switch (f) {
        case 1:
          delete = true; // every row
          break;
        case 2:
          delete = p == 0 || p == n - 1; // first and last
          break;
        case 3:
          delete = p % 2 == 0; // every other row
          break;
        case 4:
          delete = p >= 10 && p < 30; // a range in the middle
          break;
        case 5:
          delete = p != 17; // all but one
          break;
        default:
          delete = p % (f + 1) == f % 3;
      }
      if (delete) {
        out.add(p);
      }
    }
    return out;
  }
}
