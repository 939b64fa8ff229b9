package io.iceflight.benchgen;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;

/**
 * Writes the planning benchmark's table {@code bench.events} through the Apache Iceberg Java
 * library: a HadoopCatalog on a local folder, one fast append per manifest.
 *
 * <pre>java -jar benchgen.jar --warehouse DIR [--files N] [--files-per-commit K] [--seed S]</pre>
 *
 * Prints the location of the final metadata file on its last line.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    Path warehouse = null;
    int files = 100_000;
    int perCommit = 100;
    long seed = 20240101L;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--warehouse" -> warehouse = Paths.get(args[i + 1]).toAbsolutePath().normalize();
        case "--files" -> files = Integer.parseInt(args[i + 1]);
        case "--files-per-commit" -> perCommit = Integer.parseInt(args[i + 1]);
        case "--seed" -> seed = Long.parseLong(args[i + 1]);
        default -> usage("unknown option " + args[i]);
      }
    }
    if (args.length % 2 != 0 || warehouse == null) {
      usage("--warehouse DIR is required");
    }
    if (files % perCommit != 0) {
      usage("--files must be a multiple of --files-per-commit");
    }
    System.out.println(generate(warehouse, files, perCommit, seed));
  }

  private static void usage(String why) {
    System.err.println(why);
    System.err.println(
        "usage: benchgen --warehouse DIR [--files N] [--files-per-commit K] [--seed S]");
    System.exit(2);
  }

  /** Creates bench.events under the warehouse, appends the files, returns the metadata path. */
  static String generate(Path warehouse, int files, int perCommit, long seed) throws Exception {
    try (HadoopCatalog catalog = Warehouse.open(warehouse)) {
      Table table =
          Warehouse.createEvents(
              catalog,
              TableIdentifier.of("bench", "events"),
              // 1,000 commits would leave 1,000 metadata files of up to 0.5 MB each.
              Map.of(
                  "write.metadata.delete-after-commit.enabled", "true",
                  "write.metadata.previous-versions-max", "3"));
      SyntheticFiles synth =
          new SyntheticFiles(
              table.spec(), table.locationProvider(), files, seed, SyntheticFiles.Detail.FULL);
      int commits = files / perCommit;
      for (int c = 0; c < commits; c++) {
        // One fast append of perCommit files writes exactly one new manifest.
        AppendFiles append = table.newFastAppend();
        for (int k = 0; k < perCommit; k++) {
          append.appendFile(synth.file(c, c * perCommit + k));
        }
        append.commit();
        if ((c + 1) % 100 == 0) {
          System.err.printf("benchgen: %d/%d commits%n", c + 1, commits);
        }
      }
      return ((HasTableOperations) table).operations().current().metadataFileLocation();
    }
  }
}
