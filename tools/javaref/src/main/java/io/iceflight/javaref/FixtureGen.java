package io.iceflight.javaref;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * Writes the project's sample warehouse (namespace {@code samples}) through the Iceberg Java API.
 * Data is deterministic: fixed seeds, fixed timestamps, fixed file names and seeded snapshot ids.
 * Only the metadata's own clocks (snapshot timestamps, table UUIDs, manifest names) change between
 * runs.
 */
final class FixtureGen {
  private static final OffsetDateTime BASE_TSTZ = OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
  private static final LocalDateTime BASE_TS = LocalDateTime.of(2024, 3, 1, 0, 0, 0);

  private final HadoopCatalog catalog;

  private FixtureGen(HadoopCatalog catalog) {
    this.catalog = catalog;
  }

  static int run(String[] args) throws IOException {
    Path warehouse = freshWarehouse(args);
    if (warehouse == null) {
      return 2;
    }
    HadoopCatalog catalog = emptyCatalog(warehouse);
    try {
      FixtureGen gen = new FixtureGen(catalog);
      gen.trips();
      gen.eventsByKind();
      gen.eventsByDay();
      gen.allTypes();
      gen.history();
      gen.evolved();
      DeleteSamples deletes = new DeleteSamples(gen);
      deletes.eqDeletesEvolved();
      deletes.posDeletesRowGroups();
      deletes.dvManyFiles();
      EvolutionSamples evolution = new EvolutionSamples(gen);
      evolution.readdedColumn();
      evolution.truncated();
      evolution.v3Lineage();
    } finally {
      catalog.close();
    }
    System.out.println("fixturegen: wrote 12 tables under " + warehouse);
    return 0;
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Parses {@code --warehouse DIR}, the one option of a generator, and empties that folder; returns
   * it absolute, or null after printing the usage.
   */
  static Path freshWarehouse(String[] args) throws IOException {
    String warehouseArg = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--warehouse") && i + 1 < args.length) {
        warehouseArg = args[++i];
      } else {
        System.err.println("unknown option " + args[i]);
        return null;
      }
    }
    if (warehouseArg == null) {
      Main.usage();
      return null;
    }
    Path warehouse = Paths.get(warehouseArg).toAbsolutePath().normalize();
    Oracle.deleteTree(warehouse);
    Files.createDirectories(warehouse);
    return warehouse;
  }

  /** A Hadoop configuration of the raw local file system: no .crc side files are written. */
  static Configuration rawLocal() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  /** A HadoopCatalog on warehouse, a folder from freshWarehouse, over the raw local file system. */
  static HadoopCatalog emptyCatalog(Path warehouse) {
    return new HadoopCatalog(rawLocal(), "file:" + warehouse);
  }

  /** Creates samples.NAME (format v2) and returns it with seeded snapshot ids. */
  Table create(String name, Schema schema, Function<Schema, PartitionSpec> spec,
      Map<String, String> props) {
    return create(name, schema, spec, props, 2);
  }

  /** Creates samples.NAME in the given format version, with seeded snapshot ids. */
  Table create(String name, Schema schema, Function<Schema, PartitionSpec> spec,
      Map<String, String> props, int formatVersion) {
    return create(name, schema, spec, props, formatVersion, null);
  }

  /**
   * Creates samples.NAME in the given format version, with seeded snapshot ids and, when clock is
   * not null, snapshot timestamps from clock instead of the wall clock.
   */
  Table create(String name, Schema schema, Function<Schema, PartitionSpec> spec,
      Map<String, String> props, int formatVersion, SnapshotClock clock) {
    Map<String, String> all = new TreeMap<>(props);
    all.put("format-version", Integer.toString(formatVersion));
    TableIdentifier id = TableIdentifier.of(Namespace.of("samples"), name);
    Table created =
        catalog.buildTable(id, schema).withPartitionSpec(spec.apply(schema)).withProperties(all)
            .create();
    TableOperations ops = ((HasTableOperations) created).operations();
    return new BaseTable(
        new SeededIdOperations(ops, new Random(name.hashCode()), clock), "samples." + name);
  }

  /** Writes one Parquet data file at data/[partition path/]FILE_NAME. */
  static DataFile write(Table table, String fileName, StructLike partition,
      List<Record> rows, Map<String, String> writeProps) throws IOException {
    String location = dataLocation(table, fileName, partition);
    DataWriter<Record> writer =
        Parquet.writeData(table.io().newOutputFile(location))
            .forTable(table)
            .withSpec(table.spec())
            .withPartition(partition)
            .setAll(writeProps)
            .createWriterFunc(GenericParquetWriter::create)
            .overwrite()
            .build();
    try {
      for (Record r : rows) {
        writer.write(r);
      }
    } finally {
      writer.close();
    }
    return writer.toDataFile();
  }

  /** data/[partition path of the table's current spec/]FILE_NAME. */
  static String dataLocation(Table table, String fileName, StructLike partition) {
    return partition == null || table.spec().isUnpartitioned()
        ? table.locationProvider().newDataLocation(fileName)
        : table.locationProvider().newDataLocation(table.spec(), partition, fileName);
  }

  static DataFile write(Table table, String fileName, StructLike partition,
      List<Record> rows) throws IOException {
    return write(table, fileName, partition, rows, Map.of());
  }

  static PartitionKey partitionOf(Table table, Record row) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    return key.copy();
  }

  static Record record(Schema schema, Object... values) {
    return record(schema.asStruct(), values);
  }

  static Record record(Types.StructType struct, Object... values) {
    GenericRecord r = GenericRecord.create(struct);
    for (int i = 0; i < values.length; i++) {
      r.set(i, values[i]);
    }
    return r;
  }

  // ---------------------------------------------------------------- tables

  /** 20,000 rows in 4 files; file 2 has several small row groups. */
  private void trips() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "vendor", Types.StringType.get()),
            Types.NestedField.optional(3, "fare", Types.DoubleType.get()),
            Types.NestedField.optional(4, "passengers", Types.IntegerType.get()),
            Types.NestedField.optional(5, "pickup", Types.TimestampType.withZone()),
            Types.NestedField.optional(6, "note", Types.StringType.get()));
    Table table = create("trips", schema, s -> PartitionSpec.unpartitioned(), Map.of());
    Schema s = table.schema();
    Random rnd = new Random(20240101L);
    String[] vendors = {"CMT", "VTS", "DDS", "NYC"};
    String[] notes = {"airport", "cash", "card", "tip included", "late night", "ünïcødé ✓"};
    var append = table.newAppend();
    for (int f = 0; f < 4; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 5000; i++) {
        long id = f * 5000L + i + 1;
        String vendor = rnd.nextInt(50) == 0 ? null : vendors[rnd.nextInt(vendors.length)];
        Double fare = rnd.nextInt(100) == 0 ? null : 2.5 + rnd.nextInt(9000) / 100.0;
        Integer passengers = rnd.nextInt(40) == 0 ? null : 1 + rnd.nextInt(6);
        OffsetDateTime pickup =
            BASE_TSTZ.plusSeconds(id * 37).plusNanos(rnd.nextInt(1_000_000) * 1000L);
        String note = rnd.nextInt(10) < 3 ? null : notes[rnd.nextInt(notes.length)] + " #" + id;
        rows.add(record(s, id, vendor, fare, passengers, pickup, note));
      }
      Map<String, String> props =
          f == 1 ? Map.of("write.parquet.row-group-size-bytes", "32768") : Map.of();
      DataFile file = write(table, String.format("trips-%05d.parquet", f), null, rows, props);
      append.appendFile(file);
      System.out.printf(
          "  samples.trips file %d: %d rows, %d row groups%n",
          f, file.recordCount(), file.splitOffsets() == null ? 1 : file.splitOffsets().size());
    }
    append.commit();
  }

  /** Identity partition on a string column: 3 partitions, 300 rows. */
  private void eventsByKind() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "kind", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(4, "user_id", Types.IntegerType.get()),
            Types.NestedField.optional(5, "value", Types.DoubleType.get()));
    Table table =
        create(
            "events_by_kind",
            schema,
            sc -> PartitionSpec.builderFor(sc).identity("kind").build(),
            Map.of("write.parquet.compression-codec", "snappy"));
    Schema s = table.schema();
    Random rnd = new Random(7L);
    String[] kinds = {"click", "view", "purchase"};
    Map<String, List<Record>> byKind = new LinkedHashMap<>();
    for (String k : kinds) {
      byKind.put(k, new ArrayList<>());
    }
    for (int i = 1; i <= 300; i++) {
      String kind = kinds[rnd.nextInt(kinds.length)];
      OffsetDateTime ts = BASE_TSTZ.plusMinutes(i * 7L);
      Integer user = rnd.nextInt(25) == 0 ? null : 1000 + rnd.nextInt(50);
      double value = Math.round(rnd.nextGaussian() * 10000) / 100.0;
      byKind.get(kind).add(record(s, (long) i, kind, ts, user, value));
    }
    var append = table.newAppend();
    for (Map.Entry<String, List<Record>> e : byKind.entrySet()) {
      List<Record> rows = e.getValue();
      append.appendFile(
          write(table, "events-" + e.getKey() + ".parquet", partitionOf(table, rows.get(0)), rows));
    }
    append.commit();
  }

  /** day(ts) partition on a timestamp (without zone) column spanning 5 days. */
  private void eventsByDay() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(3, "level", Types.StringType.get()),
            Types.NestedField.optional(4, "message", Types.StringType.get()),
            Types.NestedField.optional(5, "latency_ms", Types.IntegerType.get()));
    Table table =
        create(
            "events_by_day",
            schema,
            sc -> PartitionSpec.builderFor(sc).day("ts").build(),
            Map.of("write.parquet.compression-codec", "gzip"));
    Schema s = table.schema();
    Random rnd = new Random(11L);
    String[] levels = {"DEBUG", "INFO", "WARN", "ERROR"};
    var append = table.newAppend();
    long id = 1;
    for (int day = 0; day < 5; day++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 48; i++) {
        LocalDateTime ts =
            BASE_TS.plusDays(day).plusMinutes(i * 30L).plusSeconds(rnd.nextInt(1800))
                .plusNanos(rnd.nextInt(1_000_000) * 1000L);
        String level = levels[rnd.nextInt(levels.length)];
        String msg = rnd.nextInt(8) == 0 ? null : "event " + id + " on day " + day;
        rows.add(record(s, id++, ts, level, msg, rnd.nextInt(2000)));
      }
      append.appendFile(
          write(table, String.format("day-%d.parquet", day), partitionOf(table, rows.get(0)), rows));
    }
    append.commit();
  }

  /** Every primitive type plus struct, list (with null elements), map and list of structs. */
  private void allTypes() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "c_boolean", Types.BooleanType.get()),
            Types.NestedField.optional(3, "c_int", Types.IntegerType.get()),
            Types.NestedField.optional(4, "c_long", Types.LongType.get()),
            Types.NestedField.optional(5, "c_float", Types.FloatType.get()),
            Types.NestedField.optional(6, "c_double", Types.DoubleType.get()),
            Types.NestedField.optional(7, "c_decimal_9_2", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(8, "c_decimal_38_10", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(9, "c_date", Types.DateType.get()),
            Types.NestedField.optional(10, "c_time", Types.TimeType.get()),
            Types.NestedField.optional(11, "c_timestamp", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(12, "c_timestamptz", Types.TimestampType.withZone()),
            Types.NestedField.optional(13, "c_string", Types.StringType.get()),
            Types.NestedField.optional(14, "c_uuid", Types.UUIDType.get()),
            Types.NestedField.optional(15, "c_fixed", Types.FixedType.ofLength(16)),
            Types.NestedField.optional(16, "c_binary", Types.BinaryType.get()),
            Types.NestedField.optional(
                17,
                "c_struct",
                Types.StructType.of(
                    Types.NestedField.optional(18, "a", Types.IntegerType.get()),
                    Types.NestedField.optional(19, "b", Types.StringType.get()))),
            Types.NestedField.optional(
                20, "c_list", Types.ListType.ofOptional(21, Types.IntegerType.get())),
            Types.NestedField.optional(
                22,
                "c_map",
                Types.MapType.ofOptional(23, 24, Types.StringType.get(), Types.LongType.get())),
            Types.NestedField.optional(
                25,
                "c_list_struct",
                Types.ListType.ofOptional(
                    26,
                    Types.StructType.of(
                        Types.NestedField.optional(27, "x", Types.IntegerType.get()),
                        Types.NestedField.optional(28, "y", Types.StringType.get())))));
    Table table = create("all_types", schema, sc -> PartitionSpec.unpartitioned(), Map.of());
    Schema s = table.schema();
    Types.StructType structType = s.findField("c_struct").type().asStructType();
    Types.StructType elemType =
        s.findField("c_list_struct").type().asListType().elementType().asStructType();
    Random rnd = new Random(42L);

    float[] floats = {0f, -0f, 1.5f, -3.25f, Float.NaN, Float.MAX_VALUE, Float.MIN_VALUE, 0.1f,
        Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY};
    double[] doubles = {0d, -0d, 1.5, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, Double.MAX_VALUE, Double.MIN_VALUE, 0.1, 1e300, -2.5e-10};
    int[] ints = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE};
    long[] longs = {0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 9007199254740993L};
    String[] strings = {"", "hello", "ünïcødé ✓ 日本語", "quote \" backslash \\ tab \t",
        "line\nbreak", "emoji 🧊"};
    LocalDate[] dates = {LocalDate.of(1970, 1, 1), LocalDate.of(1969, 12, 31),
        LocalDate.of(1, 1, 1), LocalDate.of(9999, 12, 31), LocalDate.of(2024, 2, 29)};
    LocalTime[] times = {LocalTime.MIDNIGHT, LocalTime.of(23, 59, 59, 999_999_000),
        LocalTime.of(12, 0, 0, 1000)};
    LocalDateTime[] tss = {LocalDateTime.of(1970, 1, 1, 0, 0),
        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000),
        LocalDateTime.of(2024, 6, 30, 12, 34, 56, 789_012_000),
        LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1000)};

    List<Record> rows = new ArrayList<>();
    int n = 36;
    for (int i = 0; i < n; i++) {
      Object[] v = new Object[20];
      v[0] = i;
      v[1] = i % 3 == 2 ? null : (i % 2 == 0);
      v[2] = i < ints.length ? ints[i] : rnd.nextInt();
      v[3] = i < longs.length ? longs[i] : rnd.nextLong();
      v[4] = i < floats.length ? floats[i] : (float) (rnd.nextGaussian() * 1000);
      v[5] = i < doubles.length ? doubles[i] : rnd.nextGaussian() * 1e6;
      v[6] =
          i == 0
              ? new BigDecimal("9999999.99")
              : i == 1
                  ? new BigDecimal("-9999999.99")
                  : BigDecimal.valueOf(rnd.nextInt(2_000_000_000) - 1_000_000_000L, 2);
      v[7] =
          i == 0
              ? new BigDecimal("9999999999999999999999999999.9999999999")
              : i == 1
                  ? new BigDecimal("-0.0000000001")
                  : new BigDecimal(
                      i % 2 == 0 ? new BigInteger(100, rnd) : new BigInteger(100, rnd).negate(),
                      10);
      v[8] = i < dates.length ? dates[i] : LocalDate.ofEpochDay(rnd.nextInt(40000) - 10000);
      v[9] = i < times.length ? times[i] : LocalTime.ofNanoOfDay(rnd.nextInt(86_400_000) * 1_000_000L
          + rnd.nextInt(1000) * 1000L);
      v[10] = i < tss.length ? tss[i] : BASE_TS.plusSeconds(rnd.nextInt(100_000_000))
          .plusNanos(rnd.nextInt(1_000_000) * 1000L);
      v[11] = i < tss.length ? tss[i].atOffset(ZoneOffset.UTC).withOffsetSameInstant(
          ZoneOffset.ofHours(i)) : BASE_TSTZ.minusSeconds(rnd.nextInt(100_000_000))
          .plusNanos(rnd.nextInt(1_000_000) * 1000L);
      v[12] = i < strings.length ? strings[i] : "row " + i + " " + Long.toString(rnd.nextLong(), 36);
      v[13] = i == 0 ? new UUID(0, 0) : new UUID(rnd.nextLong(), rnd.nextLong());
      byte[] fixed = new byte[16];
      rnd.nextBytes(fixed);
      v[14] = fixed;
      byte[] bin = new byte[i % 7];
      rnd.nextBytes(bin);
      v[15] = ByteBuffer.wrap(bin);
      v[16] =
          i % 5 == 4
              ? null
              : record(structType, i % 4 == 3 ? null : i * 10, i % 3 == 0 ? null : "s" + i);
      List<Integer> list = null;
      if (i % 6 != 5) {
        list = new ArrayList<>();
        for (int k = 0; k < i % 5; k++) {
          list.add(k % 3 == 1 ? null : i * 100 + k);
        }
      }
      v[17] = list;
      Map<String, Long> map = null;
      if (i % 7 != 6) {
        map = new LinkedHashMap<>();
        for (int k = 0; k < i % 4; k++) {
          map.put("k" + k, k == 2 ? null : (long) i * k);
        }
      }
      v[18] = map;
      List<Record> structs = null;
      if (i % 4 != 3) {
        structs = new ArrayList<>();
        for (int k = 0; k < i % 3; k++) {
          structs.add(k == 1 && i % 2 == 0 ? null : record(elemType, k, "e" + i + "." + k));
        }
      }
      v[19] = structs;
      rows.add(record(s, v));
    }
    // a row where every optional column is null
    Object[] nulls = new Object[20];
    nulls[0] = n;
    rows.add(record(s, nulls));
    table.newAppend().appendFile(write(table, "all_types-00000.parquet", null, rows)).commit();
  }

  // The history table's snapshots: two before 2026-01-01T00:00:00Z, one after, so that the README's
  // "as of 2026-01-01" reads the second one.
  private static final long HISTORY_FIRST_MS = 1761955200000L; // 2025-11-01T00:00:00Z
  private static final long HISTORY_SECOND_MS = 1764547200000L; // 2025-12-01T00:00:00Z
  private static final long HISTORY_THIRD_MS = 1769904000000L; // 2026-02-01T00:00:00Z

  /**
   * Three snapshots on fixed dates: append, append, overwrite (replace the first file); a tag
   * {@code first} on the first and a branch {@code before-overwrite} on the second, so refs other
   * than main can be read.
   */
  private void history() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "value", Types.DoubleType.get()));
    Table table =
        create(
            "history",
            schema,
            sc -> PartitionSpec.unpartitioned(),
            Map.of("write.parquet.compression-codec", "snappy"),
            2,
            new SnapshotClock(HISTORY_FIRST_MS, HISTORY_SECOND_MS, HISTORY_THIRD_MS));
    Schema s = table.schema();
    List<Record> first = new ArrayList<>();
    for (long i = 1; i <= 10; i++) {
      first.add(record(s, i, "first-" + i, i * 1.5));
    }
    DataFile f1 = write(table, "history-1.parquet", null, first);
    table.newAppend().appendFile(f1).commit();

    List<Record> second = new ArrayList<>();
    for (long i = 11; i <= 20; i++) {
      second.add(record(s, i, "second-" + i, i * 1.5));
    }
    table.newAppend().appendFile(write(table, "history-2.parquet", null, second)).commit();
    long secondId = table.currentSnapshot().snapshotId();

    List<Record> third = new ArrayList<>();
    for (long i = 1; i <= 5; i++) {
      third.add(record(s, i, "updated-" + i, i * 100.0));
    }
    table.newOverwrite().deleteFile(f1).addFile(write(table, "history-3.parquet", null, third))
        .commit();

    long firstId = table.snapshots().iterator().next().snapshotId();
    table.manageSnapshots().createTag("first", firstId).createBranch("before-overwrite", secondId)
        .commit();
  }

  /** Written, then a column added, then a column renamed, then more rows written. */
  private void evolved() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));
    Table table =
        create(
            "evolved",
            schema,
            sc -> PartitionSpec.unpartitioned(),
            Map.of("write.parquet.compression-codec", "uncompressed"));
    Schema s0 = table.schema();
    List<Record> before = new ArrayList<>();
    for (long i = 1; i <= 20; i++) {
      before.add(record(s0, i, "before-" + i, (int) (i * 3)));
    }
    table.newAppend().appendFile(write(table, "evolved-1.parquet", null, before)).commit();

    table.updateSchema().addColumn("category", Types.StringType.get()).commit();
    table.updateSchema().renameColumn("score", "points").commit();

    Schema s2 = table.schema();
    List<Record> after = new ArrayList<>();
    String[] categories = {"gold", "silver", null};
    for (long i = 21; i <= 35; i++) {
      after.add(record(s2, i, "after-" + i, (int) (i * 3), categories[(int) (i % 3)]));
    }
    table.newAppend().appendFile(write(table, "evolved-2.parquet", null, after)).commit();
  }

  /**
   * TableOperations that hands out snapshot ids from a seeded generator and, with a clock, dates new
   * snapshots from it.
   */
  static final class SeededIdOperations implements TableOperations {
    private final TableOperations delegate;
    private final Random random;
    private final SnapshotClock clock;

    SeededIdOperations(TableOperations delegate, Random random, SnapshotClock clock) {
      this.delegate = delegate;
      this.random = random;
      this.clock = clock;
    }

    @Override
    public TableMetadata current() {
      return delegate.current();
    }

    @Override
    public TableMetadata refresh() {
      return delegate.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      delegate.commit(base, clock == null ? metadata : clock.apply(base, metadata));
    }

    @Override
    public FileIO io() {
      return delegate.io();
    }

    @Override
    public EncryptionManager encryption() {
      return delegate.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return delegate.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
      return delegate.locationProvider();
    }

    @Override
    public TableOperations temp(TableMetadata uncommittedMetadata) {
      return delegate.temp(uncommittedMetadata);
    }

    @Override
    public long newSnapshotId() {
      long id;
      do {
        id = random.nextLong() & Long.MAX_VALUE;
      } while (id == 0);
      return id;
    }

    @Override
    public boolean requireStrictCleanup() {
      return delegate.requireStrictCleanup();
    }
  }
}
