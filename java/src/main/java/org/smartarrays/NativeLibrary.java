// Owns finding and loading libsmartarrays.so: an explicit override, the copy bundled in the jar,
// the build tree of a source checkout, then the dynamic linker's search path.
package org.smartarrays;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

final class NativeLibrary {
  /** System property naming the library file to load (wins over everything else). */
  static final String PATH_PROPERTY = "smartarrays.library";
  /** Environment variable naming the library file to load (used when the property is not set). */
  static final String PATH_ENV = "SMARTARRAYS_LIBRARY";

  private static final String FILE_NAME = "libsmartarrays.so";
  private static final String BUNDLED = "native/linux-x86_64/" + FILE_NAME;

  private static volatile String loadedFrom = "";

  private NativeLibrary() {}

  /** Where the library was loaded from (a path, or a name the dynamic linker resolved); "" before loading. */
  static String loadedFrom() {
    return loadedFrom;
  }

  /** The symbols of the loaded library; it stays loaded for the life of the process. */
  @SuppressWarnings("restricted") // loading the native library
  static SymbolLookup load() {
    List<String> tried = new ArrayList<>();
    String override = System.getProperty(PATH_PROPERTY);
    String origin = "system property " + PATH_PROPERTY;
    if (override == null || override.isEmpty()) {
      override = System.getenv(PATH_ENV);
      origin = "environment variable " + PATH_ENV;
    }
    if (override != null && !override.isEmpty()) {
      Path path = Path.of(override);
      if (!Files.isRegularFile(path)) {
        throw new UnsatisfiedLinkError(origin + " names " + path + ", which is not a file");
      }
      return lookup(path, path + " (" + origin + ")");
    }
    Path bundled = extractBundled(tried);
    if (bundled != null) return lookup(bundled, bundled + " (copy of the jar's bundled library)");
    Path built = findInBuildTree(tried);
    if (built != null) return lookup(built, built + " (build tree)");
    try {
      SymbolLookup lookup = SymbolLookup.libraryLookup(FILE_NAME, Arena.global());
      loadedFrom = FILE_NAME + " (dynamic linker search path)";
      return lookup;
    } catch (IllegalArgumentException e) {
      tried.add(FILE_NAME + " on the dynamic linker's search path");
      throw new UnsatisfiedLinkError("cannot find " + FILE_NAME + " (run `make build`, or set -D" + PATH_PROPERTY
          + "=/path/to/" + FILE_NAME + " or " + PATH_ENV + "); tried: " + String.join(", ", tried));
    }
  }

  @SuppressWarnings("restricted") // loading the native library
  private static SymbolLookup lookup(Path path, String description) {
    SymbolLookup lookup = SymbolLookup.libraryLookup(path, Arena.global());
    loadedFrom = description;
    return lookup;
  }

  // The jar's copy for linux-x86_64, extracted to a temporary file the loader can map.
  private static Path extractBundled(List<String> tried) {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      tried.add("no bundled copy for " + os + "-" + arch);
      return null;
    }
    try (InputStream in = NativeLibrary.class.getResourceAsStream(BUNDLED)) {
      if (in == null) {
        tried.add("bundled resource " + BUNDLED + " (absent)");
        return null;
      }
      Path file = Files.createTempFile("smartarrays-", ".so");
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    } catch (IOException e) {
      throw new UnsatisfiedLinkError("cannot extract the bundled " + FILE_NAME + ": " + e.getMessage());
    }
  }

  // build/lib/libsmartarrays.so in a parent of the classes' location or of the working directory.
  private static Path findInBuildTree(List<String> tried) {
    List<Path> starts = new ArrayList<>();
    try {
      var source = NativeLibrary.class.getProtectionDomain().getCodeSource();
      if (source != null) starts.add(Path.of(source.getLocation().toURI()).toAbsolutePath());
    } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
      tried.add("the classes' location (" + e.getMessage() + ")");
    }
    starts.add(Path.of("").toAbsolutePath());
    for (Path start : starts) {
      for (Path dir = start; dir != null; dir = dir.getParent()) {
        Path candidate = dir.resolve("build").resolve("lib").resolve(FILE_NAME);
        if (Files.isRegularFile(candidate)) return candidate;
      }
      tried.add("build/lib/" + FILE_NAME + " above " + start);
    }
    return null;
  }
}
