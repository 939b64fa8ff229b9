package io.iceflight.javaref;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.util.Pair;

/**
 * {@code puffincheck --file FILE}: reads a Puffin file with Iceberg Java's PuffinReader (footer,
 * magic, flags, blob metadata) and decodes each deletion-vector-v1 blob with
 * PositionDeleteIndex.deserialize (length, magic, CRC, cardinality against the blob's
 * cardinality property), printing what Java sees as JSON, for iceflight's Puffin writer tests.
 */
final class PuffinCheck {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private PuffinCheck() {}

  static int run(String[] args) throws Exception {
    String file = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--file")) {
        file = args[i + 1];
      }
    }
    if (file == null) {
      System.err.println("usage: puffincheck --file FILE");
      return 2;
    }
    InputFile in = new HadoopFileIO(new Configuration()).newInputFile(file);
    ObjectNode out = MAPPER.createObjectNode();
    try (PuffinReader reader = Puffin.read(in).build()) {
      org.apache.iceberg.puffin.FileMetadata meta = reader.fileMetadata();
      ObjectNode props = out.putObject("properties");
      meta.properties().forEach(props::put);
      ArrayNode blobs = out.putArray("blobs");
      for (Pair<BlobMetadata, ByteBuffer> p : reader.readAll(meta.blobs())) {
        BlobMetadata b = p.first();
        ObjectNode n = blobs.addObject();
        n.put("type", b.type());
        ArrayNode fields = n.putArray("fields");
        b.inputFields().forEach(fields::add);
        n.put("snapshot-id", b.snapshotId());
        n.put("sequence-number", b.sequenceNumber());
        n.put("offset", b.offset());
        n.put("length", b.length());
        n.put("compression-codec", b.compressionCodec());
        ObjectNode bp = n.putObject("properties");
        b.properties().forEach(bp::put);
        if (!b.type().equals("deletion-vector-v1")) {
          continue;
        }
        DeleteFile dv =
            FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
                .ofPositionDeletes()
                .withFormat(FileFormat.PUFFIN)
                .withPath(file)
                .withFileSizeInBytes(in.getLength())
                .withRecordCount(Long.parseLong(b.properties().get("cardinality")))
                .withReferencedDataFile(b.properties().get("referenced-data-file"))
                .withContentOffset(b.offset())
                .withContentSizeInBytes(b.length())
                .build();
        ByteBuffer buf = p.second();
        byte[] bytes = new byte[buf.remaining()];
        buf.duplicate().get(bytes);
        PositionDeleteIndex index = PositionDeleteIndex.deserialize(bytes, dv);
        ArrayNode positions = n.putArray("positions");
        index.forEach(positions::add);
      }
    }
    System.out.println(MAPPER.writeValueAsString(out));
    return 0;
  }
}
