package io.iceflight.deletesgen;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * Writes the delete-read benchmark's three tables through the Apache Iceberg Java library: a
 * HadoopCatalog on a local folder holding {@code bench.plain}, {@code bench.eq_deletes} and
 * {@code bench.pos_deletes}, format v2, unpartitioned, with the same rows in the same data files.
 *
 * <pre>
 * java -jar deletesgen.jar --warehouse DIR [--rows N] [--files F] [--deleted-rows D]
 *     [--equality-files E] [--seed S]
 * </pre>
 *
 * <p>Data files are written once (into {@code plain}) with Iceberg's generic Parquet writer and
 * copied byte for byte into the other two tables. {@code eq_deletes} then commits E equality
 * delete files on {@code id} in one RowDelta, {@code pos_deletes} one position delete file per
 * data file; both delete the same D rows. Each table is then read back with Iceberg's generic
 * reader ({@code IcebergGenerics}), and the generator fails unless every table returns the
 * expected row count and sum of ids. The last line of output is a JSON object describing the
 * tables.
 */
public final class Main {
  private static final String NAMESPACE = "bench";

  private Main() {}

  public static void main(String[] args) throws Exception {
    Path warehouse = null;
    long rows = 10_000_000L;
    int files = 20;
    long deleted = 100_000L;
    int equalityFiles = 50;
    long seed = 20250101L;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--warehouse" -> warehouse = Paths.get(args[i + 1]).toAbsolutePath().normalize();
        case "--rows" -> rows = Long.parseLong(args[i + 1]);
        case "--files" -> files = Integer.parseInt(args[i + 1]);
        case "--deleted-rows" -> deleted = Long.parseLong(args[i + 1]);
        case "--equality-files" -> equalityFiles = Integer.parseInt(args[i + 1]);
        case "--seed" -> seed = Long.parseLong(args[i + 1]);
        default -> usage("unknown option " + args[i]);
      }
    }
    if (args.length % 2 != 0 || warehouse == null) {
      usage("--warehouse DIR is required");
    }
    Rows data;
    try {
      data = new Rows(rows, files, deleted, seed);
    } catch (IllegalArgumentException e) {
      usage(e.getMessage());
      return;
    }
    System.out.println(generate(warehouse, data, equalityFiles));
  }

  private static void usage(String why) {
    System.err.println(why);
    System.err.println(
        "usage: deletesgen --warehouse DIR [--rows N] [--files F] [--deleted-rows D]"
            + " [--equality-files E] [--seed S]");
    System.exit(2);
  }

  /** Writes and checks the three tables; returns their description as one line of JSON. */
  static String generate(Path warehouse, Rows data, int equalityFiles) throws Exception {
    Files.createDirectories(warehouse);
    Configuration conf = new Configuration();
    // Raw local file system: no .crc side files in the warehouse.
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    try (HadoopCatalog catalog = new HadoopCatalog(conf, "file:" + warehouse)) {
      Table plain = create(catalog, "plain");
      Table eq = create(catalog, "eq_deletes");
      Table pos = create(catalog, "pos_deletes");

      long start = System.nanoTime();
      List<DataFile> plainFiles = new ArrayList<>();
      for (int f = 0; f < data.files; f++) {
        plainFiles.add(writeData(plain, data, f));
      }
      log("wrote %d data files of %,d rows in %.0f s", data.files, data.rowsPerFile, secs(start));
      List<DataFile> eqFiles = copyAll(plainFiles, eq);
      List<DataFile> posFiles = copyAll(plainFiles, pos);
      append(plain, plainFiles);
      append(eq, eqFiles);
      append(pos, posFiles);

      // The deletes come in a second snapshot, so their data sequence number (2) is above the
      // data files' (1): equality deletes apply only to older data (spec: Scan Planning).
      start = System.nanoTime();
      RowDelta eqDelta = eq.newRowDelta();
      long[][] parts = data.equalityDeleteParts(equalityFiles);
      for (int i = 0; i < parts.length; i++) {
        eqDelta.addDeletes(writeEqualityDeletes(eq, String.format("eq-delete-%02d.parquet", i),
            parts[i]));
      }
      eqDelta.commit();
      RowDelta posDelta = pos.newRowDelta();
      for (int f = 0; f < data.files; f++) {
        DataFile target = posFiles.get(f);
        posDelta.addDeletes(writePositionDeletes(pos, String.format("pos-delete-%02d.parquet", f),
            target.location(), data.deletedPositions(f)));
      }
      posDelta.commit();
      log("wrote %d equality and %d position delete files in %.1f s", parts.length, data.files,
          secs(start));

      StringBuilder json = new StringBuilder("{");
      json.append(describe(plain, data.rows, data.idSum(false), data.files, 0)).append(", ");
      long kept = data.rows - (long) data.deletedPerFile * data.files;
      json.append(describe(eq, kept, data.idSum(true), data.files, parts.length)).append(", ");
      json.append(describe(pos, kept, data.idSum(true), data.files, data.files)).append("}");
      return json.toString();
    }
  }

  private static Table create(HadoopCatalog catalog, String name) {
    return catalog
        .buildTable(TableIdentifier.of(NAMESPACE, name), Rows.SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperties(Map.of("format-version", "2"))
        .create();
  }

  private static EncryptedOutputFile output(Table table, String fileName) {
    return EncryptedFiles.plainAsEncryptedOutput(
        table.io().newOutputFile(table.locationProvider().newDataLocation(fileName)));
  }

  /** Writes data file F of the table with Iceberg's generic Parquet writer. */
  private static DataFile writeData(Table table, Rows data, int f) throws IOException {
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table).build();
    DataWriter<Record> writer =
        factory.newDataWriter(
            output(table, String.format("data-%02d.parquet", f)), table.spec(), null);
    try (writer) {
      data.forEachRow(f, writer::write);
    }
    return writer.toDataFile();
  }

  /** Copies the data files into TO's data folder, keeping their metrics. */
  private static List<DataFile> copyAll(List<DataFile> files, Table to) throws IOException {
    List<DataFile> out = new ArrayList<>();
    for (DataFile df : files) {
      String name = df.location().substring(df.location().lastIndexOf('/') + 1);
      String dst = to.locationProvider().newDataLocation(name);
      try (InputStream in = to.io().newInputFile(df.location()).newStream();
          PositionOutputStream os = to.io().newOutputFile(dst).create()) {
        in.transferTo(os);
      }
      out.add(DataFiles.builder(to.spec()).copy(df).withPath(dst).build());
    }
    return out;
  }

  private static void append(Table table, List<DataFile> files) {
    AppendFiles append = table.newAppend();
    files.forEach(append::appendFile);
    append.commit();
  }

  /** Writes an equality delete file on id with Iceberg's generic writer factory. */
  private static DeleteFile writeEqualityDeletes(Table table, String fileName, long[] ids)
      throws IOException {
    Schema key = table.schema().select("id");
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(new int[] {key.findField("id").fieldId()})
            .equalityDeleteRowSchema(key)
            .build();
    EqualityDeleteWriter<Record> writer =
        factory.newEqualityDeleteWriter(output(table, fileName), table.spec(), null);
    GenericRecord r = GenericRecord.create(key);
    try (writer) {
      for (long id : ids) {
        r.set(0, id);
        writer.write(r);
      }
    }
    return writer.toDeleteFile();
  }

  /** Writes a position delete file for one data file with Iceberg's generic writer factory. */
  private static DeleteFile writePositionDeletes(
      Table table, String fileName, String dataPath, long[] positions) throws IOException {
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table).build();
    PositionDeleteWriter<Record> writer =
        factory.newPositionDeleteWriter(output(table, fileName), table.spec(), null);
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      for (long p : positions) {
        writer.write(delete.set(dataPath, p));
      }
    }
    return writer.toDeleteFile();
  }

  /**
   * Reads the table back with Iceberg's generic reader, fails unless it returns ROWS rows whose
   * ids sum to ID_SUM, and returns the table's entry of the output JSON.
   */
  private static String describe(Table table, long rows, long idSum, int dataFiles,
      int deleteFiles) throws IOException {
    long start = System.nanoTime();
    long n = 0;
    long sum = 0;
    try (CloseableIterable<Record> it = IcebergGenerics.read(table).select("id").build()) {
      for (Record r : it) {
        n++;
        sum += (Long) r.get(0);
      }
    }
    String name = table.name().substring(table.name().lastIndexOf('.') + 1);
    log("%s: Iceberg Java reads %,d rows (id sum %d) in %.1f s", name, n, sum, secs(start));
    if (n != rows || sum != idSum) {
      throw new IllegalStateException(
          String.format("%s: Iceberg Java reads %d rows with id sum %d, want %d and %d", name, n,
              sum, rows, idSum));
    }
    String metadata = ((HasTableOperations) table).operations().current().metadataFileLocation();
    return String.format(
        "\"%s\": {\"metadata_location\": \"%s\", \"rows\": %d, \"id_sum\": %d,"
            + " \"data_files\": %d, \"delete_files\": %d}",
        name, metadata, n, sum, dataFiles, deleteFiles);
  }

  private static double secs(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static void log(String format, Object... args) {
    System.err.printf("deletesgen: " + format + "%n", args);
  }
}
