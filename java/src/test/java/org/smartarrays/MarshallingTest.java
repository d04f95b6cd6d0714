// Checks the binding's own marshalling of Java strings and paths into the C ABI: whatever C would
// receive as something else than the caller wrote (a NUL character that ends the C string early, an
// unpaired surrogate that UTF-8 turns into '?', a path of another file system that names a local file)
// is an IllegalArgumentException naming the argument, and nothing is made, written or looked up.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class MarshallingTest {
  private static final Path GRAPHS = Path.of(System.getProperty("smartarrays.graphs", "../tests/data/graph"));

  @TempDir
  Path dir;

  // Expects an IllegalArgumentException whose message names what and contains part.
  private static void assertRefused(String what, String part, Executable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    assertTrue(e.getMessage().startsWith(what + " ") && e.getMessage().contains(part), e.getMessage());
  }

  private static SmartArray small() {
    return SmartArray.fromLongs(new long[] {1, 2, 3}, ArrayOptions.defaults());
  }

  @Test
  void aStoreNameWithANulOrALoneSurrogateIsRefusedNotCutShort() {
    Path path = dir.resolve("s.sa");
    try (SmartArray a = small()) {
      assertRefused("object name", "NUL character at index 2", () -> Store.write(path, Map.of("ab\0cd", a)));
      assertRefused("object name", "unpaired surrogate", () -> Store.write(path, Map.of("x\uD800", a)));
      assertFalse(Files.exists(path), "nothing written");
      Store.write(path, Map.of("x", a, "\u00e9\uD83D\uDE00", a));
      Store.append(path, Map.of("y", a));
      assertRefused("object name", "NUL character", () -> Store.append(path, Map.of("z\0", a)));
      try (Store store = Store.open(path)) {
        assertEquals(Set.of("x", "\u00e9\uD83D\uDE00", "y"), Set.copyOf(store.names()));
        assertRefused("name", "NUL character at index 1", () -> store.array("x\0junk"));
        assertRefused("name", "NUL character", () -> store.isArray("x\0junk"));
        assertRefused("name", "NUL character", () -> store.graph("x\0junk"));
        assertRefused("name", "unpaired surrogate", () -> store.array("\uDE00"));
        try (SmartArray unicode = store.array("\u00e9\uD83D\uDE00")) {
          assertEquals(6, unicode.sum());
        }
      }
    }
  }

  @Test
  void graphWordsWithANulAreRefusedNotCutShort() {
    Path tiny = GRAPHS.resolve("tiny.el");
    GraphOptions options = GraphOptions.defaults();
    assertRefused("format", "NUL character at index 2", () -> Graph.load(tiny, "el\0mtx", options));
    assertRefused("placement", "NUL character", () -> Graph.load(tiny, options.withPlacement("interleaved\0bogus")));
    assertRefused("bits", "NUL character", () -> Graph.load(tiny, options.withBits("edge=20\0edge=99")));
    try (Graph g = Graph.load(tiny, options)) {
      Path out = dir.resolve("out.txt");
      assertRefused("format", "NUL character", () -> g.save(out, "el\0junk"));
      assertFalse(Files.exists(out), "nothing written");
    }
  }

  @Test
  void aFakeTopologySpecWithANulIsRefusedNotCutShort() {
    assertRefused("spec", "NUL character at index 7", () -> Topology.setFake("nodes=2\0junk"));
    assertFalse(Topology.isFake());
    assertThrows(NullPointerException.class, () -> Topology.setFake(null));
  }

  @Test
  void pathsOfAnotherFileSystemAreRefusedNotTakenAsLocalFiles() throws IOException {
    Path local = dir.resolve("local");
    Files.createDirectory(local);
    try (SmartArray a = small(); Graph g = Graph.load(GRAPHS.resolve("tiny.el"), GraphOptions.defaults());
        FileSystem zip = FileSystems.newFileSystem(dir.resolve("archive.zip"), Map.of("create", "true"))) {
      // The zip path spells the local directory: taken as a string, it would name a local file there.
      Path store = zip.getPath(local.resolve("s.sa").toString());
      Path graph = zip.getPath(local.resolve("g.el").toString());
      assertRefused("path", "not on the default file system", () -> Store.write(store, Map.of("a", a)));
      assertRefused("path", "not on the default file system", () -> Store.append(store, Map.of("a", a)));
      assertRefused("path", "not on the default file system", () -> Store.open(store));
      assertRefused("path", "not on the default file system", () -> Store.verify(store, false));
      assertRefused("path", "not on the default file system", () -> Store.sendFile(1, store));
      assertRefused("path", "not on the default file system", () -> g.save(graph, null));
      assertRefused("path", "not on the default file system", () -> Graph.load(graph, GraphOptions.defaults()));
      assertRefused("sgFile", "not on the default file system", () -> PullPart.sgVertices(graph));
      assertRefused("sgFile", "not on the default file system", () -> PullPart.read(graph, 0, 1));
      try (var files = Files.list(local)) {
        assertEquals(List.of(), files.toList(), "nothing written to the local directory");
      }
    }
  }
}
