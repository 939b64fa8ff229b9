package io.iceflight.javaref;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * Read-only FileIO that maps the writer's paths (recorded in metadata and manifests) onto the
 * folder where the table was found, then delegates to a local FileIO.
 *
 * <p>Mapping rules, first match wins:
 *
 * <ol>
 *   <li>a path under the table's recorded location maps to the table folder;
 *   <li>for each folder {@code <table>/_siblings/X}, a path under {@code parent(location)/X} maps
 *       to that folder;
 *   <li>a relative path (no scheme, no leading slash) is resolved against the table folder;
 *   <li>anything else is used as is.
 * </ol>
 *
 * <p>Prefixes are compared verbatim and after normalisation: {@code file:}, {@code file:/},
 * {@code file:///} and bare {@code /} are one spelling; {@code hdfs://host:port} and other
 * file-system authorities are dropped; for object stores (s3, s3a, gs, ...) the bucket stays part
 * of the path but the scheme does not.
 */
final class RemappingFileIO implements FileIO {
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.\\-]+):(.*)$");
  private static final Set<String> OBJECT_STORES =
      Set.of("s3", "s3a", "s3n", "gs", "gcs", "oss", "abfs", "abfss", "wasb", "wasbs", "r2");

  private final FileIO delegate;
  private final Path tableDir;
  /** Pairs of (recorded prefix, local folder), checked in order. */
  private final List<String[]> prefixes = new ArrayList<>();

  RemappingFileIO(FileIO delegate, Path tableDir) {
    this.delegate = delegate;
    this.tableDir = tableDir.toAbsolutePath().normalize();
  }

  /** Sets the location recorded in the table metadata; call before reading manifests. */
  void setRecordedLocation(String location) throws IOException {
    prefixes.clear();
    if (location == null || location.isEmpty()) {
      return;
    }
    String loc = stripTrailingSlashes(location);
    prefixes.add(new String[] {loc, tableDir.toString()});
    Path siblings = tableDir.resolve("_siblings");
    if (Files.isDirectory(siblings)) {
      int slash = loc.lastIndexOf('/');
      if (slash > 0) {
        String parent = loc.substring(0, slash);
        try (Stream<Path> children = Files.list(siblings)) {
          children
              .filter(Files::isDirectory)
              .sorted()
              .forEach(
                  dir ->
                      prefixes.add(
                          new String[] {
                            parent + "/" + dir.getFileName(), dir.toAbsolutePath().toString()
                          }));
        }
      }
    }
  }

  /** Maps one recorded path to the path that is opened. */
  String map(String path) {
    if (path == null) {
      return null;
    }
    for (String[] pair : prefixes) {
      String rest = restAfter(path, pair[0]);
      if (rest != null) {
        return pair[1] + rest;
      }
    }
    for (String[] pair : prefixes) {
      String rest = restAfter(normalise(path), normalise(pair[0]));
      if (rest != null) {
        return pair[1] + rest;
      }
    }
    if (!path.startsWith("/") && !SCHEME.matcher(path).matches()) {
      return tableDir.resolve(path).normalize().toString();
    }
    return path;
  }

  /** The remainder of path after prefix ("" or starting with "/"), or null if no match. */
  private static String restAfter(String path, String prefix) {
    if (path.equals(prefix)) {
      return "";
    }
    if (path.startsWith(prefix) && path.charAt(prefix.length()) == '/') {
      return path.substring(prefix.length());
    }
    return null;
  }

  static String normalise(String location) {
    String path = location;
    Matcher m = SCHEME.matcher(location);
    if (m.matches()) {
      String scheme = m.group(1).toLowerCase(Locale.ROOT);
      String rest = m.group(2);
      String authority = "";
      if (rest.startsWith("//")) {
        int end = rest.indexOf('/', 2);
        authority = end < 0 ? rest.substring(2) : rest.substring(2, end);
        rest = end < 0 ? "/" : rest.substring(end);
      }
      if (OBJECT_STORES.contains(scheme) && !authority.isEmpty()) {
        path = "/" + authority + rest;
      } else {
        path = rest;
      }
    }
    path = path.replaceAll("/{2,}", "/");
    return stripTrailingSlashes(path);
  }

  private static String stripTrailingSlashes(String s) {
    int end = s.length();
    while (end > 1 && s.charAt(end - 1) == '/') {
      end--;
    }
    return s.substring(0, end);
  }

  @Override
  public InputFile newInputFile(String path) {
    return delegate.newInputFile(map(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return delegate.newInputFile(map(path), length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    throw new UnsupportedOperationException("read-only FileIO: " + path);
  }

  @Override
  public void deleteFile(String path) {
    throw new UnsupportedOperationException("read-only FileIO: " + path);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
