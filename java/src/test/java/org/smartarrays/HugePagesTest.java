// Checks the huge-page modes from Java: names, what an array reports, and the errors.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class HugePagesTest {
  private static final long MIB = 1L << 20;

  @Test
  void namesMatchTheOtherSurfaces() {
    assertEquals(HugePages.PAGES_2M, HugePages.parse("2m"));
    assertEquals(HugePages.AUTO, HugePages.parse("AUTO"));
    assertEquals("1G", HugePages.PAGES_1G.label());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HugePages.parse("yes"));
    assertEquals("unknown huge_pages mode 'yes' (expected one of: off, on, auto, 2M, 1G)", e.getMessage());
  }

  @Test
  void defaultIsAutoAndLargeArraysGetHugePages() {
    assertEquals(HugePages.AUTO, ArrayOptions.defaults().hugePages());
    try (SmartArray a = SmartArray.allocate(MIB, ArrayOptions.defaults().withBits(64))) {
      assertEquals(HugePages.AUTO, a.hugePages());
      long huge = a.hugePageBytes(0);
      assertTrue(huge >= 0 && huge <= a.memoryBytes());
      assertEquals(0, huge % (2 * MIB));
      if (!SmartArrays.machineFactsJson().contains("\"thp_enabled\":\"never\"")) {
        assertTrue(huge > 0, "an 8 MiB array is backed by transparent huge pages");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = HugePages.class, names = {"OFF", "ON", "AUTO"})
  void transparentModesKeepValues(HugePages mode) {
    long[] values = RoundTripTest.values(20, 200_000, 3);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(20).withHugePages(mode))) {
      assertEquals(mode, a.hugePages());
      assertArrayEquals(values, a.toArray());
      if (mode == HugePages.OFF) assertEquals(0, a.hugePageBytes(0));
    }
  }

  @Test
  void badReplicaIsOutOfBounds() {
    try (SmartArray a = SmartArray.allocate(10, ArrayOptions.defaults().withBits(8))) {
      IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> a.hugePageBytes(1));
      assertTrue(e.getMessage().contains("replica 1"), e.getMessage());
    }
  }

  @Test
  void nullModeIsRejected() {
    assertThrows(NullPointerException.class, () -> ArrayOptions.defaults().withHugePages((HugePages) null));
  }

  @Test
  void anEmptyHugetlbPoolIsAClearError() {
    String facts = SmartArrays.machineFactsJson();
    boolean poolHasPages = facts.matches(".*\"page_bytes\":2097152,\"total_pages\":\\d+,\"free_pages\":[1-9].*");
    ArrayOptions options = ArrayOptions.defaults().withBits(8).withHugePages(HugePages.PAGES_2M);
    if (poolHasPages) {
      try (SmartArray a = SmartArray.allocate(10, options)) {
        assertEquals(2 * MIB, a.hugePageBytes(0));
      }
      return;
    }
    SmartArrayException e = assertThrows(SmartArrayException.class, () -> SmartArray.allocate(10, options));
    assertTrue(e.getMessage().contains("hugetlb pages"), e.getMessage());
  }
}
