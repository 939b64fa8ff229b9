package io.iceflight.benchgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;

/** The local HadoopCatalog folder the benchmark tables live in, and how they are created. */
final class Warehouse {
  private Warehouse() {}

  /** Hadoop settings for local files: the raw file system, so no .crc side files appear. */
  static Configuration localConf() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  /** Opens (creating the folder if needed) the HadoopCatalog at {@code warehouse}. */
  static HadoopCatalog open(Path warehouse) throws IOException {
    Files.createDirectories(warehouse);
    return new HadoopCatalog(localConf(), "file:" + warehouse);
  }

  /**
   * Creates a format v2 table of {@link SyntheticFiles#SCHEMA} partitioned by {@link
   * SyntheticFiles#spec}, with {@code properties} added to its table properties.
   */
  static Table createEvents(
      HadoopCatalog catalog, TableIdentifier id, Map<String, String> properties) {
    Map<String, String> props = new HashMap<>(properties);
    props.put("format-version", "2");
    return catalog
        .buildTable(id, SyntheticFiles.SCHEMA)
        .withPartitionSpec(SyntheticFiles.spec(SyntheticFiles.SCHEMA))
        .withProperties(props)
        .create();
  }
}
