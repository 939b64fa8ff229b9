package io.iceflight.javaref;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * Sample tables for schema and partition features: a column dropped and re-added under the same
 * name, truncate partitions, and v3 row lineage.
 */
final class EvolutionSamples {
  private final FixtureGen gen;

  EvolutionSamples(FixtureGen gen) {
    this.gen = gen;
  }

  /**
   * {@code score} (id 3) is dropped and a new {@code score} (id 5) added; {@code name} (id 2) is
   * renamed to {@code title} and a new {@code name} (id 6) added. Old files still carry columns
   * named {@code score} and {@code name} with the old ids: a reader that matches by name returns
   * their values where Iceberg returns null (or the renamed column).
   */
  void readdedColumn() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));
    Table table =
        gen.create("readded_column", schema, sc -> PartitionSpec.unpartitioned(), Map.of());
    List<Record> first = new ArrayList<>();
    for (long id = 1; id <= 10; id++) {
      first.add(FixtureGen.record(table.schema(), id, "old-name-" + id, (int) id * 7));
    }
    table.newAppend().appendFile(FixtureGen.write(table, "readded-1.parquet", null, first))
        .commit();

    table.updateSchema().deleteColumn("score").commit();
    List<Record> second = new ArrayList<>();
    for (long id = 11; id <= 20; id++) {
      second.add(FixtureGen.record(table.schema(), id, "mid-name-" + id));
    }
    table.newAppend().appendFile(FixtureGen.write(table, "readded-2.parquet", null, second))
        .commit();

    table.updateSchema().addColumn("score", Types.IntegerType.get()).commit();
    table.updateSchema().renameColumn("name", "title").commit();
    table.updateSchema().addColumn("name", Types.StringType.get()).commit();
    List<Record> third = new ArrayList<>();
    for (long id = 21; id <= 30; id++) {
      // columns: id, title, score (new), name (new)
      third.add(
          FixtureGen.record(
              table.schema(), id, "title-" + id, id % 4 == 0 ? null : (int) id * -3,
              "new-name-" + id));
    }
    table.newAppend().appendFile(FixtureGen.write(table, "readded-3.parquet", null, third))
        .commit();
  }

  /** truncate[4](name), truncate[10](amount long), truncate[100](price decimal(9,2)). */
  void truncated() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "amount", Types.LongType.get()),
            Types.NestedField.optional(4, "price", Types.DecimalType.of(9, 2)));
    Table table =
        gen.create(
            "truncated",
            schema,
            sc ->
                PartitionSpec.builderFor(sc)
                    .truncate("name", 4)
                    .truncate("amount", 10)
                    .truncate("price", 100)
                    .build(),
            Map.of());
    Schema s = table.schema();
    // Names around the 4-character boundary (truncate counts code points, not bytes), amounts
    // around multiples of 10 on both sides of zero, prices around whole units (unscaled 100).
    String[] names = {"app", "appl", "apple", "applesauce", "apply", "apt", "", "b", "banana",
        "band", "bandana", "日本語テ", "日本語テキスト", "🧊🧊🧊🧊🧊", null};
    long[] amounts = {-11, -10, -1, 0, 9, 10, 19, 20, 99, 100, -101};
    String[] prices = {"0.99", "1.00", "1.01", "-0.01", "-1.00", "-1.01", "9.99", "10.00"};
    Map<PartitionKey, List<Record>> parts = new LinkedHashMap<>();
    long id = 1;
    for (int i = 0; i < names.length; i++) {
      for (int k = 0; k < 2; k++) {
        int j = i * 2 + k;
        Long amount = j == 7 ? null : amounts[j % amounts.length];
        BigDecimal price = j == 11 ? null : new BigDecimal(prices[j % prices.length]);
        Record r = FixtureGen.record(s, id++, names[i], amount, price);
        parts.computeIfAbsent(FixtureGen.partitionOf(table, r), p -> new ArrayList<>()).add(r);
      }
    }
    var append = table.newAppend();
    int n = 0;
    for (Map.Entry<PartitionKey, List<Record>> e : parts.entrySet()) {
      append.appendFile(
          FixtureGen.write(
              table, String.format("truncated-%02d.parquet", n++), e.getKey(), e.getValue()));
    }
    append.commit();
    System.out.printf("  samples.truncated: %d rows in %d partitions%n", id - 1, n);
  }

  /**
   * Format v3 with row lineage: two appends, then an overwrite that rewrites the first file. The
   * rewritten file carries {@code _row_id} and {@code _last_updated_sequence_number} for the rows it
   * copies (as Iceberg's engines do on copy-on-write), null for the rows it changes (they inherit
   * the new sequence number) and for a new row (which gets a fresh row id).
   */
  void v3Lineage() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "v", Types.IntegerType.get()));
    Table table =
        gen.create("v3_lineage", schema, sc -> PartitionSpec.unpartitioned(), Map.of(), 3);
    Schema s = table.schema();
    List<Record> first = new ArrayList<>();
    for (long id = 1; id <= 5; id++) {
      first.add(FixtureGen.record(s, id, "a" + id, (int) id));
    }
    DataFile a = FixtureGen.write(table, "lineage-1.parquet", null, first);
    table.newAppend().appendFile(a).commit();
    List<Record> second = new ArrayList<>();
    for (long id = 6; id <= 10; id++) {
      second.add(FixtureGen.record(s, id, "b" + id, (int) id));
    }
    table.newAppend().appendFile(FixtureGen.write(table, "lineage-2.parquet", null, second))
        .commit();

    // The first file got row ids first_row_id + position, sequence number 1.
    long firstRowId = table.snapshot(table.currentSnapshot().parentId()).firstRowId();
    long firstSeq = table.snapshot(table.currentSnapshot().parentId()).sequenceNumber();
    Schema lineage = MetadataColumns.schemaWithRowLineage(s);
    List<Record> rewritten = new ArrayList<>();
    for (int pos = 0; pos < 5; pos++) {
      long id = pos + 1;
      GenericRecord r = GenericRecord.create(lineage);
      r.setField("id", id);
      boolean updated = id == 2 || id == 4;
      r.setField("name", updated ? "updated-" + id : "a" + id);
      r.setField("v", updated ? (int) id * 100 : (int) id);
      r.setField(MetadataColumns.ROW_ID.name(), firstRowId + pos);
      r.setField(
          MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name(), updated ? null : firstSeq);
      rewritten.add(r);
    }
    GenericRecord inserted = GenericRecord.create(lineage);
    inserted.setField("id", 11L);
    inserted.setField("name", "inserted-11");
    inserted.setField("v", 11);
    rewritten.add(inserted);

    String location = FixtureGen.dataLocation(table, "lineage-3.parquet", null);
    DataWriter<Record> writer =
        Parquet.writeData(table.io().newOutputFile(location))
            .forTable(table)
            .schema(lineage)
            .withSpec(table.spec())
            .createWriterFunc(GenericParquetWriter::create)
            .overwrite()
            .build();
    try {
      for (Record r : rewritten) {
        writer.write(r);
      }
    } finally {
      writer.close();
    }
    table.newOverwrite().deleteFile(a).addFile(writer.toDataFile()).commit();
  }
}
