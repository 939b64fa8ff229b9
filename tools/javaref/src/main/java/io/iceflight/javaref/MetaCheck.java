package io.iceflight.javaref;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.zip.GZIPInputStream;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.apache.iceberg.MetadataUpdateParser;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.UpdateRequirementParser;
import org.apache.iceberg.util.JsonUtil;

/**
 * {@code metacheck FILE...}: reads each table metadata file with Iceberg Java's
 * TableMetadataParser (the check a Java reader makes of a file iceflight wrote) and prints,
 * one line per file, the metadata as TableMetadataParser.toJson writes it back. Exits 1 at
 * the first file Java refuses, naming it.
 *
 * <p>{@code metacheck --new FILE...}: each file is instead {"schema", "spec", "sort-order",
 * "location", "properties"}; prints the metadata TableMetadata.newTableMetadata builds from
 * them (the reference for iceflight's NewTableMetadata).
 *
 * <p>{@code metacheck --apply BASE UPDATES [BASE UPDATES ...]}: applies each JSON array of REST
 * updates to its base metadata file with TableMetadata.buildFrom (the base's path is the
 * previous metadata file) and prints the result, or {"error": message} when Java refuses
 * them (the reference for iceflight's ApplyUpdates).
 *
 * <p>{@code metacheck --requirements BASE REQUIREMENTS}: validates each REST requirement of the
 * JSON array against the base metadata file and prints "ok" or {"error": message}, one line
 * each.
 */
final class MetaCheck {
  private MetaCheck() {}

  static int run(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: metacheck [--new] FILE...");
      return 2;
    }
    if (args[0].equals("--apply")) {
      return apply(args);
    }
    if (args[0].equals("--requirements") && args.length == 3) {
      return requirements(args[1], args[2]);
    }
    boolean fresh = args[0].equals("--new");
    int first = fresh ? 1 : 0;
    for (int i = first; i < args.length; i++) {
      String file = args[i];
      try {
        TableMetadata md = fresh ? newTable(read(file)) : TableMetadataParser.fromJson(file, read(file));
        System.out.println(TableMetadataParser.toJson(md));
      } catch (Exception e) {
        System.err.println(file + ": " + e);
        return 1;
      }
    }
    return 0;
  }

  private static int apply(String[] args) {
    for (int i = 1; i + 1 < args.length; i += 2) {
      TableMetadata base;
      JsonNode updates;
      try {
        base = TableMetadataParser.fromJson(args[i], read(args[i]));
        updates = JsonUtil.mapper().readTree(read(args[i + 1]));
      } catch (Exception e) {
        System.err.println(args[i] + ": " + e);
        return 1;
      }
      try {
        TableMetadata.Builder builder = TableMetadata.buildFrom(base);
        for (JsonNode update : updates) {
          MetadataUpdateParser.fromJson(update).applyTo(builder);
        }
        System.out.println(TableMetadataParser.toJson(builder.build()));
      } catch (RuntimeException e) {
        System.out.println(
            JsonUtil.mapper().createObjectNode().put("error", String.valueOf(e.getMessage())));
      }
    }
    return 0;
  }

  private static int requirements(String basePath, String reqPath) {
    TableMetadata base;
    JsonNode reqs;
    try {
      base = TableMetadataParser.fromJson(basePath, read(basePath));
      reqs = JsonUtil.mapper().readTree(read(reqPath));
    } catch (Exception e) {
      System.err.println(basePath + ": " + e);
      return 1;
    }
    for (JsonNode req : reqs) {
      try {
        UpdateRequirementParser.fromJson(req).validate(base);
        System.out.println("ok");
      } catch (RuntimeException e) {
        System.out.println(
            JsonUtil.mapper().createObjectNode().put("error", String.valueOf(e.getMessage())));
      }
    }
    return 0;
  }

  private static TableMetadata newTable(String json) throws IOException {
    JsonNode node = JsonUtil.mapper().readTree(json);
    Schema schema = SchemaParser.fromJson(node.get("schema"));
    PartitionSpec spec = PartitionSpecParser.fromJson(schema, node.get("spec"));
    SortOrder order = SortOrderParser.fromJson(schema, node.get("sort-order"));
    Map<String, String> props = JsonUtil.getStringMap("properties", node);
    return TableMetadata.newTableMetadata(
        schema, spec, order, JsonUtil.getString("location", node), props);
  }

  private static String read(String file) throws IOException {
    byte[] data = Files.readAllBytes(Paths.get(file));
    if (data.length >= 2 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b) {
      try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
        data = in.readAllBytes();
      }
    }
    return new String(data, StandardCharsets.UTF_8);
  }
}
