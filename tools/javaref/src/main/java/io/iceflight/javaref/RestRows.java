package io.iceflight.javaref;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Rows of {@code restclient}: reads with IcebergGenerics, and appends of rows given in RowJson's
 * form (the oracle's: dates as days, times and timestamps in their unit since the epoch, decimals
 * as strings, binary and fixed as hex, maps as key/value entries) written by Iceberg's generic
 * Parquet writer.
 */
final class RestRows {
  /**
   * Whether a table whose recorded location is not where its metadata file lies (a table copied
   * from elsewhere) is read through a RemappingFileIO, as the oracle reads it; Iceberg Java opens
   * the recorded paths otherwise.
   */
  private final boolean remap;

  RestRows(boolean remap) {
    this.remap = remap;
  }

  /** The metadata the catalog loaded for table. */
  static TableMetadata metadata(Table table) {
    return ((HasTableOperations) table).operations().current();
  }

  /**
   * Reads a snapshot (the current one when null) and puts its schema, its id, the class of the scan
   * that planned it and its rows. With oracle, the rows are the oracle's reader's (ScanRows: the
   * generic reader's steps, plus the table's name mapping and its encryption manager, as engines
   * read), else IcebergGenerics'.
   */
  void read(Table table, Long snapshotId, boolean oracle, ObjectNode out) throws IOException {
    Table source = remap ? relocated(table) : table;
    out.put("remapped", source != table);
    out.put("scan", source.newScan().getClass().getSimpleName());
    Schema schema =
        snapshotId == null ? source.schema() : SnapshotUtil.schemaFor(source, snapshotId);
    RestSteps.putSnapshot(
        out, snapshotId == null ? source.currentSnapshot() : source.snapshot(snapshotId));
    out.set("schema", Oracle.MAPPER.readTree(SchemaParser.toJson(schema)));
    if (oracle) {
      ScanRows scan = ScanRows.prepare(source, snapshotId, null, null, true);
      Path rows = Files.createTempFile("restclient", ".jsonl");
      try {
        scan.write(ScanRows.plan(scan.scan), false, rows);
        ArrayNode arr = out.putArray("rows");
        for (String line : Files.readAllLines(rows)) {
          if (!line.isBlank()) {
            arr.add(Oracle.MAPPER.readTree(line));
          }
        }
      } finally {
        Files.deleteIfExists(rows);
      }
      return;
    }
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(source);
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> it = scan.build()) {
      for (Record r : it) {
        records.add(r.copy());
      }
    }
    putRows(out, schema, records);
  }

  /**
   * The table read from the folder its metadata file lies in when its recorded location is
   * elsewhere, else table itself.
   */
  private static Table relocated(Table table) {
    TableMetadata md = metadata(table);
    String file = md.metadataFileLocation();
    if (file == null) {
      return table;
    }
    Path folder = Paths.get(file.replaceFirst("^file:(//)?", "")).getParent().getParent();
    String recorded = md.location().replaceFirst("^file:(//)?", "").replaceAll("/+$", "");
    if (Paths.get(recorded).normalize().equals(folder.normalize())) {
      return table;
    }
    // The metadata file the catalog named, read as the oracle reads a table.
    return Oracle.openTable(table.name(), folder, Paths.get(file.replaceFirst("^file:(//)?", "")));
  }

  /**
   * Writes rows to the table's data folder, one Parquet file per partition, and adds the files to
   * append; puts the rows as written. The caller commits.
   */
  AppendFiles appendIn(Table table, AppendFiles append, JsonNode rowsJson, ObjectNode out)
      throws IOException {
    Schema schema = table.schema();
    Map<PartitionKey, List<Record>> byPartition = new LinkedHashMap<>();
    List<Record> all = new ArrayList<>();
    for (JsonNode row : rowsJson) {
      Record r = (Record) fromJson(schema.asStruct(), row);
      all.add(r);
      PartitionKey key = table.spec().isUnpartitioned() ? null : FixtureGen.partitionOf(table, r);
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<PartitionKey, List<Record>> e : byPartition.entrySet()) {
      String name = "restclient-" + UUID.randomUUID() + ".parquet";
      append.appendFile(FixtureGen.write(table, name, e.getKey(), e.getValue()));
    }
    putRows(out, schema, all);
    return append;
  }

  /** Puts records as an array of RowJson objects under "rows". */
  private static void putRows(ObjectNode out, Schema schema, List<Record> records)
      throws IOException {
    StringWriter buf = new StringWriter();
    try (JsonGenerator gen = ScanRows.JSON.createGenerator(buf)) {
      gen.writeStartArray();
      for (Record r : records) {
        RowJson.writeRow(gen, schema, r);
      }
      gen.writeEndArray();
    }
    out.set("rows", Oracle.MAPPER.readTree(buf.toString()));
  }

  /** Converts a value in RowJson's form to the generic writer's value of type. */
  static Object fromJson(Type type, JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return v.asBoolean();
      case INTEGER:
        return v.asInt();
      case LONG:
        return v.asLong();
      case FLOAT:
        return v.isTextual() ? Float.parseFloat(v.asText()) : v.floatValue();
      case DOUBLE:
        return v.isTextual() ? Double.parseDouble(v.asText()) : v.asDouble();
      case DECIMAL:
        return new BigDecimal(v.asText()).setScale(((Types.DecimalType) type).scale());
      case DATE:
        return DateTimeUtil.dateFromDays(v.asInt());
      case TIME:
        return DateTimeUtil.timeFromMicros(v.asLong());
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? DateTimeUtil.timestamptzFromMicros(v.asLong())
            : DateTimeUtil.timestampFromMicros(v.asLong());
      case STRING:
        return v.asText();
      case UUID:
        return UUID.fromString(v.asText());
      case FIXED:
        return HexFormat.of().parseHex(v.asText());
      case BINARY:
        return ByteBuffer.wrap(HexFormat.of().parseHex(v.asText()));
      case STRUCT:
        Types.StructType struct = type.asStructType();
        GenericRecord r = GenericRecord.create(struct);
        for (Types.NestedField f : struct.fields()) {
          r.setField(f.name(), fromJson(f.type(), v.get(f.name())));
        }
        return r;
      case LIST:
        List<Object> list = new ArrayList<>();
        for (JsonNode e : v) {
          list.add(fromJson(type.asListType().elementType(), e));
        }
        return list;
      case MAP:
        Map<Object, Object> map = new LinkedHashMap<>();
        for (JsonNode e : v) {
          map.put(
              fromJson(type.asMapType().keyType(), e.get("key")),
              fromJson(type.asMapType().valueType(), e.get("value")));
        }
        return map;
      default:
        throw new IllegalArgumentException("restclient cannot write values of type " + type);
    }
  }
}
