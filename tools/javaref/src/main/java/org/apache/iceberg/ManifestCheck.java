package org.apache.iceberg;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * {@code manifestcheck --list FILE}: reads a manifest list and every manifest it names with
 * Iceberg Java's own readers (ManifestLists.read, ManifestFiles.read) and prints what Java sees
 * as JSON, for iceflight's manifest writer tests. It lives in org.apache.iceberg because
 * ManifestLists and ManifestReader.entries are package-private. Byte values (bounds, partition
 * values in their single-value serialization) are hex.
 */
public final class ManifestCheck {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ManifestCheck() {}

  public static int run(String[] args) throws Exception {
    String list = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--list")) {
        list = args[i + 1];
      }
    }
    if (list == null) {
      System.err.println("usage: manifestcheck --list FILE");
      return 2;
    }
    FileIO io = new HadoopFileIO(new Configuration());
    List<ManifestFile> manifests = ManifestLists.read(io.newInputFile(list));
    ObjectNode out = MAPPER.createObjectNode();
    ArrayNode ms = out.putArray("manifests");
    for (ManifestFile mf : manifests) {
      ObjectNode m = ms.addObject();
      m.put("path", mf.path());
      m.put("length", mf.length());
      m.put("spec_id", mf.partitionSpecId());
      m.put("content", mf.content().id());
      m.put("sequence_number", mf.sequenceNumber());
      m.put("min_sequence_number", mf.minSequenceNumber());
      m.put("added_snapshot_id", mf.snapshotId());
      m.put("added_files_count", mf.addedFilesCount());
      m.put("existing_files_count", mf.existingFilesCount());
      m.put("deleted_files_count", mf.deletedFilesCount());
      m.put("added_rows_count", mf.addedRowsCount());
      m.put("existing_rows_count", mf.existingRowsCount());
      m.put("deleted_rows_count", mf.deletedRowsCount());
      m.put("first_row_id", mf.firstRowId());
      ArrayNode parts = m.putArray("partitions");
      if (mf.partitions() != null) {
        for (ManifestFile.PartitionFieldSummary s : mf.partitions()) {
          ObjectNode p = parts.addObject();
          p.put("contains_null", s.containsNull());
          p.put("contains_nan", s.containsNaN());
          p.put("lower_bound", hex(s.lowerBound()));
          p.put("upper_bound", hex(s.upperBound()));
        }
      }
      ArrayNode entries = m.putArray("entries");
      if (mf.content() == ManifestContent.DATA) {
        try (ManifestReader<DataFile> r = ManifestFiles.read(mf, io, null)) {
          addEntries(entries, r.spec(), r.entries());
        }
      } else {
        try (ManifestReader<DeleteFile> r = ManifestFiles.readDeleteManifest(mf, io, null)) {
          addEntries(entries, r.spec(), r.entries());
        }
      }
    }
    System.out.println(MAPPER.writeValueAsString(out));
    return 0;
  }

  private static <F extends ContentFile<F>> void addEntries(
      ArrayNode out, PartitionSpec spec, CloseableIterable<ManifestEntry<F>> entries)
      throws Exception {
    Types.StructType partType = spec.partitionType();
    try (CloseableIterable<ManifestEntry<F>> it = entries) {
      for (ManifestEntry<F> e : it) {
        ObjectNode n = out.addObject();
        F f = e.file();
        n.put("status", e.status().id());
        n.put("snapshot_id", e.snapshotId());
        n.put("sequence_number", e.dataSequenceNumber());
        n.put("file_sequence_number", e.fileSequenceNumber());
        n.put("content", f.content().id());
        n.put("file_path", f.location());
        n.put("file_format", f.format().name());
        n.put("spec_id", f.specId());
        n.put("record_count", f.recordCount());
        n.put("file_size_in_bytes", f.fileSizeInBytes());
        n.put("first_row_id", f.firstRowId());
        n.put("sort_order_id", f.sortOrderId());
        ArrayNode part = n.putArray("partition");
        for (int i = 0; i < partType.fields().size(); i++) {
          Type t = partType.fields().get(i).type();
          Object v = f.partition().get(i, Object.class);
          part.add(v == null ? null : hex(Conversions.toByteBuffer(t, v)));
        }
        counts(n, "column_sizes", f.columnSizes());
        counts(n, "value_counts", f.valueCounts());
        counts(n, "null_value_counts", f.nullValueCounts());
        counts(n, "nan_value_counts", f.nanValueCounts());
        bounds(n, "lower_bounds", f.lowerBounds());
        bounds(n, "upper_bounds", f.upperBounds());
        if (f.splitOffsets() != null) {
          ArrayNode a = n.putArray("split_offsets");
          f.splitOffsets().forEach(a::add);
        }
        if (f.equalityFieldIds() != null) {
          ArrayNode a = n.putArray("equality_ids");
          f.equalityFieldIds().forEach(a::add);
        }
        if (f instanceof DeleteFile) {
          DeleteFile d = (DeleteFile) f;
          n.put("referenced_data_file", d.referencedDataFile());
          n.put("content_offset", d.contentOffset());
          n.put("content_size_in_bytes", d.contentSizeInBytes());
        }
      }
    }
  }

  private static void counts(ObjectNode n, String name, Map<Integer, Long> m) {
    if (m == null) {
      return;
    }
    ObjectNode o = n.putObject(name);
    new TreeMap<>(m).forEach((k, v) -> o.put(String.valueOf(k), v));
  }

  private static void bounds(ObjectNode n, String name, Map<Integer, ByteBuffer> m) {
    if (m == null) {
      return;
    }
    ObjectNode o = n.putObject(name);
    new TreeMap<>(m).forEach((k, v) -> o.put(String.valueOf(k), hex(v)));
  }

  private static String hex(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    ByteBuffer d = b.duplicate();
    StringBuilder sb = new StringBuilder();
    while (d.hasRemaining()) {
      sb.append(String.format("%02x", d.get() & 0xff));
    }
    return sb.toString();
  }
}
