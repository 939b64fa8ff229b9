package io.iceflight.javaref;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Picks a table's current metadata file.
 *
 * <p>With {@code version-hint.text} (or {@code version-hint.txt}) holding N: take version N, then
 * N+1, N+2, ... while that version's file exists. Without a usable hint: the highest version among
 * {@code vN.metadata.json}, {@code vN.gz.metadata.json}, {@code vN.metadata.json.gz} and {@code
 * NNNNN-<uuid>.metadata.json}.
 */
final class MetadataLocator {
  private MetadataLocator() {}

  static Path currentMetadata(Path metadataDir) throws IOException {
    Integer hinted = readHint(metadataDir);
    if (hinted != null) {
      Path file = versionFile(metadataDir, hinted);
      if (file != null) {
        int n = hinted;
        Path next;
        while ((next = versionFile(metadataDir, n + 1)) != null) {
          file = next;
          n++;
        }
        return file;
      }
    }
    return highest(metadataDir);
  }

  private static Integer readHint(Path metadataDir) throws IOException {
    for (String name : List.of("version-hint.text", "version-hint.txt")) {
      Path hint = metadataDir.resolve(name);
      if (Files.isRegularFile(hint)) {
        String text = new String(Files.readAllBytes(hint), StandardCharsets.UTF_8).trim();
        try {
          return Integer.parseInt(text);
        } catch (NumberFormatException e) {
          return null;
        }
      }
    }
    return null;
  }

  private static Path versionFile(Path metadataDir, int version) {
    for (String name :
        List.of(
            "v" + version + ".metadata.json",
            "v" + version + ".gz.metadata.json",
            "v" + version + ".metadata.json.gz")) {
      Path p = metadataDir.resolve(name);
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    return null;
  }

  /** The version number of a metadata file name, or -1 when it is not one. */
  static long versionOf(String name) {
    if (!name.endsWith(".metadata.json") && !name.endsWith(".metadata.json.gz")) {
      return -1;
    }
    String digits;
    if (name.startsWith("v")) {
      int end = 1;
      while (end < name.length() && Character.isDigit(name.charAt(end))) {
        end++;
      }
      digits = name.substring(1, end);
    } else {
      int dash = name.indexOf('-');
      digits = dash < 0 ? "" : name.substring(0, dash);
    }
    if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Path highest(Path metadataDir) throws IOException {
    List<Path> candidates;
    try (Stream<Path> list = Files.list(metadataDir)) {
      candidates =
          list.filter(Files::isRegularFile)
              .filter(p -> versionOf(p.getFileName().toString()) >= 0)
              .collect(Collectors.toList());
    }
    Path best = null;
    long bestVersion = -1;
    for (Path p : candidates) {
      String name = p.getFileName().toString();
      long v = versionOf(name);
      if (v > bestVersion
          || (v == bestVersion && name.compareTo(best.getFileName().toString()) > 0)) {
        best = p;
        bestVersion = v;
      }
    }
    if (best == null) {
      throw new FileNotFoundException("no metadata json file in " + metadataDir);
    }
    return best;
  }
}
