// Checks the Java PullPart over the C ABI: parts cut from a graph and read from its .sg file, driven
// together with the contributions exchanged, give Graph.pagerank's ranks to 1e-12; bad ranges and
// files map to the binding's exceptions with the native message; use after close is refused.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongBinaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PullPartTest {
  @TempDir
  Path dir;

  /** Makes the part [first, first + count) of a graph. */
  private interface Cut {
    PullPart cut(long first, long count);
  }

  // PageRank over `parts` even vertex ranges, exchanging every part's contributions each iteration.
  private static double[] driven(int n, int parts, PageRankOptions options, Cut cut) {
    List<PullPart> held = new ArrayList<>();
    double[] ranks = new double[n];
    double[] shares = new double[n];
    long danglingVertices = 0;
    try {
      for (int k = 0; k < parts; k++) {
        long first = (long) n * k / parts;
        PullPart part = cut.cut(first, (long) n * (k + 1) / parts - first);
        held.add(part);
        PullPart.Start start = part.start();
        System.arraycopy(start.ranks(), 0, ranks, (int) first, start.ranks().length);
        System.arraycopy(start.contributions(), 0, shares, (int) first, start.contributions().length);
        danglingVertices += start.danglingVertices();
      }
      double dangling = options.dangling() == PageRankOptions.Dangling.UNIFORM ? danglingVertices * (1.0 / n) : 0.0;
      for (int iteration = 0; iteration < options.maxIterations(); iteration++) {
        double[] nextRanks = new double[n];
        double[] nextShares = new double[n];
        double difference = 0;
        double next = 0;
        for (PullPart part : held) {
          int first = (int) part.first();
          double[] own = java.util.Arrays.copyOfRange(ranks, first, first + (int) part.count());
          PullPart.Step step = part.step(options, shares, own, dangling);
          System.arraycopy(step.ranks(), 0, nextRanks, first, own.length);
          System.arraycopy(step.contributions(), 0, nextShares, first, own.length);
          difference += step.difference();
          next += step.dangling();
        }
        ranks = nextRanks;
        shares = nextShares;
        dangling = next;
        if (difference < options.tolerance()) break;
      }
      return ranks;
    } finally {
      held.forEach(PullPart::close);
    }
  }

  @Test
  void partsOfAGraphAndOfItsFileGiveItsRanks() throws IOException {
    try (Graph g = Graph.rmat(9, 4, 2, GraphOptions.defaults())) {
      Path file = dir.resolve("g.sg");
      g.save(file, "sg");
      int n = (int) g.vertices();
      assertEquals(n, PullPart.sgVertices(file));
      for (PageRankOptions.Dangling rule : PageRankOptions.Dangling.values()) {
        PageRankOptions options = PageRankOptions.defaults().withDangling(rule).withTolerance(1e-9);
        double[] local = g.pagerank(options).ranks();
        for (int parts = 1; parts <= 3; parts++) {
          double[] fromGraph = driven(n, parts, options, (first, count) -> PullPart.of(g, first, count));
          double[] fromFile = driven(n, parts, options, (first, count) -> PullPart.read(file, first, count));
          for (int v = 0; v < n; v++) {
            assertEquals(local[v], fromGraph[v], 1e-12, "vertex " + v);
            assertEquals(local[v], fromFile[v], 1e-12, "vertex " + v);
          }
        }
      }
    }
  }

  @Test
  void badArgumentsAndUseAfterClose() throws IOException {
    try (Graph g = Graph.rmat(6, 4, 2, GraphOptions.defaults())) {
      long n = g.vertices();
      IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> PullPart.of(g, n, 1));
      assertTrue(range.getMessage().startsWith("sa_graph_pull_part: ") && range.getMessage().contains("outside"),
          range.getMessage());
      Path bad = Files.write(dir.resolve("bad.sg"), new byte[] {1, 2});
      IllegalArgumentException header = assertThrows(IllegalArgumentException.class, () -> PullPart.sgVertices(bad));
      assertTrue(header.getMessage().contains("17-byte header"), header.getMessage());
      SmartArrayException missing =
          assertThrows(SmartArrayException.class, () -> PullPart.read(dir.resolve("missing.sg"), 0, 1));
      assertEquals(SmartArrayException.Reason.OS_ERROR, missing.reason());
      PullPart part = PullPart.of(g, 0, 4);
      IllegalArgumentException sizes = assertThrows(IllegalArgumentException.class,
          () -> part.step(PageRankOptions.defaults(), new double[(int) n], new double[3], 0));
      assertTrue(sizes.getMessage().contains("ranks holds 3 values, expected 4"), sizes.getMessage());
      // One segment for both outputs held the contributions, not the ranks, and reported success.
      try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
        java.lang.foreign.MemorySegment both = arena.allocate(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 4);
        IllegalArgumentException shared = assertThrows(IllegalArgumentException.class, () -> part.start(both, both));
        assertTrue(shared.getMessage().contains("ranks and contributions overlap"), shared.getMessage());
      }
      IllegalArgumentException dangling = assertThrows(IllegalArgumentException.class,
          () -> part.step(PageRankOptions.defaults(), new double[(int) n], new double[4], Double.NaN));
      assertTrue(dangling.getMessage().contains("dangling must be the dangling vertices' rank, a finite number >= 0"),
          dangling.getMessage());
      part.close();
      part.close();
      assertThrows(IllegalStateException.class, part::count);
    }
  }

  @Test
  void aPartLongerThanAJavaArrayIsAnErrorNamingTheSegmentOverload() {
    // Before, start() threw ArithmeticException("integer overflow") past 2^31 vertices.
    assertEquals(5, PullPart.arrayLength(5));
    IllegalStateException tooLong = assertThrows(IllegalStateException.class, () -> PullPart.arrayLength(1L << 31));
    assertTrue(tooLong.getMessage().contains("a part of 2147483648 vertices needs longer arrays than Java's"),
        tooLong.getMessage());
    assertTrue(tooLong.getMessage().contains("use start(MemorySegment, MemorySegment)"), tooLong.getMessage());
  }
}
