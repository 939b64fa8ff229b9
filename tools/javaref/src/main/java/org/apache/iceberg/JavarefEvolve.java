package org.apache.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.types.Type;

/**
 * evolve --metadata FILE --ops FILE --out FILE: applies schema changes with Iceberg Java's
 * SchemaUpdate, then partition spec changes with BaseUpdatePartitionSpec, to the table metadata
 * in FILE, and writes {"metadata": ..., "error": ...}: the oracle of iceberg/schema_evolve.go and
 * spec_evolve.go. It lives in org.apache.iceberg for the package-private constructors that take a
 * TableOperations, the way Java's own tests build them.
 */
public final class JavarefEvolve {
  private JavarefEvolve() {}

  /** An in-memory TableOperations: commits replace the metadata. */
  private static final class MemOps implements TableOperations {
    private TableMetadata md;

    MemOps(TableMetadata md) {
      this.md = md;
    }

    @Override
    public TableMetadata current() {
      return md;
    }

    @Override
    public TableMetadata refresh() {
      return md;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      this.md = metadata;
    }

    @Override
    public FileIO io() {
      return null;
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return md.location() + "/metadata/" + fileName;
    }

    @Override
    public LocationProvider locationProvider() {
      return LocationProviders.locationsFor(md.location(), md.properties());
    }
  }

  public static int run(String[] args) throws Exception {
    String metadata = null;
    String opsFile = null;
    String out = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--metadata":
          metadata = args[i + 1];
          break;
        case "--ops":
          opsFile = args[i + 1];
          break;
        case "--out":
          out = args[i + 1];
          break;
        default:
          System.err.println("evolve: unknown flag " + args[i]);
          return 2;
      }
    }
    if (metadata == null || opsFile == null || out == null) {
      System.err.println("usage: evolve --metadata FILE --ops FILE --out FILE");
      return 2;
    }
    ObjectMapper mapper = new ObjectMapper();
    TableMetadata base =
        TableMetadataParser.fromJson(
            metadata, new String(Files.readAllBytes(new File(metadata).toPath()), StandardCharsets.UTF_8));
    JsonNode ops = mapper.readTree(new File(opsFile));
    ObjectNode result = mapper.createObjectNode();
    MemOps tableOps = new MemOps(base);
    try {
      List<JsonNode> schemaOps = new ArrayList<>();
      List<JsonNode> specOps = new ArrayList<>();
      for (JsonNode op : ops) {
        if ("spec".equals(op.path("kind").asText())) {
          specOps.add(op);
        } else {
          schemaOps.add(op);
        }
      }
      if (!schemaOps.isEmpty()) {
        SchemaUpdate update = new SchemaUpdate(tableOps);
        for (JsonNode op : schemaOps) {
          applySchema(update, op);
        }
        update.commit();
      }
      if (!specOps.isEmpty()) {
        BaseUpdatePartitionSpec update = new BaseUpdatePartitionSpec(tableOps);
        for (JsonNode op : specOps) {
          applySpec(update, op);
        }
        update.commit();
      }
      result.set("metadata", mapper.readTree(TableMetadataParser.toJson(tableOps.current())));
    } catch (RuntimeException e) {
      result.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    Files.write(new File(out).toPath(), mapper.writeValueAsBytes(result));
    return 0;
  }

  private static Type type(JsonNode node) {
    String json =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":2000000000,\"name\":\"x\",\"required\":false,\"type\":"
            + node.toString()
            + "}]}";
    return SchemaParser.fromJson(json).findField(2000000000).type();
  }

  private static void applySchema(SchemaUpdate u, JsonNode op) {
    String path = op.path("path").asText();
    String parent = null;
    String name = path;
    int dot = path.lastIndexOf('.');
    if (dot >= 0) {
      parent = path.substring(0, dot);
      name = path.substring(dot + 1);
    }
    String doc = op.hasNonNull("doc") ? op.get("doc").asText() : null;
    switch (op.path("op").asText()) {
      case "add_column":
        if (op.path("required").asBoolean()) {
          u.addRequiredColumn(parent, name, type(op.get("type")), doc);
        } else {
          u.addColumn(parent, name, type(op.get("type")), doc);
        }
        break;
      case "drop_column":
        u.deleteColumn(path);
        break;
      case "rename_column":
        u.renameColumn(path, op.path("name").asText());
        break;
      case "update_type":
        u.updateColumn(path, type(op.get("type")).asPrimitiveType());
        break;
      case "make_optional":
        u.makeColumnOptional(path);
        break;
      case "make_required":
        u.requireColumn(path);
        break;
      case "update_doc":
        u.updateColumnDoc(path, doc);
        break;
      case "move_first":
        u.moveFirst(path);
        break;
      case "move_before":
        u.moveBefore(path, op.path("ref").asText());
        break;
      case "move_after":
        u.moveAfter(path, op.path("ref").asText());
        break;
      case "set_identifier_fields":
        List<String> fields = new ArrayList<>();
        op.path("fields").forEach(f -> fields.add(f.asText()));
        u.setIdentifierFields(fields);
        break;
      default:
        throw new IllegalArgumentException("unknown schema op " + op);
    }
  }

  private static Term term(String source, String transform) {
    if (transform == null || transform.isEmpty() || transform.equals("identity")) {
      return Expressions.ref(source);
    }
    if (transform.startsWith("bucket[")) {
      return Expressions.bucket(source, Integer.parseInt(transform.substring(7, transform.length() - 1)));
    }
    if (transform.startsWith("truncate[")) {
      return Expressions.truncate(source, Integer.parseInt(transform.substring(9, transform.length() - 1)));
    }
    switch (transform) {
      case "year":
        return Expressions.year(source);
      case "month":
        return Expressions.month(source);
      case "day":
        return Expressions.day(source);
      case "hour":
        return Expressions.hour(source);
      default:
        throw new IllegalArgumentException("unknown transform " + transform);
    }
  }

  private static void applySpec(BaseUpdatePartitionSpec u, JsonNode op) {
    String source = op.path("source").asText();
    String transform = op.path("transform").asText();
    String name = op.hasNonNull("name") && !op.get("name").asText().isEmpty() ? op.get("name").asText() : null;
    switch (op.path("op").asText()) {
      case "add_field":
        u.addField(name, term(source, transform));
        break;
      case "remove_field":
        if (name != null) {
          u.removeField(name);
        } else {
          u.removeField(term(source, transform));
        }
        break;
      case "rename_field":
        u.renameField(name, op.path("new_name").asText());
        break;
      default:
        throw new IllegalArgumentException("unknown spec op " + op);
    }
  }
}
