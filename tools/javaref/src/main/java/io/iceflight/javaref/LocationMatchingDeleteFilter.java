package io.iceflight.javaref;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.StructLikeSet;

/**
 * Opt-in variant of GenericDeleteFilter (oracle flag {@code --match-delete-paths-by-location}).
 *
 * <p>Iceberg matches a position delete's {@code file_path} to a data file by exact string. Some
 * corpus tables had the paths in their metadata rewritten (e.g. {@code /test-warehouse/...}) but
 * not the paths inside their position delete files ({@code hdfs://localhost:20500/test-warehouse/
 * ...}), so Iceberg Java applies none of those deletes. With this filter a delete also applies when
 * both paths resolve to the same local file through {@link RemappingFileIO}. Everything else
 * (equality deletes, deletion vectors, exact matches) is Iceberg's own loader.
 */
final class LocationMatchingDeleteFilter extends GenericDeleteFilter {
  private final RemappingFileIO remap;

  LocationMatchingDeleteFilter(
      FileIO io, RemappingFileIO remap, FileScanTask task, Schema tableSchema, Schema requested) {
    super(io, task, tableSchema, requested);
    this.remap = remap;
  }

  @Override
  protected DeleteLoader newDeleteLoader() {
    DeleteLoader base = super.newDeleteLoader();
    return new DeleteLoader() {
      @Override
      public StructLikeSet loadEqualityDeletes(Iterable<DeleteFile> files, Schema projection) {
        return base.loadEqualityDeletes(files, projection);
      }

      @Override
      public PositionDeleteIndex loadPositionDeletes(
          Iterable<DeleteFile> files, CharSequence dataLocation) {
        PositionDeleteIndex strict = base.loadPositionDeletes(files, dataLocation);
        List<Long> positions = new ArrayList<>();
        strict.forEach(positions::add);
        String want = dataLocation.toString();
        String wantLocal = remap.map(want);
        for (DeleteFile file : files) {
          if (file.format() == FileFormat.PUFFIN) {
            continue; // deletion vectors name their data file in metadata, not per row
          }
          try (CloseableIterable<Record> rows =
              FormatModelRegistry.<Record, Object>readBuilder(
                      file.format(), Record.class, loadInputFile(file))
                  .project(DeleteSchemaUtil.pathPosSchema())
                  .build()) {
            for (Record row : rows) {
              Object path = row.get(0);
              Object pos = row.get(1);
              if (path == null || pos == null) {
                continue;
              }
              if (!path.toString().equals(want) && remap.map(path.toString()).equals(wantLocal)) {
                positions.add((Long) pos);
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
        return Deletes.toPositionIndex(CloseableIterable.withNoopClose(positions));
      }
    };
  }
}
