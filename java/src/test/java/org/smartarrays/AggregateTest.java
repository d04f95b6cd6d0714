// Checks the C++-driven aggregation (sa_array_aggregate) from Java against the Java-driven one and a plain loop.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AggregateTest {
  @Test
  void nativeAggregationEqualsTheJavaDrivenOneAndAPlainLoop() {
    for (int bits : new int[] {3, 32, 64}) {
      long[] v1 = RoundTripTest.values(bits, 50_000, 1);
      long[] v2 = RoundTripTest.values(bits, 50_000, 2);
      long expected = 0;
      for (int i = 0; i < v1.length; i++) expected += v1[i] + v2[i];
      try (SmartArray a1 = SmartArray.fromLongs(v1, ArrayOptions.defaults().withBits(bits));
           SmartArray a2 = SmartArray.fromLongs(v2, ArrayOptions.defaults().withBits(bits))) {
        assertEquals(expected, SmartArrays.aggregate(a1, a2));
        long javaDriven = ParallelLoop.reduce(0, v1.length, 0, (lo, hi) -> a1.sum(lo, hi) + a2.sum(lo, hi), Long::sum);
        assertEquals(expected, javaDriven);
      }
    }
  }

  @Test
  void lengthsThatDifferAndClosedArraysAreRefused() {
    try (SmartArray a = SmartArray.fromLongs(new long[] {1, 2, 3}, ArrayOptions.defaults());
         SmartArray b = SmartArray.fromLongs(new long[] {1, 2}, ArrayOptions.defaults())) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SmartArrays.aggregate(a, b));
      assertTrue(e.getMessage().contains("differ in length"), e.getMessage());
      assertThrows(NullPointerException.class, () -> SmartArrays.aggregate(a, null));
    }
    SmartArray closed = SmartArray.fromLongs(new long[] {1}, ArrayOptions.defaults());
    closed.close();
    assertThrows(IllegalStateException.class, () -> SmartArrays.aggregate(closed, closed));
  }
}
