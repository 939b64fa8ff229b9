package io.iceflight.javaref;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.types.Types;

/**
 * Prints Iceberg Java's PartitionSpec.partitionToPath for partition tuples, one JSON array of
 * paths on stdout.
 *
 * <p>{@code partitionpaths --schema SCHEMA_JSON --spec SPEC_JSON --tuples JSON} where each tuple
 * is an array of the partition fields' values in the spec's single-value JSON form.
 */
final class PartitionPaths {
  private PartitionPaths() {}

  static int run(String[] args) throws Exception {
    String schemaJson = null;
    String specJson = null;
    String tuplesJson = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--schema":
          schemaJson = args[i + 1];
          break;
        case "--spec":
          specJson = args[i + 1];
          break;
        case "--tuples":
          tuplesJson = args[i + 1];
          break;
        default:
          System.err.println("partitionpaths: unknown option " + args[i]);
          return 2;
      }
    }
    if (schemaJson == null || specJson == null || tuplesJson == null) {
      System.err.println("partitionpaths: --schema, --spec and --tuples are required");
      return 2;
    }
    Schema schema = SchemaParser.fromJson(schemaJson);
    PartitionSpec spec = PartitionSpecParser.fromJson(schema, specJson);
    Types.StructType type = spec.partitionType();
    List<Types.NestedField> fields = type.fields();
    JsonNode tuples = Oracle.MAPPER.readTree(tuplesJson);
    StringBuilder out = new StringBuilder("[");
    for (int t = 0; t < tuples.size(); t++) {
      JsonNode tuple = tuples.get(t);
      PartitionData data = new PartitionData(type);
      for (int i = 0; i < fields.size(); i++) {
        JsonNode v = tuple.get(i);
        data.set(i, v == null || v.isNull() ? null : SingleValueParser.fromJson(fields.get(i).type(), v));
      }
      if (t > 0) {
        out.append(',');
      }
      out.append(Oracle.MAPPER.writeValueAsString(spec.partitionToPath(data)));
    }
    out.append(']');
    System.out.println(out);
    return 0;
  }
}
