// Checks Placement.AUTO and auto bits with access hints: the adaptive layer chooses, the array says
// what it chose and why, and the values equal those of an explicitly configured array.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AdaptTest {
  @Test
  void anAutoArrayEqualsTheExplicitOneValueForValue() {
    long[] values = new long[100_000];
    for (int i = 0; i < values.length; i++) {
      values[i] = (i * 7919L) % 5000;
    }
    ArrayOptions options = ArrayOptions.auto().withHints(new AccessHints(true, AccessPattern.SEQUENTIAL, 10, 0));
    try (SmartArray chosen = SmartArray.fromLongs(values, options)) {
      assertTrue(chosen.bits() == 13 || chosen.bits() == 64, "bits " + chosen.bits());
      assertNotEquals(Placement.AUTO, chosen.placement());
      String json = chosen.decisionJson();
      assertTrue(json.contains("\"explanation\"") && json.contains("\"predicted_s\""), json);
      assertTrue(json.contains("\"threads\"") && json.contains("\"pinning\""), json);
      ArrayOptions same = ArrayOptions.defaults().withBits(chosen.bits()).withHugePages(chosen.hugePages());
      try (SmartArray explicit = SmartArray.fromLongs(values, same)) {
        for (int i = 0; i < values.length; i++) {
          assertEquals(explicit.get(i), chosen.get(i));
          assertEquals(values[i], chosen.get(i));
        }
        assertEquals("null", explicit.decisionJson());
      }
    }
  }

  @Test
  void autoBitsAloneKeepsThePlacement() {
    int[] values = {1, 2, 3, 1000};
    try (SmartArray a = SmartArray.fromInts(values, ArrayOptions.interleaved().withAutoBits())) {
      assertEquals(Placement.INTERLEAVED, a.placement());
      assertTrue(a.bits() == 10 || a.bits() == 64);
    }
  }

  @Test
  void badHintsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new AccessHints(true, AccessPattern.RANDOM, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new AccessHints(true, AccessPattern.RANDOM, 1, -1));
    assertThrows(NullPointerException.class, () -> new AccessHints(true, null, 1, 0));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SmartArray.allocate(10, ArrayOptions.auto()));
    assertTrue(e.getMessage().contains("SA_AUTO"), e.getMessage());
  }
}
