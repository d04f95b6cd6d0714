// Checks the Java collections over the C ABI: group-by aggregates, hash join count and pairs, the
// Index, HashMap and HashSet, and the errors mapped to the binding's exceptions with the native message.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CollectionsTest {
  private static final ArrayOptions DEFAULTS = ArrayOptions.defaults();

  @Test
  void groupByAggregates() {
    try (SmartArray keys = SmartArray.fromLongs(new long[] {3, 1, 3, 0, -1, 3}, DEFAULTS);
         SmartArray values = SmartArray.fromLongs(new long[] {9, 4, 1, 7, 2, 5}, DEFAULTS)) {
      try (Collections.Pair median = Collections.groupBy(keys, values, Collections.Aggregate.MEDIAN, DEFAULTS);
           Collections.Pair count = Collections.groupBy(keys, values, Collections.Aggregate.COUNT, DEFAULTS)) {
        assertArrayEquals(new long[] {0, 1, 3, -1}, median.first().toArray());
        assertArrayEquals(new long[] {7, 4, 5, 2}, median.second().toArray());
        assertArrayEquals(new long[] {1, 1, 3, 1}, count.second().toArray());
      }
      try (SmartArray shorter = SmartArray.fromLongs(new long[] {1}, DEFAULTS)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Collections.groupBy(keys, shorter, Collections.Aggregate.SUM, DEFAULTS));
        assertTrue(e.getMessage().contains("keys and values differ in length (6 and 1)"), e.getMessage());
      }
    }
  }

  @Test
  void joinPairsBeyondTheMemoryLimitAreRefusedBeforeAnyIsMade() {
    long[] ones = new long[1_000_000];
    java.util.Arrays.fill(ones, 1);
    try (SmartArray a = SmartArray.fromLongs(ones, DEFAULTS)) {
      assertEquals(1_000_000_000_000L, Collections.hashJoinCount(a, a, DEFAULTS));
      SmartArrayException e = assertThrows(SmartArrayException.class, () -> Collections.hashJoin(a, a, DEFAULTS));
      assertEquals(SmartArrayException.Reason.OUT_OF_MEMORY, e.reason());
      assertTrue(e.getMessage().contains("hash join: 1000000000000 pairs need at least 29.1 TiB (32 bytes a pair)"),
          e.getMessage());
    }
  }

  @Test
  void joinsAndIndex() {
    try (SmartArray build = SmartArray.fromLongs(new long[] {5, 7, 5, 0}, DEFAULTS);
         SmartArray probe = SmartArray.fromLongs(new long[] {5, 1, 7, 0, 5}, DEFAULTS)) {
      assertEquals(6, Collections.hashJoinCount(build, probe, DEFAULTS));
      try (Collections.Pair pairs = Collections.hashJoin(build, probe, DEFAULTS)) {
        assertArrayEquals(new long[] {0, 0, 1, 2, 2, 3}, pairs.first().toArray());
        assertArrayEquals(new long[] {0, 4, 2, 0, 4, 3}, pairs.second().toArray());
      }
      try (Collections.Index index = new Collections.Index(build, DEFAULTS)) {
        assertEquals(4, index.size());
        assertTrue(index.memoryBytes() > 0);
        assertArrayEquals(new long[] {2, 0, 1}, index.lookup(new long[] {5, 6, 0}));
        assertArrayEquals(new long[0], index.lookup(new long[0]));
        assertEquals(6, index.countMatches(probe));
      }
      assertThrows(IllegalArgumentException.class, () -> new Collections.Index(build, ArrayOptions.defaults().withBits(3)));
    }
  }

  @Test
  void hashMapAndSet() {
    try (SmartArray keys = SmartArray.fromLongs(new long[] {0, -1, 7, 7, 42}, DEFAULTS);
         SmartArray values = SmartArray.fromLongs(new long[] {10, -2, 1, 2, 0}, DEFAULTS)) {
      try (Collections.HashMap map = new Collections.HashMap(keys, values, DEFAULTS)) {
        assertEquals(4, map.size());
        assertTrue(map.memoryBytes() > 0);
        boolean[] found = new boolean[5];
        assertArrayEquals(new long[] {10, -2, 2, 0, 99}, map.get(new long[] {0, -1, 7, 42, 3}, 99, found));
        assertArrayEquals(new boolean[] {true, true, true, true, false}, found);
        assertArrayEquals(new long[0], map.get(new long[0], 99));
        assertThrows(IllegalArgumentException.class, () -> map.get(new long[] {1}, 0, new boolean[2]));
      }
      try (Collections.HashSet set = new Collections.HashSet(keys, DEFAULTS)) {
        assertEquals(4, set.size());
        assertArrayEquals(new boolean[] {true, false, true}, set.contains(new long[] {-1, -2, 42}));
        assertEquals(5, set.countContained(keys));
        assertFalse(set.contains(new long[] {1})[0]);
      }
      try (SmartArray shorter = SmartArray.fromLongs(new long[] {1}, DEFAULTS)) {
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> new Collections.HashMap(keys, shorter, DEFAULTS));
        assertTrue(e.getMessage().contains("hash map: keys and values differ in length (5 and 1)"), e.getMessage());
      }
      assertThrows(IllegalArgumentException.class, () -> new Collections.HashSet(keys, ArrayOptions.defaults().withBits(3)));
      // Closing twice does nothing, as for every other native handle.
      Collections.HashMap map = new Collections.HashMap(keys, values, DEFAULTS);
      map.close();
      map.close();
      Collections.HashSet set = new Collections.HashSet(keys, DEFAULTS);
      set.close();
      set.close();
      Collections.Index index = new Collections.Index(keys, DEFAULTS);
      index.close();
      index.close();
    }
  }
}
