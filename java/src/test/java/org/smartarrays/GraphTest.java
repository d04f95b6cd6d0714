// Checks the Java Graph over the C ABI: the repo's small graphs give the hand-checked degrees and
// the ranks of a plain Java PageRank in every format and variant, the layout options reach the
// arrays, generators and edge arrays build what they say, every error path maps to the binding's
// exceptions with the native message, and every use after close is an IllegalStateException.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class GraphTest {
  private static final Path GRAPHS = Path.of(System.getProperty("smartarrays.graphs", "../tests/data/graph"));
  // tests/data/graph/tiny.el: 0->1 (twice), 0->2, 1->2, 2->0, 3->2, 4->4; vertex 5 isolated.
  private static final long[] TINY_SRC = {0, 0, 1, 2, 3, 4, 0};
  private static final long[] TINY_DST = {1, 2, 2, 0, 2, 4, 1};
  private static final long[] TINY_DEGREES = {4, 3, 4, 1, 2, 0};
  // tiny.el's out-degrees: 0 -> 1 (twice), 0 -> 2, 1 -> 2, 2 -> 0, 3 -> 2, 4 -> 4.
  private static final long[] TINY_OUT_DEGREES = {3, 1, 1, 1, 1, 0};

  @TempDir
  Path dir;

  // PageRank written plainly (pull Jacobi iterations from 1/n), the reference the native ranks must equal.
  private static double[] referencePagerank(long[] src, long[] dst, int n, double damping, double tolerance,
      boolean uniform) {
    int[] outDegree = new int[n];
    for (long s : src) outDegree[(int) s]++;
    double[] ranks = new double[n];
    Arrays.fill(ranks, 1.0 / n);
    while (true) {
      double dangling = 0;
      for (int v = 0; v < n; v++) dangling += outDegree[v] == 0 && uniform ? ranks[v] : 0;
      double[] next = new double[n];
      Arrays.fill(next, (1 - damping) / n + damping * dangling / n);
      for (int e = 0; e < src.length; e++) next[(int) dst[e]] += damping * ranks[(int) src[e]] / outDegree[(int) src[e]];
      double difference = 0;
      for (int v = 0; v < n; v++) difference += Math.abs(next[v] - ranks[v]);
      ranks = next;
      if (difference < tolerance) return ranks;
    }
  }

  private static void assertRanks(double[] expected, double[] actual, double tolerance) {
    assertEquals(expected.length, actual.length);
    for (int v = 0; v < expected.length; v++) assertEquals(expected[v], actual[v], tolerance, "vertex " + v);
  }

  // Expects exception type with a message starting with the native function and containing part.
  private static <T extends Throwable> T assertNativeFailure(Class<T> type, String function, String part,
      Executable call) {
    T e = assertThrows(type, call);
    assertTrue(e.getMessage().startsWith(function + ": ") && e.getMessage().contains(part), e.getMessage());
    return e;
  }

  @Test
  void tinyGraphInEveryFormatGivesTheHandCheckedDegreesAndTheReferenceRanks() {
    GraphOptions options = GraphOptions.defaults();
    try (Graph el = Graph.load(GRAPHS.resolve("tiny.el"), options)) {
      el.save(dir.resolve("tiny.sg"), null);
      el.save(dir.resolve("tiny.graph"), "el");
    }
    PageRankOptions pr = PageRankOptions.defaults().withDangling(PageRankOptions.Dangling.UNIFORM).withTolerance(1e-13);
    double[] expected = referencePagerank(TINY_SRC, TINY_DST, 6, 0.85, 1e-13, true);
    List<Graph> graphs = List.of(Graph.load(GRAPHS.resolve("tiny.el"), options),
        Graph.load(GRAPHS.resolve("tiny.mtx"), options), Graph.load(dir.resolve("tiny.sg"), options),
        Graph.load(dir.resolve("tiny.graph"), "el", options), Graph.fromEdges(TINY_SRC, TINY_DST, 6, options));
    for (Graph g : graphs) {
      try (g) {
        assertEquals(6, g.vertices());
        assertEquals(7, g.edges());
        assertTrue(g.directed());
        assertArrayEquals(TINY_DEGREES, g.degreeCentrality());
        assertArrayEquals(TINY_OUT_DEGREES, g.outDegrees());
        Graph.PageRankResult result = g.pagerank(pr);
        assertTrue(result.converged() && result.difference() < 1e-13 && result.iterations() > 1, result.toString());
        assertRanks(expected, result.ranks(), 1e-12);
        // Float scores: the same ranks to float precision, widened to doubles.
        double[] floats = g.pagerank(pr.withScores(PageRankOptions.Scores.F32)).ranks();
        assertRanks(expected, floats, 1e-6);
        assertEquals(PageRankOptions.Scores.F32, pr.withScores(PageRankOptions.Scores.F32).scores());
      }
    }
    try (Graph symmetric = Graph.load(GRAPHS.resolve("triangle_symmetric.mtx"), options)) {
      assertFalse(symmetric.directed());
      assertEquals(4, symmetric.vertices());
    }
  }

  @Test
  void pagerankOptionsReachTheRun() {
    PageRankOptions defaults = PageRankOptions.defaults();
    assertEquals(0.85, defaults.damping());
    assertEquals(1e-3, defaults.tolerance());
    assertEquals(100, defaults.maxIterations());
    assertEquals(PageRankOptions.Dangling.NONE, defaults.dangling());
    try (Graph g = Graph.rmat(8, 8, 3, GraphOptions.defaults())) {
      Graph.PageRankResult none = g.pagerank(defaults.withTolerance(1e-12).withDamping(0.5));
      double sum = 0;
      for (double r : none.ranks()) sum += r;
      assertTrue(sum < 1, "the sinks' rank leaves the system: " + sum);
      long before = System.nanoTime();
      Graph.PageRankResult capped = g.pagerank(defaults.withMaxIterations(2).withTolerance(0));
      double wall = (System.nanoTime() - before) / 1e9;
      assertEquals(2, capped.iterations());
      assertTrue(capped.seconds() > 0 && capped.seconds() <= wall, "iterations took " + capped.seconds() + " s of " + wall);
      assertFalse(capped.converged());
      assertEquals(g.vertices(), capped.ranks().length);
    }
  }

  @Test
  void variantsPlacementsAndBitsReachTheArrays() {
    GraphOptions u = GraphOptions.defaults().withVariant(Graph.Variant.U)
        .withArrays(ArrayOptions.interleaved()).withPlacement("redge=os_default").withBits("edge=24");
    assertEquals(Graph.Variant.VE, GraphOptions.defaults().variant());
    try (Graph wide = Graph.uniform(1000, 4, 2, u); Graph narrow = Graph.uniform(1000, 4, 2, GraphOptions.defaults())) {
      Graph.Memory memory = wide.memory();
      // Four arrays: out-degrees are begin's differences, not a fifth array.
      assertEquals(List.of("begin", "edge", "rbegin", "redge"),
          memory.arrays().stream().map(Graph.ArrayMemory::name).toList());
      assertEquals(List.of(64, 24, 64, 32), memory.arrays().stream().map(Graph.ArrayMemory::bits).toList());
      assertEquals(List.of(Placement.INTERLEAVED, Placement.INTERLEAVED, Placement.INTERLEAVED, Placement.OS_DEFAULT),
          memory.arrays().stream().map(Graph.ArrayMemory::placement).toList());
      assertEquals(List.of(1001L, 4000L, 1001L, 4000L),
          memory.arrays().stream().map(Graph.ArrayMemory::length).toList());
      assertEquals(memory.arrays().stream().mapToLong(Graph.ArrayMemory::bytes).sum(), memory.totalBytes());
      assertEquals(10, narrow.memory().arrays().get(1).bits(), "V+E: ids in the bits of n - 1");
      assertTrue(narrow.memory().totalBytes() < memory.totalBytes());
      assertArrayEquals(wide.degreeCentrality(), narrow.degreeCentrality(), "the same graph in other widths");
      // Out-degrees, derived from 64-bit and compressed offsets alike, count the 4000 edges.
      assertArrayEquals(wide.outDegrees(), narrow.outDegrees());
      assertEquals(4000, java.util.Arrays.stream(wide.outDegrees()).sum());
      assertEquals(4000, wide.edges());
    }
  }

  @Test
  void generatorsAndEdgeArraysBuildWhatTheySay() {
    GraphOptions options = GraphOptions.defaults();
    try (Graph a = Graph.rmat(10, 16, 5, options); Graph b = Graph.rmat(10, 16, 5, options)) {
      assertEquals(1024, a.vertices());
      assertEquals(16 * 1024, a.edges());
      assertArrayEquals(a.degreeCentrality(), b.degreeCentrality(), "the same seed gives the same graph");
    }
    try (Graph inferred = Graph.fromEdges(TINY_SRC, TINY_DST, 0, options.withDedup(true).withDropSelfLoops(true))) {
      assertEquals(5, inferred.vertices(), "the largest id + 1");
      assertEquals(5, inferred.edges());
    }
    try (Graph undirected = Graph.fromEdges(new long[] {0, 1}, new long[] {1, 2}, 0, options.withUndirected(true));
        Graph rmat = Graph.rmat(6, 2, 1, options.withUndirected(true))) {
      assertEquals(4, undirected.edges());
      assertFalse(undirected.directed());
      assertFalse(rmat.directed());
    }
    try (Graph empty = Graph.fromEdges(new long[0], new long[0], 0, options)) {
      assertEquals(0, empty.vertices());
      assertEquals(0, empty.degreeCentrality().length);
      assertEquals(0, empty.outDegrees().length);
      assertEquals(0, empty.pagerank(PageRankOptions.defaults()).ranks().length);
    }
  }

  @Test
  void badFilesAndOptionsAreErrorsWithTheNativeMessage() throws IOException {
    GraphOptions options = GraphOptions.defaults();
    Path tiny = GRAPHS.resolve("tiny.el");
    SmartArrayException missing = assertNativeFailure(SmartArrayException.class, "sa_graph_load", "cannot open",
        () -> Graph.load(dir.resolve("missing.el"), options));
    assertEquals(SmartArrayException.Reason.OS_ERROR, missing.reason());
    Path bad = Files.writeString(dir.resolve("bad.el"), "0 1\n1 two\n");
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "bad.el:2: bad destination vertex id 'two'",
        () -> Graph.load(bad, options));
    Path cut = Files.writeString(dir.resolve("cut.el"), "# Directed graph\n# Nodes: 4 Edges: 3\n0 1\n1 2\n");
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load",
        "cut.el:2: the header declares 3 edges, but the file holds 2 edge lines (was it cut short?)",
        () -> Graph.load(cut, options));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "extension",
        () -> Graph.load(dir.resolve("graph.xyz"), options));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "unknown graph format 'xml'",
        () -> Graph.load(tiny, "xml", options));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "unknown array 'nodes'",
        () -> Graph.load(tiny, options.withPlacement("nodes=interleaved")));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "unknown placement 'everywhere'",
        () -> Graph.load(tiny, options.withPlacement("everywhere")));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "edge=65",
        () -> Graph.load(tiny, options.withBits("edge=65")));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "graph array edge",
        () -> Graph.load(tiny, options.withVariant(Graph.Variant.U).withBits("edge=1")));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "options->arrays.bits is 8",
        () -> Graph.load(tiny, options.withArrays(ArrayOptions.defaults().withBits(8))));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_load", "undirected",
        () -> Graph.load(tiny, "sg", options.withUndirected(true)));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_generate_rmat", "R-MAT scale 0 is outside 1..40",
        () -> Graph.rmat(0, 16, 1, options));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_generate_rmat", "R-MAT edge factor must be >= 1, got 0",
        () -> Graph.rmat(4, 0, 1, options));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_generate_uniform", "at least one vertex",
        () -> Graph.uniform(0, 4, 1, options));
    // Beyond the memory limit: refused before any edge is made.
    SmartArrayException big = assertNativeFailure(SmartArrayException.class, "sa_graph_generate_uniform",
        "uniform graph: a graph of 68719476736 vertices and 549755813888 edges needs at least ",
        () -> Graph.uniform(1L << 36, 8, 1, options));
    assertEquals(SmartArrayException.Reason.OUT_OF_MEMORY, big.reason());
    assertNativeFailure(SmartArrayException.class, "sa_graph_generate_rmat", "R-MAT graph: a graph of 68719476736 vertices",
        () -> Graph.rmat(36, 8, 1, options));
    assertNativeFailure(IllegalArgumentException.class, "sa_graph_from_edges", "not below the vertex count 3",
        () -> Graph.fromEdges(new long[] {0}, new long[] {5}, 3, options));
    assertThrows(IllegalArgumentException.class, () -> Graph.rmat(-1, 16, 1, options));
    assertThrows(IllegalArgumentException.class, () -> Graph.uniform(-5, 4, 1, options));
    IllegalArgumentException lengths = assertThrows(IllegalArgumentException.class,
        () -> Graph.fromEdges(new long[] {0, 1}, new long[] {1}, 0, options));
    assertTrue(lengths.getMessage().contains("src has 2 ids but dst has 1"), lengths.getMessage());
    assertThrows(NullPointerException.class, () -> Graph.load(tiny, null));
    assertThrows(NullPointerException.class, () -> Graph.load(null, options));
    assertThrows(NullPointerException.class, () -> Graph.fromEdges(null, new long[0], 0, options));
  }

  @Test
  void badCallsOnAGraphAreErrorsWithTheNativeMessage() {
    try (Graph g = Graph.load(GRAPHS.resolve("tiny.el"), GraphOptions.defaults().withPlacement("ranks=replicated"))) {
      assertNativeFailure(IllegalArgumentException.class, "sa_graph_pagerank", "cannot be replicated",
          () -> g.pagerank(PageRankOptions.defaults()));
    }
    try (Graph g = Graph.load(GRAPHS.resolve("tiny.el"), GraphOptions.defaults())) {
      assertNativeFailure(IllegalArgumentException.class, "sa_graph_pagerank", "damping",
          () -> g.pagerank(PageRankOptions.defaults().withDamping(1.5)));
      assertNativeFailure(IllegalArgumentException.class, "sa_graph_pagerank", "tolerance",
          () -> g.pagerank(PageRankOptions.defaults().withTolerance(-1)));
      assertThrows(IllegalArgumentException.class, () -> PageRankOptions.defaults().withMaxIterations(-1));
      assertThrows(NullPointerException.class, () -> g.pagerank(null));
      assertNativeFailure(IllegalArgumentException.class, "sa_graph_save", "extension",
          () -> g.save(dir.resolve("g.xyz"), null));
      SmartArrayException unwritable = assertNativeFailure(SmartArrayException.class, "sa_graph_save", "cannot create",
          () -> g.save(Path.of("/nonexistent/dir/g.el"), null));
      assertEquals(SmartArrayException.Reason.OS_ERROR, unwritable.reason());
    }
  }

  @Test
  void everyUseAfterCloseIsAnIllegalState() {
    List<Consumer<Graph>> uses = List.of(Graph::vertices, Graph::edges, Graph::directed, Graph::memory,
        Graph::degreeCentrality, g -> g.pagerank(PageRankOptions.defaults()), g -> g.save(dir.resolve("g.el"), null));
    Graph g = Graph.load(GRAPHS.resolve("tiny.el"), GraphOptions.defaults());
    for (Consumer<Graph> use : uses) use.accept(g);
    assertTrue(g.toString().contains("6 vertices"), g.toString());
    g.close();
    for (int k = 0; k < uses.size(); k++) {
      Consumer<Graph> use = uses.get(k);
      assertThrows(IllegalStateException.class, () -> use.accept(g), "use " + k);
    }
    g.close();
    assertEquals("Graph[freed]", g.toString());
  }
}
