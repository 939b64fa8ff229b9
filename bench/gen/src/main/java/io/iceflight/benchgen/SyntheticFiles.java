package io.iceflight.benchgen;

import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Describes synthetic Parquet data files (which are never written) with realistic column
 * metrics. File {@code i} of {@code n} lies in day {@code i * DAYS / n} of the two years
 * starting 2024-01-01 (or in the day its caller names, see {@link #dayOfGroup}) and in bucket
 * {@code i % 16} of user_id, so consecutive files (one commit, one manifest) cover about one
 * day, as a table fed by a streaming job does. Everything about a file depends only on the
 * seed and its index; {@link Detail#LIGHT} keeps a subset of the same metrics.
 */
final class SyntheticFiles {
  /** How many of a file's metrics its manifest entry carries. */
  enum Detail {
    /** Every column's sizes, value, null and NaN counts, bounds, and split offsets. */
    FULL,
    /**
     * Only what the planning cases prune on, to keep ten million entries small: the counts
     * and bounds of ts and amount, and split offsets; no column sizes.
     */
    LIGHT
  }

  /** The columns whose metrics a {@link Detail#LIGHT} entry keeps: ts and amount. */
  private static final Set<Integer> LIGHT_COLUMNS = Set.of(1, 3);

  /** The benchmark table's schema; the catalog keeps these ids since they are 1..5 in order. */
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "ts", Types.TimestampType.withZone()),
          Types.NestedField.required(2, "user_id", Types.LongType.get()),
          Types.NestedField.optional(3, "amount", Types.DoubleType.get()),
          Types.NestedField.optional(4, "category", Types.StringType.get()),
          Types.NestedField.optional(5, "note", Types.StringType.get()));

  static final LocalDate FIRST_DAY = LocalDate.of(2024, 1, 1);
  static final int DAYS = 731; // 2024 (leap) and 2025
  static final int BUCKETS = 16;

  private static final long MICROS_PER_SECOND = 1_000_000L;
  private static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;
  private static final long ROW_GROUP_BYTES = 32L << 20;
  private static final long MAX_USER_ID = 10_000_000L;
  private static final String[] CATEGORIES = {
    "books", "electronics", "garden", "grocery", "health", "sports", "toys", "travel"
  };

  private final PartitionSpec spec;
  private final LocationProvider locations;
  private final int total;
  private final long seed;
  private final Detail detail;

  SyntheticFiles(
      PartitionSpec spec, LocationProvider locations, int total, long seed, Detail detail) {
    this.spec = spec;
    this.locations = locations;
    this.total = total;
    this.seed = seed;
    this.detail = detail;
  }

  /** Partition spec of the benchmark table: day(ts), bucket[16](user_id). */
  static PartitionSpec spec(Schema schema) {
    return PartitionSpec.builderFor(schema).day("ts").bucket("user_id", BUCKETS).build();
  }

  /** Returns the day of file {@code index}: files spread evenly over the {@code DAYS}. */
  LocalDate dayOfFile(int index) {
    return FIRST_DAY.plusDays((long) index * DAYS / total);
  }

  /**
   * Returns the day of every file of group {@code group} of {@code groups}: groups spread
   * evenly over the {@code DAYS}, so no group (manifest) straddles two days.
   */
  static LocalDate dayOfGroup(int group, int groups) {
    return FIRST_DAY.plusDays((long) group * DAYS / groups);
  }

  /** Returns the description of file {@code index} of commit {@code commit}, in its own day. */
  DataFile file(int commit, int index) {
    return file(commit, index, dayOfFile(index));
  }

  /** Returns the description of file {@code index} of commit {@code commit} in {@code day}. */
  DataFile file(int commit, int index, LocalDate day) {
    SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + index);
    int bucket = index % BUCKETS;

    PartitionData partition = new PartitionData(spec.partitionType());
    partition.set(0, (int) day.toEpochDay());
    partition.set(1, bucket);

    long records = 500_000L + rnd.nextLong(3_500_000L);
    long size = records * (30L + rnd.nextLong(12L));
    String name =
        String.format(
            "%05d-%d-%s-00001.parquet",
            commit, index % 100, new UUID(rnd.nextLong(), rnd.nextLong()));

    Metrics metrics = metrics(rnd, day, records, size);
    return DataFiles.builder(spec)
        .withPath(locations.newDataLocation(spec, partition, name))
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition)
        .withRecordCount(records)
        .withFileSizeInBytes(size)
        .withSplitOffsets(splitOffsets(size))
        .withMetrics(detail == Detail.FULL ? metrics : light(metrics))
        .build();
  }

  /** Row-group start offsets: Parquet's 4-byte magic, then one group per 32 MiB. */
  private static List<Long> splitOffsets(long size) {
    List<Long> offsets = new ArrayList<>();
    for (long off = 4; off < size; off += ROW_GROUP_BYTES) {
      offsets.add(off);
    }
    return offsets;
  }

  private static Metrics metrics(SplittableRandom rnd, LocalDate day, long records, long size) {
    Map<Integer, Long> columnSizes = new HashMap<>();
    Map<Integer, Long> valueCounts = new HashMap<>();
    Map<Integer, Long> nullCounts = new HashMap<>();
    Map<Integer, Long> nanCounts = new HashMap<>();
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    double[] shares = {0.20, 0.25, 0.25, 0.05, 0.25};
    for (int id = 1; id <= 5; id++) {
      columnSizes.put(id, (long) (size * shares[id - 1]));
      valueCounts.put(id, records);
    }

    // ts: the file holds a day's events, first and last hour ragged.
    long dayStart = day.atStartOfDay(ZoneOffset.UTC).toEpochSecond() * MICROS_PER_SECOND;
    nullCounts.put(1, 0L);
    put(lower, upper, 1, Types.TimestampType.withZone(),
        dayStart + rnd.nextLong(3_600L * MICROS_PER_SECOND),
        dayStart + MICROS_PER_DAY - 1 - rnd.nextLong(3_600L * MICROS_PER_SECOND));

    // user_id: hashed into buckets, so every file spans almost the whole id range.
    nullCounts.put(2, 0L);
    put(lower, upper, 2, Types.LongType.get(),
        1L + rnd.nextLong(5_000L), MAX_USER_ID - rnd.nextLong(5_000L));

    // amount: maxima spread over [500, 1000), so "amount > 990.5" keeps about 2% of files;
    // one file in ten has a few NaNs, which bounds exclude (spec: lower/upper bounds).
    nullCounts.put(3, records / 1_000);
    nanCounts.put(3, rnd.nextInt(10) == 0 ? 1L + rnd.nextLong(20L) : 0L);
    put(lower, upper, 3, Types.DoubleType.get(),
        cents(rnd.nextDouble() * 5.0), cents(500.0 + rnd.nextDouble() * 499.99));

    nullCounts.put(4, rnd.nextLong(records / 100));
    put(lower, upper, 4, Types.StringType.get(),
        CATEGORIES[rnd.nextInt(3)], CATEGORIES[CATEGORIES.length - 1 - rnd.nextInt(3)]);

    // note: free text, bounds truncated to 16 characters as the default metrics mode does.
    nullCounts.put(5, records * (30 + rnd.nextInt(20)) / 100);
    put(lower, upper, 5, Types.StringType.get(), word(rnd, 'a'), word(rnd, 'w'));

    return new Metrics(records, columnSizes, valueCounts, nullCounts, nanCounts, lower, upper);
  }

  /** Keeps {@code LIGHT_COLUMNS}' counts and bounds of full metrics, and no column sizes. */
  private static Metrics light(Metrics full) {
    return new Metrics(
        full.recordCount(),
        null,
        only(full.valueCounts()),
        only(full.nullValueCounts()),
        only(full.nanValueCounts()),
        only(full.lowerBounds()),
        only(full.upperBounds()));
  }

  private static <V> Map<Integer, V> only(Map<Integer, V> byColumn) {
    Map<Integer, V> kept = new HashMap<>();
    byColumn.forEach((id, v) -> {
      if (LIGHT_COLUMNS.contains(id)) {
        kept.put(id, v);
      }
    });
    return kept;
  }

  private static void put(Map<Integer, ByteBuffer> lower, Map<Integer, ByteBuffer> upper, int id,
      Type type, Object min, Object max) {
    // Spec: Appendix D, single-value serialization.
    lower.put(id, Conversions.toByteBuffer(type, min));
    upper.put(id, Conversions.toByteBuffer(type, max));
  }

  private static double cents(double v) {
    return Math.round(v * 100.0) / 100.0;
  }

  /** A 16-character lowercase text starting within three letters of {@code first}. */
  private static String word(SplittableRandom rnd, char first) {
    StringBuilder b = new StringBuilder(16);
    b.append((char) (first + rnd.nextInt(3)));
    while (b.length() < 16) {
      b.append(rnd.nextInt(6) == 0 ? ' ' : (char) ('a' + rnd.nextInt(26)));
    }
    return b.toString();
  }
}
