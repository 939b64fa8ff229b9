package io.iceflight.javaref;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;

/**
 * {@code metacheck FILE...}: reads each table metadata file with Iceberg Java's
 * TableMetadataParser (the check a Java reader makes of a file iceflight wrote) and prints,
 * one line per file, the metadata as TableMetadataParser.toJson writes it back. Exits 1 at
 * the first file Java refuses, naming it.
 */
final class MetaCheck {
  private MetaCheck() {}

  static int run(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: metacheck FILE...");
      return 2;
    }
    for (String file : args) {
      try {
        TableMetadata md = TableMetadataParser.fromJson(file, read(file));
        System.out.println(TableMetadataParser.toJson(md));
      } catch (Exception e) {
        System.err.println(file + ": " + e);
        return 1;
      }
    }
    return 0;
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
