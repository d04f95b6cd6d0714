// Checks the caller-driven PageRank over the C ABI: Java runs the iterations, each one native pull
// step over a graph's own arrays (Graph.pagerankStep) or over parts (PullPart.step) on off-heap
// segments read and written in place, and gets Graph.pagerank's ranks, iteration counts and
// differences for every variant and dangling rule; bad segments, options and counts are errors with
// the Java or native message; use after close is refused.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PageRankStepTest {
  /** One step over some vertices: a graph's, or parts' that together cover the graph. */
  private interface Stepper {
    PageRankTotals step(MemorySegment contributions, MemorySegment ranks, double dangling, MemorySegment newRanks,
        MemorySegment newContributions);
  }

  /** How a run ended: the ranks and the last step's iteration and difference. */
  private record Run(double[] ranks, int iterations, double difference) {}

  // Iterates step from the start already in ranks and shares until the difference drops below the
  // tolerance or the iteration cap, swapping the segments: what a Java driver of PageRank does. In
  // place, the ranks and contributions are overwritten (newRanks = ranks, newContributions =
  // contributions) and nothing swaps.
  private static Run drive(PageRankOptions options, Stepper step, long danglingVertices, Arena arena, MemorySegment ranks,
      MemorySegment shares, boolean inPlace) {
    long n = ranks.byteSize() / Double.BYTES;
    MemorySegment newRanks = inPlace ? ranks : arena.allocate(JAVA_DOUBLE, n);
    MemorySegment newShares = inPlace ? shares : arena.allocate(JAVA_DOUBLE, n);
    double dangling = options.dangling() == PageRankOptions.Dangling.UNIFORM ? danglingVertices * (1.0 / n) : 0;
    int iterations = 0;
    double difference = 0;
    while (iterations < options.maxIterations()) {
      PageRankTotals totals = step.step(shares, ranks, dangling, newRanks, newShares);
      MemorySegment t = ranks;
      ranks = newRanks;
      newRanks = t;
      t = shares;
      shares = newShares;
      newShares = t;
      dangling = totals.dangling();
      difference = totals.difference();
      iterations++;
      if (difference < options.tolerance()) break;
    }
    return new Run(ranks.toArray(JAVA_DOUBLE), iterations, difference);
  }

  private static void assertSameRun(Graph.PageRankResult expected, Run actual) {
    assertEquals(expected.iterations(), actual.iterations());
    assertEquals(expected.difference(), actual.difference(), 1e-12);
    for (int v = 0; v < expected.ranks().length; v++) assertEquals(expected.ranks()[v], actual.ranks()[v], 1e-12, "vertex " + v);
  }

  private static List<PageRankOptions> runs() {
    PageRankOptions base = PageRankOptions.defaults();
    return List.of(base.withTolerance(1e-9), base.withTolerance(0).withMaxIterations(6),
        base.withDangling(PageRankOptions.Dangling.UNIFORM).withTolerance(1e-9),
        base.withDangling(PageRankOptions.Dangling.UNIFORM).withTolerance(0).withMaxIterations(6));
  }

  @ParameterizedTest
  @EnumSource(Graph.Variant.class)
  void stepsOverTheGraphsOwnArraysGiveItsRanks(Graph.Variant variant) {
    try (Graph g = Graph.rmat(9, 4, 5, GraphOptions.defaults().withVariant(variant)); Arena arena = Arena.ofConfined()) {
      long n = g.vertices();
      for (PageRankOptions options : runs()) {
        MemorySegment ranks = arena.allocate(JAVA_DOUBLE, n);
        MemorySegment shares = arena.allocate(JAVA_DOUBLE, n);
        long danglingVertices = g.pagerankStart(ranks, shares);
        assertEquals(1.0 / n, ranks.getAtIndex(JAVA_DOUBLE, n - 1));
        Run run = drive(options, (c, r, d, nr, nc) -> g.pagerankStep(options, c, r, d, nr, nc), danglingVertices, arena,
            ranks, shares, false);
        assertSameRun(g.pagerank(options), run);
        MemorySegment inPlaceRanks = arena.allocate(JAVA_DOUBLE, n);
        MemorySegment inPlaceShares = arena.allocate(JAVA_DOUBLE, n);
        g.pagerankStart(inPlaceRanks, inPlaceShares);
        assertSameRun(g.pagerank(options), drive(options, (c, r, d, nr, nc) -> g.pagerankStep(options, c, r, d, nr, nc),
            danglingVertices, arena, inPlaceRanks, inPlaceShares, true));
      }
    }
  }

  // Two parts step into slices of the same segments, so their ranks and contributions meet with no copy.
  @Test
  void partsStepIntoSlicesOfSharedSegments() {
    try (Graph g = Graph.rmat(9, 4, 6, GraphOptions.defaults()); Arena arena = Arena.ofConfined()) {
      long n = g.vertices();
      long half = n / 3;
      try (PullPart low = PullPart.of(g, 0, half); PullPart high = PullPart.of(g, half, n - half)) {
        for (PageRankOptions options : runs()) {
          MemorySegment ranks = arena.allocate(JAVA_DOUBLE, n);
          MemorySegment shares = arena.allocate(JAVA_DOUBLE, n);
          long lowBytes = half * Double.BYTES;
          long danglingVertices = low.start(ranks.asSlice(0, lowBytes), shares.asSlice(0, lowBytes))
              + high.start(ranks.asSlice(lowBytes), shares.asSlice(lowBytes));
          Run run = drive(options, (c, r, d, nr, nc) -> {
            PageRankTotals a = low.step(options, c, r.asSlice(0, lowBytes), d, nr.asSlice(0, lowBytes), nc.asSlice(0, lowBytes));
            PageRankTotals b = high.step(options, c, r.asSlice(lowBytes), d, nr.asSlice(lowBytes), nc.asSlice(lowBytes));
            return new PageRankTotals(a.difference() + b.difference(), a.dangling() + b.dangling());
          }, danglingVertices, arena, ranks, shares, false);
          assertSameRun(g.pagerank(options), run);
        }
      }
    }
  }

  @Test
  void badSegmentsAndOptionsAreErrors() {
    PageRankOptions options = PageRankOptions.defaults();
    Graph g = Graph.rmat(6, 4, 2, GraphOptions.defaults());
    try (Arena arena = Arena.ofConfined()) {
      long n = g.vertices();
      MemorySegment a = arena.allocate(JAVA_DOUBLE, n);
      MemorySegment b = arena.allocate(JAVA_DOUBLE, n);
      MemorySegment c = arena.allocate(JAVA_DOUBLE, n);
      MemorySegment d = arena.allocate(JAVA_DOUBLE, n);
      MemorySegment heap = MemorySegment.ofArray(new double[(int) n]);
      IllegalArgumentException onHeap = assertThrows(IllegalArgumentException.class, () -> g.pagerankStart(heap, b));
      assertTrue(onHeap.getMessage().contains("ranks is a heap segment"), onHeap.getMessage());
      assertThrows(IllegalArgumentException.class, () -> g.pagerankStep(options, heap, b, 0, c, d));
      IllegalArgumentException readOnly = assertThrows(IllegalArgumentException.class,
          () -> g.pagerankStep(options, a, b, 0, c.asReadOnly(), d));
      assertTrue(readOnly.getMessage().contains("newRanks is read-only"), readOnly.getMessage());
      IllegalArgumentException ragged = assertThrows(IllegalArgumentException.class,
          () -> g.pagerankStep(options, a, b, 0, c, d.asSlice(1)));
      assertTrue(ragged.getMessage().contains("newContributions must be 8-byte aligned"), ragged.getMessage());
      IllegalArgumentException overlap = assertThrows(IllegalArgumentException.class,
          () -> g.pagerankStep(options, a, b, 0, c, b));
      assertTrue(overlap.getMessage().contains("new_contributions and ranks overlap"), overlap.getMessage());
      IllegalArgumentException sizes = assertThrows(IllegalArgumentException.class,
          () -> g.pagerankStep(options, a, b, 0, c.asSlice(8), d));
      assertTrue(sizes.getMessage().contains("as many doubles"), sizes.getMessage());
      assertThrows(IllegalArgumentException.class, () -> g.pagerankStart(a, b.asSlice(8)));
      IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
          () -> g.pagerankStart(a.asSlice(8), b.asSlice(8)));
      assertTrue(count.getMessage().startsWith("sa_graph_pagerank_start: ranks holds " + (n - 1) + " values, expected " + n),
          count.getMessage());
      IllegalArgumentException contributions = assertThrows(IllegalArgumentException.class,
          () -> g.pagerankStep(options, a.asSlice(8), b, 0, c, d));
      assertTrue(contributions.getMessage().startsWith("sa_graph_pagerank_step: contributions holds"),
          contributions.getMessage());
      IllegalArgumentException f32 = assertThrows(IllegalArgumentException.class,
          () -> g.pagerankStep(options.withScores(PageRankOptions.Scores.F32), a, b, 0, c, d));
      assertTrue(f32.getMessage().contains("scores must be f64"), f32.getMessage());
      assertThrows(IllegalArgumentException.class, () -> g.pagerankStep(options.withDamping(2), a, b, 0, c, d));
      assertThrows(NullPointerException.class, () -> g.pagerankStep(null, a, b, 0, c, d));
      assertThrows(NullPointerException.class, () -> g.pagerankStart(null, b));
      g.close();
      assertThrows(IllegalStateException.class, () -> g.pagerankStart(a, b));
      assertThrows(IllegalStateException.class, () -> g.pagerankStep(options, a, b, 0, c, d));
    }
  }
}
