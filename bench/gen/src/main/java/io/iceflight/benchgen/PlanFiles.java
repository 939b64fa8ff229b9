package io.iceflight.benchgen;

import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Iceberg Java's single-node scan planning, the huge planning benchmark's reference peer:
 * loads a table from its metadata file and counts {@code table.newScan().filter(f).planFiles()}.
 *
 * <pre>java -cp benchgen.jar io.iceflight.benchgen.PlanFiles --metadata LOCATION
 *     [--filter REST_EXPRESSION_JSON] [--warm-runs K]</pre>
 *
 * Prints one JSON line per run: first {@code "cold"} (the first load and plan of this JVM:
 * its clock starts in main, so JVM start-up is excluded but loading Iceberg's classes is not),
 * then {@code K} {@code "warm"} runs (load and plan again in the same JVM), then the process's
 * peak resident set from /proc/self/status.
 */
public final class PlanFiles {
  private PlanFiles() {}

  public static void main(String[] args) throws Exception {
    long start = System.nanoTime();
    String metadata = null;
    String filter = null;
    int warmRuns = 1;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--metadata" -> metadata = args[i + 1];
        case "--filter" -> filter = args[i + 1];
        case "--warm-runs" -> warmRuns = Integer.parseInt(args[i + 1]);
        default -> usage("unknown option " + args[i]);
      }
    }
    if (args.length % 2 != 0 || metadata == null) {
      usage("--metadata LOCATION is required");
    }
    HadoopFileIO io = new HadoopFileIO(Warehouse.localConf());
    System.out.println(run("cold", start, metadata, filter, io));
    for (int r = 0; r < warmRuns; r++) {
      System.out.println(run("warm", System.nanoTime(), metadata, filter, io));
    }
    System.out.printf("{\"vmhwm_kib\": %d}%n", peakResidentKiB());
  }

  private static void usage(String why) {
    System.err.println(why);
    System.err.println(
        "usage: PlanFiles --metadata LOCATION [--filter REST_EXPRESSION_JSON] [--warm-runs K]");
    System.exit(2);
  }

  /** Loads the table and plans the scan; returns the run's JSON line, timed from start. */
  private static String run(
      String name, long start, String metadata, String filter, HadoopFileIO io) throws Exception {
    Table table = new BaseTable(new StaticTableOperations(metadata, io), "bench.huge");
    Expression expr =
        filter == null
            ? Expressions.alwaysTrue()
            : ExpressionParser.fromJson(filter, table.schema());
    long files = 0;
    long records = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(expr).planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        records += task.file().recordCount();
      }
    }
    double ms = (System.nanoTime() - start) / 1e6;
    return String.format(
        "{\"run\": \"%s\", \"ms\": %.1f, \"files\": %d, \"records\": %d}",
        name, ms, files, records);
  }

  /** Returns VmHWM, the peak resident set of this process in KiB, or -1 off Linux. */
  private static long peakResidentKiB() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (Exception e) {
      return -1;
    }
    return -1;
  }
}
