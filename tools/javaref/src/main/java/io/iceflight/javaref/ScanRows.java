package io.iceflight.javaref;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Not;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptingFileIO;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

/**
 * One scan of one table: Iceberg's planning with an optional row filter and column selection, then
 * the generic reader's steps per file (GenericReader's), with the filter applied exactly to every
 * row after deletes.
 */
final class ScanRows {
  static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
          .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
          .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
          .build();

  /**
   * Metadata columns a query may name in its column list. {@code _file} is left out: its value is
   * the absolute path of the machine that wrote the table.
   */
  private static final Map<String, Types.NestedField> METADATA_COLUMNS =
      Map.of(
          MetadataColumns.ROW_POSITION.name(), MetadataColumns.ROW_POSITION,
          MetadataColumns.SPEC_ID.name(), MetadataColumns.SPEC_ID,
          MetadataColumns.ROW_ID.name(), MetadataColumns.ROW_ID,
          MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name(),
              MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);

  /** What a scan wrote. */
  static final class Result {
    long rows;
    /** Rows where the task's residual and the full filter disagree (an Iceberg bug if not 0). */
    long residualMismatches;
    /**
     * Kept rows where a column under an ordering comparison (lt, lt-eq, gt, gt-eq) is null or NaN.
     * Iceberg Java's Evaluator orders null before and NaN after every value, so {@code x < 5} keeps
     * a null x and {@code x > 5} a NaN x, while its metrics pruning (and SQL) do not: such rows
     * appear or not depending on which files pruning dropped.
     */
    long nullOrNaNCompared;
  }

  final Table table;
  final TableScan scan;
  /** The filter as parsed, {@code alwaysTrue()} when there is none. */
  final Expression filter;
  final boolean caseSensitive;
  /** What the readers are asked for: the scan's schema (selection + filter columns) + metadata. */
  final Schema readProjection;
  /** What is written: the selected columns only, in schema order, then metadata columns. */
  final Schema output;

  private ScanRows(
      Table table,
      TableScan scan,
      Expression filter,
      boolean caseSensitive,
      Schema readProjection,
      Schema output) {
    this.table = table;
    this.scan = scan;
    this.filter = filter;
    this.caseSensitive = caseSensitive;
    this.readProjection = readProjection;
    this.output = output;
  }

  /**
   * Prepares a scan. {@code filterJson} is Iceberg REST expression JSON, parsed against the scanned
   * snapshot's schema (as a REST server does); {@code columns} null means all columns.
   */
  static ScanRows prepare(
      Table table,
      Long snapshotId,
      Collection<String> columns,
      JsonNode filterJson,
      boolean caseSensitive) {
    return prepare(table, snapshotId, null, null, columns, filterJson, caseSensitive);
  }

  /**
   * Prepares a scan of a snapshot chosen by id, by ref (branch or tag: {@code useRef}) or by time
   * ({@code asOfTime}: the snapshot current at that moment by the table's history); at most one of
   * the three is not null.
   */
  static ScanRows prepare(
      Table table,
      Long snapshotId,
      String ref,
      Long asOfTimestampMs,
      Collection<String> columns,
      JsonNode filterJson,
      boolean caseSensitive) {
    TableScan scan = table.newScan().caseSensitive(caseSensitive);
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    if (ref != null) {
      scan = scan.useRef(ref);
    }
    if (asOfTimestampMs != null) {
      scan = scan.asOfTime(asOfTimestampMs);
    }
    Schema base = scan.schema();
    Expression filter = Expressions.alwaysTrue();
    if (filterJson != null && !filterJson.isNull()) {
      filter = ExpressionParser.fromJson(filterJson.toString(), base);
      scan = scan.filter(filter);
    }
    if (columns == null) {
      return new ScanRows(table, scan, filter, caseSensitive, base, base);
    }
    List<String> regular = new ArrayList<>();
    List<Types.NestedField> meta = new ArrayList<>();
    for (String c : columns) {
      Types.NestedField m = METADATA_COLUMNS.get(caseSensitive ? c : c.toLowerCase(Locale.ROOT));
      // a table column of the same name wins over the metadata column
      boolean tableColumn =
          caseSensitive ? base.findField(c) != null : base.caseInsensitiveFindField(c) != null;
      if (m != null && !tableColumn) {
        if (meta.stream().noneMatch(f -> f.fieldId() == m.fieldId())) {
          meta.add(m);
        }
      } else {
        regular.add(c);
      }
    }
    scan = scan.select(regular);
    Schema selected = caseSensitive ? base.select(regular) : base.caseInsensitiveSelect(regular);
    Schema metaSchema = new Schema(meta);
    // What the scan reads (scan.schema(): the selection and the filter's columns), but with every
    // column the filter names, also those binding folds away (is-null of a required column is
    // false): the row Evaluator binds the unfolded filter to the rows read.
    List<String> read = new ArrayList<>(regular);
    read.addAll(referencedNames(filter));
    Schema readSchema = caseSensitive ? base.select(read) : base.caseInsensitiveSelect(read);
    return new ScanRows(
        table,
        scan,
        filter,
        caseSensitive,
        join(readSchema, metaSchema),
        join(selected, metaSchema));
  }

  /** The column names an unbound filter's predicates name. */
  private static Set<String> referencedNames(Expression filter) {
    Set<String> names = new TreeSet<>();
    ExpressionVisitors.visit(
        filter,
        new ExpressionVisitors.ExpressionVisitor<Void>() {
          @Override
          public <T> Void predicate(UnboundPredicate<T> pred) {
            names.add(pred.term().ref().name());
            return null;
          }
        });
    return names;
  }

  private static Schema join(Schema a, Schema b) {
    if (b.columns().isEmpty()) {
      return a;
    }
    List<Types.NestedField> all = new ArrayList<>(a.columns());
    all.addAll(b.columns());
    return new Schema(all);
  }

  /** The planned tasks, whole files, sorted by recorded path so the output is stable. */
  static List<FileScanTask> plan(TableScan scan) throws IOException {
    List<FileScanTask> tasks = new ArrayList<>();
    if (scan.snapshot() != null) {
      try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
        for (FileScanTask task : planned) {
          tasks.add(task);
        }
      }
    }
    tasks.sort(
        Comparator.comparing((FileScanTask t) -> t.file().location())
            .thenComparingLong(FileScanTask::start));
    return tasks;
  }

  /** The same scan without the filter (same snapshot, same selection). */
  TableScan unfiltered() {
    TableScan s = table.newScan().caseSensitive(caseSensitive);
    if (scan.snapshot() != null) {
      s = s.useSnapshot(scan.snapshot().snapshotId());
    }
    return s;
  }

  /** Accessors of the columns that the filter compares with lt, lt-eq, gt or gt-eq. */
  private List<Accessor<StructLike>> comparedColumns(Schema readSchema) {
    Expression bound =
        Binder.bind(readSchema.asStruct(), Expressions.rewriteNot(filter), caseSensitive);
    Set<Integer> ids = new TreeSet<>();
    collectCompared(bound, ids);
    List<Accessor<StructLike>> out = new ArrayList<>();
    for (int id : ids) {
      out.add(readSchema.accessorForField(id));
    }
    return out;
  }

  private static void collectCompared(Expression expr, Set<Integer> ids) {
    if (expr instanceof And) {
      collectCompared(((And) expr).left(), ids);
      collectCompared(((And) expr).right(), ids);
    } else if (expr instanceof Or) {
      collectCompared(((Or) expr).left(), ids);
      collectCompared(((Or) expr).right(), ids);
    } else if (expr instanceof Not) {
      collectCompared(((Not) expr).child(), ids);
    } else if (expr instanceof BoundPredicate) {
      BoundPredicate<?> pred = (BoundPredicate<?>) expr;
      switch (pred.op()) {
        case LT:
        case LT_EQ:
        case GT:
        case GT_EQ:
          if (pred.term() instanceof BoundReference) {
            ids.add(((BoundReference<?>) pred.term()).fieldId());
          }
          break;
        default:
          break;
      }
    }
  }

  /**
   * Reads the tasks and writes the rows that pass the filter as JSON lines to {@code target}.
   *
   * <p>The steps of {@code IcebergGenerics.read(table)} (GenericReader): delete filtering with
   * GenericDeleteFilter, the generic format model reader with identity-partition constants and the
   * task residual (used by the readers for row-group skipping only), then the residual evaluated on
   * every row. Differences: the table's default name mapping is passed to the file readers
   * (GenericReader does not), each file is read whole, and rows are kept by the full filter; the
   * residual is evaluated as well and disagreements are counted.
   */
  Result write(List<FileScanTask> tasks, boolean matchByLocation, Path target) throws IOException {
    String mappingJson = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    NameMapping mapping = mappingJson == null ? null : NameMappingParser.fromJson(mappingJson);
    Schema tableSchema = table.schema();
    // As Iceberg's engine readers do: data and delete files are opened through the table's
    // encryption manager (plaintext for these tables, so key metadata is only logged).
    FileIO io = EncryptingFileIO.combine(table.io(), table.encryption());
    boolean filtering = filter.op() != Expression.Operation.TRUE;

    Result result = new Result();
    try (OutputStream os = Files.newOutputStream(target);
        JsonGenerator gen = JSON.createGenerator(os, JsonEncoding.UTF8)) {
      gen.setPrettyPrinter(new MinimalPrettyPrinter("\n"));
      for (FileScanTask task : tasks) {
        DeleteFilter<Record> deletes =
            matchByLocation
                ? new LocationMatchingDeleteFilter(
                    io, (RemappingFileIO) table.io(), task, tableSchema, readProjection)
                : new GenericDeleteFilter(io, task, tableSchema, readProjection);
        Schema readSchema = deletes.requiredSchema();
        Map<Integer, ?> constants =
            PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
        ReadBuilder<Record, ?> builder =
            FormatModelRegistry.readBuilder(
                task.file().format(), Record.class, io.newInputFile(task.file()));
        builder
            .project(readSchema)
            .idToConstant(constants)
            .split(task.start(), task.length())
            .caseSensitive(caseSensitive)
            .filter(task.residual());
        if (mapping != null) {
          builder.withNameMapping(mapping);
        }
        Evaluator full = null;
        Evaluator residual = null;
        InternalRecordWrapper wrapper = null;
        List<Accessor<StructLike>> compared = List.of();
        if (filtering) {
          compared = comparedColumns(readSchema);
          // Evaluators take Iceberg's internal values (days, micros), as GenericReader's residual
          // filter does through InternalRecordWrapper.
          wrapper = new InternalRecordWrapper(readSchema.asStruct());
          full = new Evaluator(readSchema.asStruct(), filter, caseSensitive);
          residual = new Evaluator(readSchema.asStruct(), task.residual(), caseSensitive);
        }
        try (CloseableIterable<Record> records = deletes.filter(builder.build())) {
          for (Record record : records) {
            if (filtering) {
              InternalRecordWrapper wrapped = wrapper.wrap(record);
              boolean keep = full.eval(wrapped);
              if (keep != residual.eval(wrapped)) {
                result.residualMismatches++;
              }
              if (!keep) {
                continue;
              }
              for (Accessor<StructLike> accessor : compared) {
                Object v = accessor.get(wrapped);
                if (v == null
                    || (v instanceof Double && ((Double) v).isNaN())
                    || (v instanceof Float && ((Float) v).isNaN())) {
                  result.nullOrNaNCompared++;
                  break;
                }
              }
            }
            RowJson.writeRow(gen, output, record);
            result.rows++;
          }
        }
      }
      if (result.rows > 0) {
        gen.writeRaw('\n');
      }
    }
    return result;
  }
}
