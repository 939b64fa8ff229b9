package io.iceflight.javaref;

import java.util.Arrays;

/** Entry point: {@code java -jar javaref.jar <oracle [queries]|fixturegen|locationgen|writersgen> [options]}. */
/** Entry point: {@code java -jar javaref.jar <oracle [queries]|fixturegen|restserver> [options]}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    // Quiet logging before any logger is created: Iceberg and Hadoop warnings only.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.hadoop", "error");
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.parquet", "error");
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.orc", "error");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");

    if (args.length == 0) {
      usage();
      System.exit(2);
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    int rc;
    switch (args[0]) {
      case "oracle":
        if (rest.length > 0 && rest[0].equals("queries")) {
          rc = QueryOracle.run(Arrays.copyOfRange(rest, 1, rest.length));
        } else {
          rc = Oracle.run(rest);
        }
        break;
      case "fixturegen":
        rc = FixtureGen.run(rest);
        break;
      case "locationgen":
        rc = LocationGen.run(rest);
        break;
      case "writersgen":
        rc = WritersGen.run(rest);
        break;
      case "jdbcwrite":
        rc = JdbcWrite.run(rest);
        break;
      case "jdbcread":
        rc = JdbcRead.run(rest);
        break;
      case "dropfiles":
        rc = DropFiles.run(rest);
        break;
      case "manifestcheck":
        rc = org.apache.iceberg.ManifestCheck.run(rest);
        break;
      case "puffincheck":
        rc = PuffinCheck.run(rest);
        break;
      case "datafileread":
        rc = DataFileRead.run(rest);
        break;
      case "partitionpaths":
        rc = PartitionPaths.run(rest);
        break;
      case "tablecheck":
        rc = TableCheck.run(rest);
        break;
      case "restserver":
        rc = RestServer.run(rest);
        break;
      case "evolve":
        rc = org.apache.iceberg.JavarefEvolve.run(rest);
        break;
      case "restclient":
        rc = RestClient.run(rest);
        break;
      case "rck":
        rc = Rck.run(rest);
        break;
      case "metacheck":
        rc = MetaCheck.run(rest);
        break;
      case "resttaskcheck":
        rc = RestTaskCheck.run(rest);
        break;
      case "metatables":
        rc = MetaTables.run(rest);
        break;
      default:
        usage();
        rc = 2;
    }
    System.exit(rc);
  }

  static void usage() {
    System.err.println("usage:");
    System.err.println(
        "  oracle --root DIR --out OUTDIR [--table NAME] [--filter EXPR_JSON] [--columns a,b]"
            + " [--match-delete-paths-by-location]");
    System.err.println(
        "  oracle queries --root DIR --queries FILE --out OUTDIR"
            + " [--match-delete-paths-by-location]");
    System.err.println("  fixturegen --warehouse DIR");
    System.err.println("  locationgen --warehouse DIR");
    System.err.println("  writersgen --warehouse DIR");
    System.err.println(
        "  jdbcwrite --uri JDBC_URL --warehouse DIR --name CATALOG --out DIR"
            + " [--user U --password P] [--schema-version V0|V1]");
    System.err.println(
        "  jdbcread --uri JDBC_URL --warehouse DIR --name CATALOG [--user U --password P]");
    System.err.println("  resttaskcheck --table DIR --checks FILE");
    System.err.println("  metatables --queries FILE");
    System.err.println(
        "  dropfiles --uri JDBC_URL --warehouse DIR --name CATALOG --table NS.NAME"
            + " [--delete-where COL=VALUE]");
    System.err.println(
        "  restserver --port N --warehouse LOCATION [--prop KEY=VALUE ...] [--samples DIR]");
    System.err.println(
        "  restclient --uri URI [--credential ID:SECRET | --token T] [--warehouse W] [--prefix P]"
            + " [--prop KEY=VALUE ...] [--remap] --steps FILE|-");
    System.err.println(
        "  rck --uri URI [--warehouse W] [--credential ID:SECRET] [--prop KEY=VALUE ...] [--list]"
            + " [--test METHOD ...]");
    System.err.println(
        "  metacheck [--new] FILE... | metacheck --apply BASE UPDATES ..."
            + " | metacheck --requirements BASE REQUIREMENTS");
  }
}
