package io.iceflight.javaref;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.type.TypeReference;
import java.io.OutputStreamWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Reads one Parquet data file as Iceberg Java does: its metrics from the footer under the
 * table's metrics config (ParquetUtil.fileMetrics), its split offsets, and its rows by field id
 * (GenericParquetReaders), printed as one JSON object on stdout.
 *
 * <p>{@code datafileread --file PATH --schema SCHEMA_JSON [--props PROPS_JSON]}
 */
final class DataFileRead {
  private DataFileRead() {}

  static int run(String[] args) throws Exception {
    String file = null;
    String schemaJson = null;
    String propsJson = "{}";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--file":
          file = args[i + 1];
          break;
        case "--schema":
          schemaJson = args[i + 1];
          break;
        case "--props":
          propsJson = args[i + 1];
          break;
        default:
          System.err.println("datafileread: unknown option " + args[i]);
          return 2;
      }
    }
    if (file == null || schemaJson == null) {
      System.err.println("datafileread: --file and --schema are required");
      return 2;
    }
    Schema schema = SchemaParser.fromJson(schemaJson);
    Map<String, String> props =
        Oracle.MAPPER.readValue(propsJson, new TypeReference<Map<String, String>>() {});
    InputFile in = Files.localInput(file);
    Metrics metrics =
        ParquetUtil.fileMetrics(in, MetricsConfig.from(props, schema, SortOrder.unsorted()));
    ParquetMetadata footer;
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file), new Configuration()))) {
      footer = reader.getFooter();
    }

    JsonGenerator gen =
        new JsonFactory()
            .createGenerator(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    gen.writeStartObject();
    gen.writeNumberField("record_count", metrics.recordCount());
    writeCounts(gen, "column_sizes", metrics.columnSizes());
    writeCounts(gen, "value_counts", metrics.valueCounts());
    writeCounts(gen, "null_value_counts", metrics.nullValueCounts());
    writeCounts(gen, "nan_value_counts", metrics.nanValueCounts());
    writeBounds(gen, "lower_bounds", metrics.lowerBounds());
    writeBounds(gen, "upper_bounds", metrics.upperBounds());
    gen.writeArrayFieldStart("split_offsets");
    for (Long off : ParquetUtil.getSplitOffsets(footer)) {
      gen.writeNumber(off);
    }
    gen.writeEndArray();
    gen.writeArrayFieldStart("rows");
    try (CloseableIterable<Record> rows =
        Parquet.read(in)
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      for (Record row : rows) {
        RowJson.writeRow(gen, schema, row);
      }
    }
    gen.writeEndArray();
    gen.writeEndObject();
    gen.flush();
    System.out.println();
    return 0;
  }

  private static void writeCounts(JsonGenerator gen, String name, Map<Integer, Long> counts)
      throws Exception {
    gen.writeObjectFieldStart(name);
    if (counts != null) {
      for (Map.Entry<Integer, Long> e : new TreeMap<>(counts).entrySet()) {
        gen.writeNumberField(String.valueOf(e.getKey()), e.getValue());
      }
    }
    gen.writeEndObject();
  }

  private static void writeBounds(JsonGenerator gen, String name, Map<Integer, ByteBuffer> bounds)
      throws Exception {
    gen.writeObjectFieldStart(name);
    if (bounds != null) {
      for (Map.Entry<Integer, ByteBuffer> e : new TreeMap<>(bounds).entrySet()) {
        ByteBuffer b = e.getValue().duplicate();
        StringBuilder sb = new StringBuilder();
        while (b.hasRemaining()) {
          sb.append(String.format("%02x", b.get() & 0xff));
        }
        gen.writeStringField(String.valueOf(e.getKey()), sb.toString());
      }
    }
    gen.writeEndObject();
  }
}
