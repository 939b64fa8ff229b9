package io.iceflight.javaref;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.util.JsonUtil;

/**
 * Gives the snapshots a table commits fixed timestamps, one from a list per new snapshot, in commit
 * order. Iceberg Java stamps a snapshot with the wall clock; the sample warehouse needs snapshots on
 * known dates (before and after 2026-01-01) so that time travel by date answers an older snapshot
 * on any day the fixtures are regenerated.
 *
 * <p>The metadata is rewritten just before it is written: the builder validated it with wall-clock
 * times, and only the snapshot's {@code timestamp-ms} and its snapshot-log entry change, so the
 * metadata's own {@code last-updated-ms} and metadata log keep their real order.
 */
final class SnapshotClock {
  private final Deque<Long> times;

  SnapshotClock(long... timestampsMs) {
    this.times = new ArrayDeque<>();
    for (long t : timestampsMs) {
      times.add(t);
    }
  }

  /** Returns metadata with the snapshots new since base dated from the list, or metadata itself. */
  TableMetadata apply(TableMetadata base, TableMetadata metadata) {
    Set<Long> old = new HashSet<>();
    if (base != null) {
      for (Snapshot s : base.snapshots()) {
        old.add(s.snapshotId());
      }
    }
    Map<Long, Long> dated = new HashMap<>();
    for (Snapshot s : metadata.snapshots()) {
      if (!old.contains(s.snapshotId())) {
        Long t = times.poll();
        if (t == null) {
          throw new IllegalStateException("no fixed time left for snapshot " + s.snapshotId());
        }
        dated.put(s.snapshotId(), t);
      }
    }
    if (dated.isEmpty()) {
      return metadata;
    }
    ObjectNode json;
    try {
      json = (ObjectNode) JsonUtil.mapper().readTree(TableMetadataParser.toJson(metadata));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    redate(json.get("snapshots"), dated);
    redate(json.get("snapshot-log"), dated);
    return TableMetadataParser.fromJson(json);
  }

  private static void redate(JsonNode entries, Map<Long, Long> dated) {
    if (entries == null) {
      return;
    }
    for (JsonNode entry : entries) {
      Long t = dated.get(entry.get("snapshot-id").asLong());
      if (t != null) {
        ((ObjectNode) entry).put("timestamp-ms", t.longValue());
      }
    }
  }
}
