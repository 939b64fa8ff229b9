package io.iceflight.javaref;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Drives Iceberg Java's own REST catalog client ({@code org.apache.iceberg.rest.RESTCatalog})
 * against a REST catalog server and runs scripted steps on it: list, load and read tables, create
 * and evolve them, append Parquet files, rename, drop, and commit across tables in one transaction.
 * Each step prints one JSON line, its result or the exception it raised, so that a test on the
 * other side of the API can compare what Iceberg Java saw with what it expects.
 *
 * <p>Steps are a JSON array read from {@code --steps FILE} ({@code -} for standard input); what
 * each takes and prints is {@link RestSteps}' business. A failing step does not stop the run: its
 * line carries {@code error.type} (the exception's simple class name, e.g. ForbiddenException)
 * and {@code error.message}.
 */
final class RestClient {
  private RestClient() {}

  static int run(String[] args) throws Exception {
    Map<String, String> props = new HashMap<>();
    String steps = null;
    boolean remap = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--remap")) {
        remap = true;
        continue;
      }
      if (i + 1 >= args.length) {
        return usage("missing value after " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--uri":
          props.put(CatalogProperties.URI, v);
          break;
        case "--credential":
        case "--token":
        case "--warehouse":
        case "--prefix":
          props.put(a.substring(2), v);
          break;
        case "--prop":
          int eq = v.indexOf('=');
          if (eq <= 0) {
            return usage("--prop wants KEY=VALUE, got " + v);
          }
          props.put(v.substring(0, eq), v.substring(eq + 1));
          break;
        case "--steps":
          steps = v;
          break;
        default:
          return usage("unknown flag " + a);
      }
    }
    if (!props.containsKey(CatalogProperties.URI) || steps == null) {
      return usage("--uri and --steps are required");
    }
    JsonNode script;
    try (InputStream in = steps.equals("-") ? System.in : Files.newInputStream(Path.of(steps))) {
      script = Oracle.MAPPER.readTree(in);
    }
    if (script == null || !script.isArray()) {
      return usage("--steps must hold a JSON array of steps");
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.setConf(new Configuration());
      catalog.initialize("restclient", props);
      RestSteps runner = new RestSteps(catalog, remap);
      for (JsonNode step : script) {
        out.println(Oracle.MAPPER.writeValueAsString(runner.run(step)));
      }
    }
    return 0;
  }

  /** Reads a string array member (a namespace, or a table as its namespace then its name). */
  static List<String> names(JsonNode node, String member) {
    JsonNode arr = node.get(member);
    if (arr == null || !arr.isArray()) {
      throw new IllegalArgumentException(member + " must be an array of names");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode n : arr) {
      out.add(n.asText());
    }
    return out;
  }

  private static int usage(String why) {
    System.err.println("restclient: " + why);
    System.err.println(
        "usage: restclient --uri URI [--credential ID:SECRET | --token TOKEN] [--warehouse W]"
            + " [--prefix P] [--prop KEY=VALUE ...] [--remap] --steps FILE|-");
    return 2;
  }
}
