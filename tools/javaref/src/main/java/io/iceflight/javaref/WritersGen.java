package io.iceflight.javaref;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

/**
 * Writes the Java part of the writers corpus (testdata/writers/java): one table per data file
 * format Iceberg Java writes (Parquet, ORC, Avro), namespace {@code formats}, each with the same
 * schema of every primitive type and nested ones, nulls included, in two appends; and one table
 * per format in namespace {@code timestamps} holding the times at the edges of what readers keep in
 * int64 nanoseconds (1677 and 2262 both sides, year 1, Spark's end of time 9999-12-31). The data is
 * fixed; snapshot ids, UUIDs and timestamps come from the metadata's own clocks.
 */
final class WritersGen {
  private WritersGen() {}

  static int run(String[] args) throws IOException {
    Path warehouse = FixtureGen.freshWarehouse(args);
    if (warehouse == null) {
      return 2;
    }
    HadoopCatalog catalog = FixtureGen.emptyCatalog(warehouse);
    try {
      for (FileFormat format : new FileFormat[] {FileFormat.PARQUET, FileFormat.ORC, FileFormat.AVRO}) {
        table(catalog, format);
        timestamps(catalog, format);
      }
    } finally {
      catalog.close();
    }
    System.out.println("writersgen: wrote 6 tables under " + warehouse);
    return 0;
  }

  static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.IntegerType.get()),
        Types.NestedField.optional(2, "c_boolean", Types.BooleanType.get()),
        Types.NestedField.optional(3, "c_long", Types.LongType.get()),
        Types.NestedField.optional(4, "c_float", Types.FloatType.get()),
        Types.NestedField.optional(5, "c_double", Types.DoubleType.get()),
        Types.NestedField.optional(6, "c_decimal_9_2", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(7, "c_decimal_30_4", Types.DecimalType.of(30, 4)),
        Types.NestedField.optional(8, "c_date", Types.DateType.get()),
        Types.NestedField.optional(9, "c_time", Types.TimeType.get()),
        Types.NestedField.optional(10, "c_timestamp", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(11, "c_timestamptz", Types.TimestampType.withZone()),
        Types.NestedField.optional(12, "c_string", Types.StringType.get()),
        Types.NestedField.optional(13, "c_uuid", Types.UUIDType.get()),
        Types.NestedField.optional(14, "c_fixed", Types.FixedType.ofLength(4)),
        Types.NestedField.optional(15, "c_binary", Types.BinaryType.get()),
        Types.NestedField.optional(
            16,
            "c_struct",
            Types.StructType.of(
                Types.NestedField.optional(17, "a", Types.IntegerType.get()),
                Types.NestedField.optional(18, "b", Types.StringType.get()))),
        Types.NestedField.optional(
            19, "c_list", Types.ListType.ofOptional(20, Types.StringType.get())),
        Types.NestedField.optional(
            21,
            "c_map",
            Types.MapType.ofOptional(22, 23, Types.StringType.get(),
                Types.ListType.ofOptional(24, Types.LongType.get()))));
  }

  /** Creates formats.FORMAT written in that format, with two data files in two appends. */
  static void table(HadoopCatalog catalog, FileFormat format) throws IOException {
    String name = format.name().toLowerCase(Locale.ROOT);
    Map<String, String> props = new LinkedHashMap<>();
    props.put("format-version", "2");
    props.put(TableProperties.DEFAULT_FILE_FORMAT, name);
    Table table = catalog.buildTable(TableIdentifier.of(Namespace.of("formats"), name), schema())
        .withPartitionSpec(PartitionSpec.unpartitioned()).withProperties(props).create();
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(format).build();
    for (int file = 0; file < 2; file++) {
      List<Record> rows = new ArrayList<>();
      for (int i = file * 6; i < file * 6 + 6; i++) {
        rows.add(row(table.schema(), i));
      }
      String location = table.locationProvider().newDataLocation(
          String.format(Locale.ROOT, "%s-%05d.%s", name, file, format.name().toLowerCase(Locale.ROOT)));
      DataWriter<Record> writer = factory.newDataWriter(
          EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location)), table.spec(), null);
      try {
        for (Record r : rows) {
          writer.write(r);
        }
      } finally {
        writer.close();
      }
      DataFile df = writer.toDataFile();
      table.newAppend().appendFile(df).commit();
    }
  }

  /**
   * Times an Iceberg timestamp holds that int64 nanoseconds do not, and their neighbours inside:
   * Iceberg keeps microseconds, so a reader that goes through nanoseconds refuses or wraps them.
   */
  static final LocalDateTime[] EDGE_TIMES = {
    LocalDateTime.of(1, 1, 1, 0, 0, 0),
    LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000),
    LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854_775_000),
    LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854_776_000),
    LocalDateTime.of(1677, 9, 21, 0, 12, 43, 145_225_000),
    LocalDateTime.of(1677, 9, 21, 0, 12, 43, 145_224_000),
    LocalDateTime.of(1969, 12, 31, 23, 59, 58, 999_999_000),
    LocalDateTime.of(1969, 12, 31, 23, 59, 58, 500_000_000),
    LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1000),
    null,
  };

  /**
   * Creates timestamps.FORMAT: a row per time of EDGE_TIMES, as a timestamp, as a timestamptz at
   * UTC and inside a list, in one data file of that format.
   */
  static void timestamps(HadoopCatalog catalog, FileFormat format) throws IOException {
    String name = format.name().toLowerCase(Locale.ROOT);
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.IntegerType.get()),
        Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(3, "tstz", Types.TimestampType.withZone()),
        Types.NestedField.optional(
            4, "ts_list", Types.ListType.ofOptional(5, Types.TimestampType.withoutZone())));
    Map<String, String> props = new LinkedHashMap<>();
    props.put("format-version", "2");
    props.put(TableProperties.DEFAULT_FILE_FORMAT, name);
    Table table = catalog.buildTable(TableIdentifier.of(Namespace.of("timestamps"), name), schema)
        .withPartitionSpec(PartitionSpec.unpartitioned()).withProperties(props).create();
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(format).build();
    String location = table.locationProvider().newDataLocation(name + "-00000." + name);
    DataWriter<Record> writer = factory.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location)), table.spec(), null);
    try {
      for (int i = 0; i < EDGE_TIMES.length; i++) {
        LocalDateTime t = EDGE_TIMES[i];
        List<LocalDateTime> list = new ArrayList<>();
        list.add(t);
        list.add(EDGE_TIMES[(i + 1) % EDGE_TIMES.length]);
        writer.write(FixtureGen.record(table.schema(),
            i, t, t == null ? null : t.atOffset(ZoneOffset.UTC), list));
      }
    } finally {
      writer.close();
    }
    table.newAppend().appendFile(writer.toDataFile()).commit();
  }

  /** Row i: every fourth value of a column is null, the others vary with i. */
  static Record row(Schema s, int i) {
    boolean nul = i % 4 == 3;
    Types.StructType structType = s.findField("c_struct").type().asStructType();
    List<String> list = null;
    if (i % 5 != 4) {
      list = new ArrayList<>();
      for (int k = 0; k < i % 3; k++) {
        list.add(k == 1 ? null : "e" + i + "." + k);
      }
    }
    Map<String, List<Long>> map = null;
    if (i % 6 != 5) {
      map = new LinkedHashMap<>();
      map.put("k" + i, i % 2 == 0 ? null : List.of((long) i, -1L * i));
    }
    byte[] fixed = {(byte) i, (byte) (i * 3), (byte) 0xff, 0};
    return FixtureGen.record(s,
        i,
        nul ? null : i % 2 == 0,
        nul ? null : (long) i * 1_000_000_007L - 3_000_000_000L,
        nul ? null : (float) (i * 1.25 - 3),
        nul ? null : i * -2.5e10 + 0.125,
        nul ? null : BigDecimal.valueOf(i * 123_457L - 400_000L, 2),
        nul ? null : new BigDecimal("12345678901234567890.1234").subtract(BigDecimal.valueOf(i * 7L, 4)),
        nul ? null : LocalDate.of(1969, 12, 30).plusDays(i * 400L),
        nul ? null : LocalTime.of(i, i * 4, 59, i * 1000_000),
        nul ? null : LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000).plusHours(i * 1000L),
        nul ? null : OffsetDateTime.of(2024, 2, 29, 12, 0, 0, 1000, ZoneOffset.ofHours(i - 6)),
        nul ? null : (i == 0 ? "" : "row " + i + " ünïcødé"),
        nul ? null : new UUID(i * 0x0101010101010101L, -i),
        nul ? null : fixed,
        nul ? null : ByteBuffer.wrap(new byte[] {(byte) i, 0, (byte) -i}),
        i % 5 == 2 ? null : FixtureGen.record(structType, nul ? null : i * 10, "s" + i),
        list,
        map);
  }
}
