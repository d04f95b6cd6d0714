// Checks Java parallel loops over the native runtime: every index runs exactly once, reductions
// match, body exceptions propagate, nested loops run inline, and workers are pinned to their nodes.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ParallelLoopTest {
  @ParameterizedTest
  @CsvSource({"0, 1000000, 0", "3, 1000003, 0", "17, 70001, 64", "5, 6, 0", "0, 100000, 1", "9, 9, 0"})
  void everyIndexRunsExactlyOnce(long lo, long hi, long batch) {
    AtomicIntegerArray runs = new AtomicIntegerArray((int) hi);
    AtomicInteger batches = new AtomicInteger();
    ParallelLoop.forRange(lo, hi, batch, (l, h) -> {
      assertTrue(lo <= l && l < h && h <= hi, "batch [" + l + ", " + h + ") inside the range");
      batches.incrementAndGet();
      for (long i = l; i < h; i++) runs.incrementAndGet((int) i);
    });
    for (int i = 0; i < hi; i++) assertEquals(i < lo ? 0 : 1, runs.get(i), "index " + i);
    if (hi > lo) assertTrue(batches.get() >= 1);
  }

  @Test
  void defaultBatchesAreLargeForJavaBodiesYetSeveralPerWorker() {
    for (long span : new long[] {1L << 22, 4096L * ParallelLoop.workers(), 100}) {
      ConcurrentHashMap<Long, Long> sizes = new ConcurrentHashMap<>();
      ParallelLoop.forRange(0, span, (l, h) -> sizes.put(l, h - l));
      long largest = sizes.values().stream().mapToLong(Long::longValue).max().orElseThrow();
      long expected = Math.max(64, Math.min(ParallelLoop.JAVA_MAX_BATCH,
          span / (ParallelLoop.workers() * ParallelLoop.BATCHES_PER_WORKER)));
      assertEquals(Math.min(span, (expected + 63) / 64 * 64), largest, "the largest batch of " + span + " indices");
      assertEquals(span, sizes.values().stream().mapToLong(Long::longValue).sum(), "the batches tile the range");
    }
  }

  @Test
  void reduceMatchesTheSequentialSum() {
    long n = 5_000_000;
    long expected = n * (n - 1) / 2;
    long sum = ParallelLoop.reduce(0, n, 0, (l, h) -> {
      long s = 0;
      for (long i = l; i < h; i++) s += i;
      return s;
    }, Long::sum);
    assertEquals(expected, sum);
    assertEquals(n - 1, ParallelLoop.reduce(0, n, Long.MIN_VALUE, (l, h) -> h - 1, Math::max));
    assertEquals(0, ParallelLoop.reduce(4, 4, 0, (l, h) -> 1, Long::sum), "an empty range runs no body");
  }

  @Test
  void parallelAggregationOfSmartArraysMatchesTheirSums() {
    long[] v1 = RoundTripTest.values(33, 300_000, 1);
    long[] v2 = RoundTripTest.values(10, 300_000, 2);
    try (SmartArray a1 = SmartArray.fromLongs(v1, ArrayOptions.defaults().withBits(33));
         SmartArray a2 = SmartArray.fromLongs(v2, ArrayOptions.defaults().withBits(10))) {
      long sum = ParallelLoop.reduce(0, a1.length(), 0, (l, h) -> a1.sum(l, h) + a2.sum(l, h), Long::sum);
      assertEquals(a1.sum() + a2.sum(), sum);
    }
  }

  @Test
  void theFirstBodyExceptionPropagatesAsThrown() {
    IllegalStateException boom = new IllegalStateException("boom");
    AtomicLong after = new AtomicLong();
    long batches = 1L << 24;
    IllegalStateException thrown = assertThrows(IllegalStateException.class, () ->
        ParallelLoop.forRange(0, batches * 64, 64, (l, h) -> {
          if (l <= 640 && 640 < h) throw boom;
          after.incrementAndGet();
        }));
    assertSame(boom, thrown);
    assertTrue(after.get() < batches - 1, "the loop stopped early");
    AssertionError error = new AssertionError("an Error");
    assertSame(error, assertThrows(AssertionError.class, () -> ParallelLoop.forRange(0, 100, (l, h) -> {
      throw error;
    })));
    long sum = ParallelLoop.reduce(0, 1000, 0, (l, h) -> h - l, Long::sum);
    assertEquals(1000, sum, "the pool still works after failures");
  }

  @Test
  void nestedLoopsRunInlineOnTheWorker() {
    AtomicIntegerArray runs = new AtomicIntegerArray(64 * 100);
    ParallelLoop.forRange(0, 64, 1, (l, h) -> {
      int worker = ParallelLoop.currentWorker();
      assertTrue(worker >= 0);
      for (long outer = l; outer < h; outer++) {
        long base = outer * 100;
        ParallelLoop.forRange(base, base + 100, (il, ih) -> {
          assertEquals(worker, ParallelLoop.currentWorker(), "inline on the same worker");
          for (long i = il; i < ih; i++) runs.incrementAndGet((int) i);
        });
      }
    });
    for (int i = 0; i < runs.length(); i++) assertEquals(1, runs.get(i));
    assertEquals(-1, ParallelLoop.currentWorker());
  }

  @Test
  void workersRunPinnedToTheirPlannedNodes() {
    int[] nodes = ParallelLoop.workerNodes();
    assertEquals(ParallelLoop.workers(), nodes.length);
    ConcurrentHashMap<Integer, Integer> nodeOfWorker = new ConcurrentHashMap<>();
    ParallelLoop.forRange(0, 1 << 20, 64, (l, h) ->
        nodeOfWorker.put(ParallelLoop.currentWorker(), Topology.currentNode()));
    nodeOfWorker.forEach((worker, node) -> assertEquals(nodes[worker], node, "worker " + worker));
  }

  @Test
  void badRangesAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> ParallelLoop.forRange(5, 4, (l, h) -> {}));
    assertThrows(IllegalArgumentException.class, () -> ParallelLoop.forRange(-1, 4, (l, h) -> {}));
    assertThrows(IllegalArgumentException.class, () -> ParallelLoop.forRange(0, 4, -1, (l, h) -> {}));
    assertThrows(NullPointerException.class, () -> ParallelLoop.forRange(0, 4, null));
  }
}
