package io.iceflight.javaref;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
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
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * FileIO that maps the writer's paths (recorded in metadata and manifests) onto the folder where
 * the table was found, then delegates to a local FileIO. It is read-only unless made by {@link
 * #forWriting}, which lets a generator write a table that records one spelling of its location
 * while its files land in a real local folder.
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
 * of the path but the scheme does not; repeated slashes, {@code .} and {@code ..} segments are
 * cleaned, so a relative location recorded as {@code ./wh/t} matches {@code wh//t/data/f}.
 */
final class RemappingFileIO implements FileIO {
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.\\-]+):(.*)$");
  private static final Set<String> OBJECT_STORES =
      Set.of("s3", "s3a", "s3n", "gs", "gcs", "oss", "abfs", "abfss", "wasb", "wasbs", "r2");

  private final FileIO delegate;
  private final Path tableDir;
  private final boolean writable;
  /** Pairs of (recorded prefix, local folder), checked in order. */
  private final List<String[]> prefixes = new ArrayList<>();

  RemappingFileIO(FileIO delegate, Path tableDir) {
    this(delegate, tableDir, false);
  }

  private RemappingFileIO(FileIO delegate, Path tableDir, boolean writable) {
    this.delegate = delegate;
    this.tableDir = tableDir.toAbsolutePath().normalize();
    this.writable = writable;
  }

  /** A RemappingFileIO that also creates and deletes files, at their mapped paths. */
  static RemappingFileIO forWriting(FileIO delegate, Path tableDir) {
    return new RemappingFileIO(delegate, tableDir, true);
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
    return cleanSegments(stripTrailingSlashes(path));
  }

  /** Drops "." segments and folds ".." into its parent, lexically, as Go's path.Clean does. */
  static String cleanSegments(String path) {
    boolean rooted = path.startsWith("/");
    ArrayDeque<String> out = new ArrayDeque<>();
    for (String seg : path.split("/")) {
      if (seg.isEmpty() || seg.equals(".")) {
        continue;
      }
      if (seg.equals("..") && !out.isEmpty() && !out.peekLast().equals("..")) {
        out.removeLast();
      } else if (!seg.equals("..") || !rooted) {
        out.addLast(seg);
      }
    }
    String joined = String.join("/", out);
    if (rooted) {
      return "/" + joined;
    }
    return joined.isEmpty() ? "." : joined;
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
    return spelled(delegate.newInputFile(map(path)), path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return spelled(delegate.newInputFile(map(path), length), path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    if (!writable) {
      throw new UnsupportedOperationException("read-only FileIO: " + path);
    }
    OutputFile out = delegate.newOutputFile(map(path));
    // Iceberg records a file by its OutputFile's location: the spelling, not the local path.
    return new OutputFile() {
      @Override
      public PositionOutputStream create() {
        return new HeldStream(out.create());
      }

      @Override
      public PositionOutputStream createOrOverwrite() {
        return new HeldStream(out.createOrOverwrite());
      }

      @Override
      public String location() {
        return path;
      }

      @Override
      public InputFile toInputFile() {
        return spelled(out.toInputFile(), path);
      }
    };
  }

  /**
   * A stream that holds the stream it writes to. Parquet unwraps Iceberg's Hadoop stream to the
   * Hadoop one below, after which Iceberg's is unreachable and its finalizer closes the file
   * mid-write; through this wrapper, which it cannot unwrap, the stream stays reachable.
   */
  private static final class HeldStream extends PositionOutputStream {
    private final PositionOutputStream out;

    HeldStream(PositionOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /** For writing, in returns location() as path, the way the table names it; else in itself. */
  private InputFile spelled(InputFile in, String path) {
    if (!writable) {
      return in;
    }
    return new InputFile() {
      @Override
      public long getLength() {
        return in.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        return in.newStream();
      }

      @Override
      public String location() {
        return path;
      }

      @Override
      public boolean exists() {
        return in.exists();
      }
    };
  }

  @Override
  public void deleteFile(String path) {
    if (!writable) {
      throw new UnsupportedOperationException("read-only FileIO: " + path);
    }
    delegate.deleteFile(map(path));
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
