// Checks that every bit width round-trips through every way of making an array, and that all
// read paths (get, bulk decode, ranges, cursor, stream, bulk sum, zero-copy segment) agree.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RoundTripTest {
  // Not a multiple of 64, and more than one cursor batch.
  private static final int LENGTH = 3 * SmartArrayCursor.BATCH + 77;

  static IntStream widths() {
    return IntStream.rangeClosed(1, 64);
  }

  static long mask(int bits) {
    return bits == 64 ? -1L : (1L << bits) - 1;
  }

  /** Random values of varied size below 2^bits, with 0 and the maximum among them. */
  static long[] values(int bits, int length, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] v = new long[length];
    for (int i = 0; i < length; i++) v[i] = random.nextLong() >>> random.nextInt(64) & mask(bits);
    v[0] = 0;
    v[length / 2] = mask(bits);
    return v;
  }

  static long wrappingSum(long[] values, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) sum += values[i];
    return sum;
  }

  @ParameterizedTest
  @MethodSource("widths")
  void everyWidthRoundTripsAndEveryReadPathAgreesWithGet(int bits) {
    long[] values = values(bits, LENGTH, bits);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(bits))) {
      assertEquals(LENGTH, a.length());
      assertEquals(bits, a.bits());
      assertEquals(Placement.OS_DEFAULT, a.placement());
      long[] byGet = new long[LENGTH];
      for (int i = 0; i < LENGTH; i++) byGet[i] = a.get(i);
      assertArrayEquals(values, byGet, "get");
      assertArrayEquals(values, a.toArray(), "toArray");
      assertArrayEquals(Arrays.copyOfRange(values, 63, 2001), a.toArray(63, 2001), "toArray range");

      long[] decoded = new long[1000];
      a.decode(5, decoded, 100, 800);
      assertArrayEquals(Arrays.copyOfRange(values, 5, 805), Arrays.copyOfRange(decoded, 100, 900), "decode");
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment dst = arena.allocate(JAVA_LONG, 1500);
        a.decode(LENGTH - 1500, dst);
        assertArrayEquals(Arrays.copyOfRange(values, LENGTH - 1500, LENGTH), dst.toArray(JAVA_LONG), "decode segment");
      }

      assertEquals(wrappingSum(values, 0, LENGTH), a.sum(), "sum");
      assertEquals(wrappingSum(values, 1, LENGTH - 3), a.sum(1, LENGTH - 3), "sum range");
      assertEquals(0, a.sum(7, 7), "empty sum range");

      long[] scanned = new long[LENGTH];
      SmartArrayCursor cursor = a.cursor();
      for (int i = 0; cursor.hasNext(); i++) scanned[i] = cursor.nextLong();
      assertArrayEquals(values, scanned, "cursor");
      long[] batched = new long[LENGTH];
      SmartArrayCursor batches = a.cursor();
      int filled = 0;
      for (MemorySegment batch = batches.nextBatch(); batch.byteSize() > 0; batch = batches.nextBatch()) {
        assertTrue(batch.isReadOnly());
        for (long v : batch.toArray(JAVA_LONG)) batched[filled++] = v;
        assertEquals(filled, batches.position());
      }
      assertEquals(LENGTH, filled);
      assertArrayEquals(values, batched, "cursor batches");
      assertArrayEquals(values, a.stream().toArray(), "stream");
      assertArrayEquals(values, a.stream().parallel().toArray(), "parallel stream");
      assertEquals(wrappingSum(values, 0, LENGTH), a.stream().parallel().sum(), "parallel stream sum");

      if (bits == 64) {
        assertArrayEquals(values, a.asSegment().toArray(JAVA_LONG), "asSegment");
      } else if (bits == 32) {
        long[] viaSegment = LongStream.range(0, LENGTH)
            .map(i -> Integer.toUnsignedLong(a.asSegment().getAtIndex(JAVA_INT, i))).toArray();
        assertArrayEquals(values, viaSegment, "asSegment");
      } else {
        assertThrows(UnsupportedOperationException.class, a::asSegment);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("widths")
  void everyWayOfMakingAnArrayHoldsTheSameValues(int bits) {
    long[] values = values(bits, 1000, 1000 + bits);
    ArrayOptions options = ArrayOptions.defaults().withBits(bits);
    try (Arena arena = Arena.ofShared()) {
      MemorySegment native64 = arena.allocateFrom(JAVA_LONG, values);
      SmartArray fromSegment = SmartArray.fromSegment(arena, native64, options);
      SmartArray fromStream = SmartArray.fromStream(arena, Arrays.stream(values), options);
      SmartArray allocated = SmartArray.allocate(arena, values.length, options);
      for (int i = 0; i < values.length; i++) allocated.set(i, values[i]);
      for (SmartArray a : new SmartArray[] {fromSegment, fromStream, allocated}) {
        assertEquals(bits, a.bits());
        assertArrayEquals(values, a.toArray());
      }
    }
  }

  @Test
  void intsAreReadAsUnsigned() {
    int[] ints = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE};
    try (SmartArray a = SmartArray.fromInts(ints, ArrayOptions.defaults())) {
      assertEquals(32, a.bits());
      assertArrayEquals(new long[] {0, 1, 0xffff_ffffL, 0x8000_0000L, 0x7fff_ffffL}, a.toArray());
      assertEquals(0xffff_ffffL, Integer.toUnsignedLong(a.asSegment().getAtIndex(JAVA_INT, 2)));
    }
  }

  @Test
  void automaticBitsAreTheFewestThatHoldTheLargestValue() {
    for (long max : new long[] {0, 1, 2, 70_000, Long.MAX_VALUE, -1L}) {
      try (SmartArray a = SmartArray.fromLongs(new long[] {0, max, 1}, ArrayOptions.defaults())) {
        assertEquals(SmartArrays.minBits(max), a.bits(), "max " + Long.toUnsignedString(max));
        assertEquals(max, a.get(1));
      }
    }
    assertEquals(17, SmartArrays.minBits(70_000));
    assertEquals(64, SmartArrays.minBits(-1L));
  }

  @Test
  void emptyArraysWork() {
    try (SmartArray a = SmartArray.fromLongs(new long[0], ArrayOptions.defaults().withBits(7))) {
      assertEquals(0, a.length());
      assertEquals(0, a.sum());
      assertArrayEquals(new long[0], a.toArray());
      assertEquals(0, a.stream().count());
      assertEquals(false, a.cursor().hasNext());
    }
  }

  @Test
  void cursorBatchesAreWholeChunksAndFollowValueReads() {
    long[] values = values(33, LENGTH, 8);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(33))) {
      SmartArrayCursor c = a.cursor(10, LENGTH);
      for (int i = 10; i < 15; i++) assertEquals(values[i], c.nextLong());
      MemorySegment rest = c.nextBatch();
      assertArrayEquals(Arrays.copyOfRange(values, 15, SmartArrayCursor.BATCH), rest.toArray(JAVA_LONG),
          "the rest of the first batch, which ends on a chunk boundary");
      MemorySegment second = c.nextBatch();
      assertEquals(SmartArrayCursor.BATCH * Long.BYTES, second.byteSize());
      assertEquals(values[SmartArrayCursor.BATCH], second.getAtIndex(JAVA_LONG, 0));
      c.seek(LENGTH - 3);
      assertEquals(3 * Long.BYTES, c.nextBatch().byteSize());
      assertEquals(0, c.nextBatch().byteSize());
      assertEquals(false, c.hasNext());
    }
  }

  @Test
  void cursorSeeksAndCoversSubranges() {
    long[] values = values(33, LENGTH, 7);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(33))) {
      SmartArrayCursor c = a.cursor(100, 2100);
      assertEquals(100, c.position());
      assertEquals(2100, c.end());
      assertEquals(values[100], c.nextLong());
      c.seek(2000);
      long[] tail = new long[100];
      for (int i = 0; i < 100; i++) tail[i] = c.nextLong();
      assertArrayEquals(Arrays.copyOfRange(values, 2000, 2100), tail);
      assertEquals(false, c.hasNext());
      assertThrows(java.util.NoSuchElementException.class, c::nextLong);
      c.seek(5);
      assertEquals(values[5], c.nextLong());
      long[] rest = new long[2100 - 6];
      int[] k = {0};
      c.forEachRemaining((long x) -> rest[k[0]++] = x);
      assertArrayEquals(Arrays.copyOfRange(values, 6, 2100), rest);
      assertEquals(a, c.array());
    }
  }
}
