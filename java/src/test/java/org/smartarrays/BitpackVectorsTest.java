// Checks the binding against the shared test vectors (tests/data/bitpack_vectors.txt, format in
// docs/bit-layout.md): packing gives exactly the stored words, and every read path gives back the values.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class BitpackVectorsTest {
  record Vector(int bits, long[] values, long[] words) {
    @Override
    public String toString() {
      return bits + " bits, " + values.length + " values";
    }
  }

  static List<Vector> vectors() throws IOException {
    Path file = Path.of(System.getProperty("smartarrays.vectors", "../tests/data/bitpack_vectors.txt"));
    List<Vector> result = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (line.isEmpty() || line.startsWith("#")) continue;
      String[] f = line.split(" ");
      int bits = Integer.parseInt(f[0]);
      int n = Integer.parseInt(f[1]);
      int m = (n + 63) / 64 * bits;
      assertEquals(2 + n + m, f.length, "fields of: " + line);
      long[] values = new long[n];
      for (int i = 0; i < n; i++) values[i] = Long.parseUnsignedLong(f[2 + i]);
      long[] words = new long[m];
      for (int k = 0; k < m; k++) words[k] = Long.parseUnsignedLong(f[2 + n + k], 16);
      result.add(new Vector(bits, values, words));
    }
    return result;
  }

  static Stream<Vector> cases() throws IOException {
    return vectors().stream();
  }

  @Test
  void fileCoversEveryBitWidth() throws IOException {
    TreeSet<Integer> widths = new TreeSet<>();
    for (Vector v : vectors()) widths.add(v.bits());
    assertEquals(64, widths.size());
    assertEquals(1, widths.first());
    assertEquals(64, widths.last());
  }

  @ParameterizedTest
  @MethodSource("cases")
  void packingGivesTheStoredWords(Vector v) {
    try (SmartArray a = SmartArray.fromLongs(v.values(), ArrayOptions.defaults().withBits(v.bits()))) {
      assertEquals(v.bits(), a.bits());
      assertArrayEquals(v.words(), a.packedWords(0).toArray(JAVA_LONG));
    }
  }

  @ParameterizedTest
  @MethodSource("cases")
  void settingEachValueGivesTheStoredWords(Vector v) {
    try (SmartArray a = SmartArray.allocate(v.values().length, ArrayOptions.defaults().withBits(v.bits()))) {
      for (int i = 0; i < v.values().length; i++) a.set(i, v.values()[i]);
      assertArrayEquals(v.words(), a.packedWords(0).toArray(JAVA_LONG));
    }
  }

  @ParameterizedTest
  @MethodSource("cases")
  void everyReadPathGivesBackTheValues(Vector v) {
    long[] values = v.values();
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(v.bits()))) {
      long[] got = new long[values.length];
      for (int i = 0; i < values.length; i++) got[i] = a.get(i);
      assertArrayEquals(values, got, "get");
      assertArrayEquals(values, a.toArray(), "toArray");
      assertArrayEquals(values, a.stream().toArray(), "stream");
      SmartArrayCursor c = a.cursor();
      long[] scanned = new long[values.length];
      for (int i = 0; c.hasNext(); i++) scanned[i] = c.nextLong();
      assertArrayEquals(values, scanned, "cursor");
      assertEquals(Arrays.stream(values).sum(), a.sum(), "sum");
    }
  }
}
