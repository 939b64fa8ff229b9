package io.iceflight.benchgen;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.OutputFile;

/**
 * Writes the huge planning table {@code bench.huge} through the Apache Iceberg Java library:
 * its manifests written directly with {@link ManifestFiles#write} in parallel threads, then
 * one fast append of them all, so the table has one snapshot whose manifest list names every
 * manifest. Manifest {@code m} holds the files {@code m * F/M} to {@code (m + 1) * F/M - 1},
 * all in day {@code m * DAYS / M}, with {@link SyntheticFiles.Detail#LIGHT} metrics.
 *
 * <pre>java -cp benchgen.jar io.iceflight.benchgen.HugeTable --warehouse DIR
 *     [--files F] [--manifests M] [--threads T] [--seed S]</pre>
 *
 * Prints, on its last line, a JSON object: the final metadata file, files, manifests and the
 * table's row count (the sum of the files' record counts).
 */
public final class HugeTable {
  private HugeTable() {}

  public static void main(String[] args) throws Exception {
    Path warehouse = null;
    int files = 10_000_000;
    int manifests = 10_000;
    int threads = Runtime.getRuntime().availableProcessors();
    long seed = 20240101L;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--warehouse" -> warehouse = Paths.get(args[i + 1]).toAbsolutePath().normalize();
        case "--files" -> files = Integer.parseInt(args[i + 1]);
        case "--manifests" -> manifests = Integer.parseInt(args[i + 1]);
        case "--threads" -> threads = Integer.parseInt(args[i + 1]);
        case "--seed" -> seed = Long.parseLong(args[i + 1]);
        default -> usage("unknown option " + args[i]);
      }
    }
    if (args.length % 2 != 0 || warehouse == null) {
      usage("--warehouse DIR is required");
    }
    if (manifests <= 0 || files % manifests != 0) {
      usage("--files must be a positive multiple of --manifests");
    }
    System.out.println(generate(warehouse, files, manifests, threads, seed));
  }

  private static void usage(String why) {
    System.err.println(why);
    System.err.println(
        "usage: HugeTable --warehouse DIR [--files F] [--manifests M] [--threads T] [--seed S]");
    System.exit(2);
  }

  /** Creates bench.huge, writes and commits its manifests, returns the JSON summary. */
  static String generate(Path warehouse, int files, int manifests, int threads, long seed)
      throws Exception {
    try (HadoopCatalog catalog = Warehouse.open(warehouse)) {
      Table table = Warehouse.createEvents(catalog, TableIdentifier.of("bench", "huge"), Map.of());
      TableOperations ops = ((HasTableOperations) table).operations();
      SyntheticFiles synth =
          new SyntheticFiles(
              table.spec(), table.locationProvider(), files, seed, SyntheticFiles.Detail.LIGHT);
      int perManifest = files / manifests;
      AtomicInteger done = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<ManifestFile>> written = new ArrayList<>(manifests);
      try {
        for (int m = 0; m < manifests; m++) {
          int manifest = m;
          written.add(
              pool.submit(
                  () -> {
                    ManifestFile f =
                        writeManifest(table, ops, synth, manifest, manifests, perManifest);
                    int n = done.incrementAndGet();
                    if (n % Math.max(1, manifests / 20) == 0) {
                      System.err.printf("benchgen: %d/%d manifests%n", n, manifests);
                    }
                    return f;
                  }));
        }
        // Spec: a v2 manifest written without a snapshot id inherits the committing
        // snapshot's id and sequence number, so the append adds the manifests as they are.
        AppendFiles append = table.newFastAppend();
        long records = 0;
        for (Future<ManifestFile> f : written) {
          ManifestFile manifest = f.get();
          records += manifest.addedRowsCount();
          append.appendManifest(manifest);
        }
        append.commit();
        String location = ops.refresh().metadataFileLocation();
        return String.format(
            "{\"metadata_location\": \"%s\", \"files\": %d, \"manifests\": %d, \"records\": %d}",
            location, files, manifests, records);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /** Writes manifest {@code m}: its {@code perManifest} files, all in the same day. */
  private static ManifestFile writeManifest(
      Table table, TableOperations ops, SyntheticFiles synth, int m, int manifests, int perManifest)
      throws Exception {
    LocalDate day = SyntheticFiles.dayOfGroup(m, manifests);
    String name = String.format("huge-m%05d.avro", m);
    OutputFile out = table.io().newOutputFile(ops.metadataFileLocation(name));
    // No snapshot id: the entries inherit the committing snapshot's (see generate).
    ManifestWriter<DataFile> writer =
        ManifestFiles.write(2, table.spec(), out, null, table.properties());
    try (writer) {
      for (int k = 0; k < perManifest; k++) {
        writer.add(synth.file(m, m * perManifest + k, day));
      }
    }
    return writer.toManifestFile();
  }
}
