package io.iceflight.deletesgen;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's rows and which of them are deleted, both a pure function of the seed: row
 * {@code g} (0-based over the whole table) has {@code id = g + 1} and lives in data file {@code g
 * / rowsPerFile} at position {@code g % rowsPerFile}. Every table gets the same rows, and both
 * delete tables delete the same ones, so their scans must return the same 9,900,000 rows.
 */
final class Rows {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "category", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DoubleType.get()),
          Types.NestedField.optional(4, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(5, "note", Types.StringType.get()));

  private static final String[] CATEGORIES = {
    "books", "electronics", "garden", "grocery", "health", "music", "sports", "toys"
  };
  private static final String[] WORDS = {
    "express", "gift wrap", "returned", "priority", "backorder", "café au lait", "fragile",
    "signed"
  };
  private static final OffsetDateTime START = OffsetDateTime.of(2025, 1, 1, 0, 0, 0, 0,
      ZoneOffset.UTC);

  final long rows;
  final int files;
  final long rowsPerFile;
  final int deletedPerFile;
  final long seed;

  Rows(long rows, int files, long deletedRows, long seed) {
    if (files <= 0 || rows % files != 0 || deletedRows % files != 0) {
      throw new IllegalArgumentException("rows and deleted rows must be multiples of files");
    }
    this.rows = rows;
    this.files = files;
    this.rowsPerFile = rows / files;
    this.deletedPerFile = (int) (deletedRows / files);
    if (deletedPerFile > rowsPerFile) {
      throw new IllegalArgumentException("more deleted rows than rows");
    }
    this.seed = seed;
  }

  /** Calls sink with every row of data file FILE, in file order, reusing one record. */
  void forEachRow(int file, java.util.function.Consumer<Record> sink) {
    Random rnd = new Random(seed * 1_000_003L + file);
    GenericRecord r = GenericRecord.create(SCHEMA);
    long first = file * rowsPerFile;
    for (long p = 0; p < rowsPerFile; p++) {
      long g = first + p;
      r.set(0, g + 1);
      r.set(1, rnd.nextInt(100) == 0 ? null : CATEGORIES[rnd.nextInt(CATEGORIES.length)]);
      r.set(2, rnd.nextInt(50) == 0 ? null : Math.round(rnd.nextDouble() * 100_000) / 100.0);
      // About 3 s apart: the 10,000,000 rows span about a year.
      r.set(3, START.plusSeconds(g * 3 + rnd.nextInt(3)));
      r.set(
          4,
          rnd.nextInt(10) < 3
              ? null
              : String.format("order %08x %s", rnd.nextInt(), WORDS[rnd.nextInt(WORDS.length)]));
      sink.accept(r);
    }
  }

  /** The deleted positions of data file FILE, ascending: deletedPerFile of them, at random. */
  long[] deletedPositions(int file) {
    Random rnd = new Random(seed * 7_919L + 1_000_000L + file);
    BitSet picked = new BitSet((int) rowsPerFile);
    int n = 0;
    while (n < deletedPerFile) {
      int p = rnd.nextInt((int) rowsPerFile);
      if (!picked.get(p)) {
        picked.set(p);
        n++;
      }
    }
    return picked.stream().asLongStream().toArray();
  }

  /** Every deleted id, ascending. */
  long[] deletedIds() {
    long[] ids = new long[deletedPerFile * files];
    int k = 0;
    for (int f = 0; f < files; f++) {
      for (long p : deletedPositions(f)) {
        ids[k++] = f * rowsPerFile + p + 1;
      }
    }
    return ids;
  }

  /**
   * The deleted ids split into PARTS equality delete files: shuffled first, so every file holds
   * ids from every data file, then sorted within each file.
   */
  long[][] equalityDeleteParts(int parts) {
    long[] ids = deletedIds();
    if (ids.length % parts != 0) {
      throw new IllegalArgumentException("deleted rows must be a multiple of equality files");
    }
    Random rnd = new Random(seed * 104_729L + 7);
    for (int i = ids.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      long t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
    }
    int per = ids.length / parts;
    long[][] out = new long[parts][];
    for (int i = 0; i < parts; i++) {
      out[i] = Arrays.copyOfRange(ids, i * per, (i + 1) * per);
      Arrays.sort(out[i]);
    }
    return out;
  }

  /** The sum of the ids that survive the deletes (all of them when DELETED is false). */
  long idSum(boolean deleted) {
    long sum = rows * (rows + 1) / 2;
    if (deleted) {
      for (long id : deletedIds()) {
        sum -= id;
      }
    }
    return sum;
  }
}
