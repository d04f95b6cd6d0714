// Checks that the stream spliterator splits at chunk boundaries into parts that cover every value
// exactly once, in order, with exact sizes.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Spliterator;
import org.junit.jupiter.api.Test;

class SpliteratorTest {
  private static final int LENGTH = 100_003;

  // Splits s as deep as it goes, prefix first, into leaves.
  private static void splitAll(Spliterator.OfLong s, List<Spliterator.OfLong> leaves) {
    long size = s.estimateSize();
    Spliterator.OfLong prefix = s.trySplit();
    if (prefix == null) {
      leaves.add(s);
      return;
    }
    assertEquals(size, prefix.estimateSize() + s.estimateSize(), "sizes add up");
    splitAll(prefix, leaves);
    splitAll(s, leaves);
  }

  @Test
  void splitsCoverEveryValueOnceInOrder() {
    long[] values = RoundTripTest.values(21, LENGTH, 3);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(21))) {
      Spliterator.OfLong root = a.spliterator();
      assertTrue(root.hasCharacteristics(Spliterator.SIZED | Spliterator.SUBSIZED | Spliterator.ORDERED));
      List<Spliterator.OfLong> leaves = new ArrayList<>();
      splitAll(root, leaves);
      assertTrue(leaves.size() > 4, "splits into several parts");
      long[] seen = new long[LENGTH];
      int[] next = {0};
      for (int k = 0; k < leaves.size(); k++) {
        Spliterator.OfLong leaf = leaves.get(k);
        int start = next[0];
        if (k < leaves.size() - 1) assertEquals(0, start % 64, "parts start on chunk boundaries");
        assertTrue(leaf.tryAdvance((long v) -> seen[next[0]++] = v));
        leaf.forEachRemaining((long v) -> seen[next[0]++] = v);
        assertEquals(0, leaf.estimateSize());
      }
      assertEquals(LENGTH, next[0]);
      assertArrayEquals(values, seen);
    }
  }

  @Test
  void splittingAfterTraversalStartedKeepsTheRest() {
    long[] values = RoundTripTest.values(64, LENGTH, 4);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(64))) {
      Spliterator.OfLong s = a.spliterator();
      long[] seen = new long[LENGTH];
      int[] next = {0};
      for (int i = 0; i < 10; i++) s.tryAdvance((long v) -> seen[next[0]++] = v);
      Spliterator.OfLong prefix = s.trySplit();
      assertNotNull(prefix);
      prefix.forEachRemaining((long v) -> seen[next[0]++] = v);
      s.forEachRemaining((long v) -> seen[next[0]++] = v);
      assertArrayEquals(values, seen);
    }
  }
}
