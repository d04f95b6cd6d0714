// Checks live re-layout from Java: every placement and width keeps every value, pinned arrays keep
// their version and are read-only, errors leave the version alone, and two reader threads read only
// right values while the array is re-laid out again and again.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LiveArrayTest {
  private static final long[] VALUES = values(20_000);

  private static long[] values(int n) {
    long[] v = new long[n];
    for (int i = 0; i < n; i++) v[i] = (i * 7919L) % 3001;  // 12 bits
    return v;
  }

  @AfterEach
  void restoreTheRealTopology() {
    Topology.setFake("");
  }

  @ParameterizedTest
  @EnumSource(value = Placement.class, names = "AUTO", mode = EnumSource.Mode.EXCLUDE)
  void relayoutKeepsEveryValueInEveryPlacementAndWidth(Placement placement) {
    Topology.setFake("nodes=2");
    try (LiveArray live = LiveArray.fromLongs(VALUES, ArrayOptions.defaults());
         SmartArray first = live.pin()) {
      long version = 0;
      for (int bits : new int[] {0, 13, 64}) {
        assertEquals(++version, live.relayout(PlacementTest.options(placement).withBits(bits)));
        try (SmartArray now = live.pin()) {
          assertEquals(placement, now.placement());
          assertEquals(bits == 0 ? 12 : bits, now.bits());
          assertArrayEquals(VALUES, now.toArray());
          assertThrows(IllegalArgumentException.class, () -> now.set(0, 1));
        }
      }
      assertEquals(version, live.version());
      assertEquals(VALUES.length, live.length());
      assertEquals(12, first.bits());
      assertArrayEquals(VALUES, first.toArray());
    }
  }

  @Test
  void errorsLeaveTheVersionAndAPinnedArrayOutlivesItsLiveArray() {
    LiveArray live = LiveArray.fromInts(new int[] {1, 4000, 7}, ArrayOptions.defaults());
    IllegalArgumentException tooNarrow =
        assertThrows(IllegalArgumentException.class, () -> live.relayout(ArrayOptions.defaults().withBits(11)));
    assertTrue(tooNarrow.getMessage().contains("needs 12 bits"), tooNarrow.getMessage());
    assertThrows(IllegalArgumentException.class, () -> live.relayout(ArrayOptions.singleNode(4096)));
    assertThrows(NullPointerException.class, () -> live.relayout(null));
    assertEquals(0, live.version());
    SmartArray pinned = live.pin();
    live.close();
    live.close();
    assertThrows(IllegalStateException.class, live::version);
    assertArrayEquals(new long[] {1, 4000, 7}, pinned.toArray());
    pinned.close();
    assertThrows(IllegalArgumentException.class,
        () -> LiveArray.fromLongs(new long[] {5}, ArrayOptions.defaults().withBits(2)));
  }

  @Test
  void anExistingArrayBecomesVersionZeroAndIsTakenOver() {
    Topology.setFake("nodes=2");
    SmartArray array = SmartArray.fromLongs(VALUES, ArrayOptions.replicated().withBits(20));
    try (LiveArray live = LiveArray.of(array)) {
      assertThrows(IllegalStateException.class, () -> array.get(0));
      assertThrows(IllegalStateException.class, array::toArray);
      assertTrue(array.toString().contains("freed"), array.toString());
      array.close();
      assertEquals(VALUES.length, live.length());
      try (SmartArray v0 = live.pin()) {
        assertEquals(Placement.REPLICATED, v0.placement());
        assertEquals(20, v0.bits());
        assertArrayEquals(VALUES, v0.toArray());
      }
      assertEquals(1, live.relayout(ArrayOptions.partitioned().withBits(0)));
      try (SmartArray v1 = live.pin()) {
        assertEquals(12, v1.bits());
        assertArrayEquals(VALUES, v1.toArray());
      }
    }
  }

  @Test
  void arraysALiveArrayCannotTakeAreRefusedAndLeftAsTheyWere() {
    Topology.setFake("nodes=2");
    try (SmartArray primary = SmartArray.fromLongs(VALUES, ArrayOptions.replicated().withWriteMode(WriteMode.PRIMARY))) {
      primary.set(3, 99);
      IllegalArgumentException unsynced = assertThrows(IllegalArgumentException.class, () -> LiveArray.of(primary));
      assertTrue(unsynced.getMessage().startsWith("sa_live_create: ") && unsynced.getMessage().contains("unsynced writes"),
          unsynced.getMessage());
      primary.sync();  // still open, its write still there to copy out
      assertEquals(99, primary.get(3));
      try (LiveArray live = LiveArray.of(primary); SmartArray v0 = live.pin()) {
        assertEquals(99, v0.get(3));
        IllegalArgumentException readOnly = assertThrows(IllegalArgumentException.class, () -> LiveArray.of(v0));
        assertTrue(readOnly.getMessage().contains("read-only"), readOnly.getMessage());
        assertEquals(99, v0.get(3));
      }
    }
    try (Arena arena = Arena.ofShared()) {
      SmartArray inArena = SmartArray.fromLongs(arena, VALUES, ArrayOptions.defaults());
      IllegalArgumentException arenaOwned = assertThrows(IllegalArgumentException.class, () -> LiveArray.of(inArena));
      assertTrue(arenaOwned.getMessage().contains("arena"), arenaOwned.getMessage());
      assertArrayEquals(VALUES, inArena.toArray());
    }
    assertThrows(NullPointerException.class, () -> LiveArray.of(null));
    SmartArray closed = SmartArray.fromLongs(VALUES, ArrayOptions.defaults());
    closed.close();
    assertThrows(IllegalStateException.class, () -> LiveArray.of(closed));
  }

  @Test
  void readersSeeOnlyRightValuesDuringRelayouts() throws InterruptedException {
    Topology.setFake("nodes=2");
    try (LiveArray live = LiveArray.fromLongs(VALUES, ArrayOptions.defaults())) {
      AtomicBoolean done = new AtomicBoolean();
      AtomicLong wrong = new AtomicLong();
      CountDownLatch reading = new CountDownLatch(2);
      Runnable reader = () -> {
        boolean first = true;
        while (!done.get()) {
          try (SmartArray snapshot = live.pin()) {
            long[] got = snapshot.toArray();
            for (int i = 0; i < got.length; i++) {
              if (got[i] != VALUES[i]) wrong.incrementAndGet();
            }
          }
          if (first) {
            reading.countDown();
            first = false;
          }
        }
      };
      Thread a = new Thread(reader);
      Thread b = new Thread(reader);
      a.start();
      b.start();
      reading.await();
      Placement[] placements = {Placement.PARTITIONED, Placement.REPLICATED, Placement.INTERLEAVED, Placement.OS_DEFAULT};
      int[] widths = {0, 64, 17};
      for (int round = 0; round < 12; round++) {
        live.relayout(PlacementTest.options(placements[round % 4]).withBits(widths[round % 3]));
      }
      done.set(true);
      a.join();
      b.join();
      assertEquals(0, wrong.get());
      assertEquals(12, live.version());
    }
  }
}
