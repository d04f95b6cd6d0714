// Owns the Java handle of one native CSR graph: its creation (a file, a generator, edge arrays),
// its lifetime (its own shared arena, closed by close()) and the thin API over the C ABI's sa_graph
// entry points. Reading, building, the memory report and the algorithms all run in the C++ core.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A directed graph in CSR form as a bundle of native smart arrays (begin, edge, rbegin, redge; an
 * undirected graph's rbegin and redge are its begin and edge), each bit-compressed per its {@link
 * Variant} and placed on NUMA nodes, with degree centrality and PageRank (docs/graph.md). Out-degrees
 * are begin's differences, derived rather than stored.
 *
 * <p>A graph owns its native memory: free it with {@link #close()}; any use afterwards throws
 * {@link IllegalStateException}. No call changes a graph, so any number of threads may use one at once.
 */
public final class Graph implements AutoCloseable {
  // Largest Java array the JVM reliably allocates.
  private static final int MAX_JAVA_ARRAY = Integer.MAX_VALUE - 8;
  // A graph has four arrays (begin, edge, rbegin, redge).
  private static final int ARRAYS = 4;
  private static final String FREED = "the graph was already freed";

  /** The compression variants of the smart-arrays paper (§5.2); the ordinals are the C ABI's sa_graph_variant. */
  public enum Variant {
    /** 64-bit offsets, 32-bit vertex ids. */
    U,
    /** Offsets in their minimum bits, 32-bit vertex ids. */
    V,
    /** Offsets and vertex ids in their minimum bits ("V+E"). */
    VE;

    int code() {
      return ordinal();
    }

    static Variant of(int code) {
      Variant[] all = values();
      if (code < 0 || code >= all.length) {
        throw new SmartArrayException(SmartArrayException.Reason.INTERNAL, "unknown sa_graph_variant " + code);
      }
      return all[code];
    }
  }

  /** One array's memory: its name, values, bits per value, placement, copies and bytes mapped over all copies. */
  public record ArrayMemory(String name, long length, int bits, Placement placement, int replicas, long bytes) {}

  /** The memory of every array of a graph, in the order begin, edge, rbegin, redge, and their total. */
  public record Memory(List<ArrayMemory> arrays, long totalBytes) {
    /** The lines, kept as an unmodifiable copy. */
    public Memory {
      arrays = List.copyOf(arrays);
    }
  }

  /**
   * How a PageRank run ended: the rank of every vertex, the iterations run, the last difference, and the
   * wall time of the iterations in seconds (setup and copying the ranks out excluded).
   */
  public record PageRankResult(double[] ranks, int iterations, boolean converged, double difference, double seconds) {}

  private final MemorySegment handle;
  private final Arena arena;
  // Store calls that carry the handle in their object list, where the FFM runtime does not keep it alive.
  private final InUse inUse = new InUse();

  private Graph(MemorySegment handle, Arena arena) {
    this.handle = handle;
    this.arena = arena;
  }

  /** A native call that makes an sa_graph into out from options, given a scratch arena for its arguments. */
  private interface Maker {
    int make(Arena scratch, MemorySegment options, MemorySegment out);
  }

  // Runs maker, then ties the new sa_graph to a fresh shared arena that close() closes.
  private static Graph make(GraphOptions options, Maker maker) {
    Objects.requireNonNull(options, "options");
    MemorySegment pointer;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      Native.check(maker.make(scratch, options.marshal(scratch), out));
      pointer = out.get(ADDRESS, 0);
    }
    return adopt(pointer);
  }

  // Ties a new sa_graph pointer (from make, or a Store) to a fresh shared arena that close() closes.
  @SuppressWarnings("restricted") // attaches sa_graph_free to the handle's lifetime
  static Graph adopt(MemorySegment pointer) {
    Arena scope = Arena.ofShared();
    try {
      return new Graph(pointer.reinterpret(scope, GraphNative::free), scope);
    } catch (RuntimeException | Error e) {
      GraphNative.free(pointer);
      throw e;
    }
  }

  /** Reads an edge list (.el .txt .edges .tsv), Matrix Market (.mtx) or GAP (.sg) file, the format from its name. */
  public static Graph load(Path path, GraphOptions options) {
    return load(path, null, options);
  }

  /** Reads path in format ("el", "mtx" or "sg"; null: from the name). */
  public static Graph load(Path path, String format, GraphOptions options) {
    Objects.requireNonNull(path, "path");
    return make(options, (scratch, o, out) -> GraphNative.load(Native.path(scratch, path, "path"),
        format == null ? MemorySegment.NULL : Native.cString(scratch, format, "format"), o, out));
  }

  /** An R-MAT graph (Graph500 parameters) of 2^scale vertices (1..40) and edgeFactor (>= 1) * 2^scale edges. */
  public static Graph rmat(int scale, long edgeFactor, long seed, GraphOptions options) {
    Native.requireNonNegative(scale, "scale");
    Native.requireNonNegative(edgeFactor, "edgeFactor");
    return make(options, (scratch, o, out) -> GraphNative.generateRmat(scale, edgeFactor, seed, o, out));
  }

  /** A uniform random graph of vertices (>= 1) and round(vertices * averageDegree) edges. */
  public static Graph uniform(long vertices, double averageDegree, long seed, GraphOptions options) {
    Native.requireNonNegative(vertices, "vertices");
    return make(options, (scratch, o, out) -> GraphNative.generateUniform(vertices, averageDegree, seed, o, out));
  }

  /** The graph of the edges src[i] -> dst[i] (unsigned ids) over vertices vertices (0: the largest id + 1). */
  public static Graph fromEdges(long[] src, long[] dst, long vertices, GraphOptions options) {
    Objects.requireNonNull(src, "src");
    Objects.requireNonNull(dst, "dst");
    if (src.length != dst.length) {
      throw new IllegalArgumentException("src has " + src.length + " ids but dst has " + dst.length);
    }
    Native.requireNonNegative(vertices, "vertices");
    return make(options, (scratch, o, out) -> GraphNative.fromEdges(scratch.allocateFrom(JAVA_LONG, src),
        scratch.allocateFrom(JAVA_LONG, dst), src.length, vertices, o, out));
  }

  private void ensureOpen() {
    if (!handle.scope().isAlive()) throw new IllegalStateException(FREED);
  }

  /** The sa_graph handle, scoped to this graph's lifetime (for the binding's own downcalls). */
  MemorySegment handle() {
    return handle;
  }

  /** The handle for a call the FFM runtime does not guard (InUse), counted in use until release(): close() meanwhile fails. */
  MemorySegment acquire() {
    inUse.enter(handle, FREED);
    return handle;
  }

  /** Ends the use acquire() counted. */
  void release() {
    inUse.exit();
  }

  /** Number of vertices n. */
  public long vertices() {
    ensureOpen();
    return GraphNative.vertices(handle);
  }

  /** Number of stored (directed) edges: an undirected edge counts twice, a self-loop once. */
  public long edges() {
    ensureOpen();
    return GraphNative.edges(handle);
  }

  /** False when every edge stands for both directions (each stored both ways). */
  public boolean directed() {
    ensureOpen();
    return GraphNative.directed(handle) == 1;
  }

  /** Bits, placement, copies and bytes of every array, and their total. */
  public Memory memory() {
    ensureOpen();
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment lines = scratch.allocate(GraphNative.ARRAY_MEMORY, ARRAYS);
      MemorySegment count = scratch.allocate(JAVA_INT);
      MemorySegment total = scratch.allocate(JAVA_LONG);
      Native.check(GraphNative.memory(handle, lines, ARRAYS, count, total));
      List<ArrayMemory> arrays = new ArrayList<>();
      for (int i = 0; i < Math.min(ARRAYS, count.get(JAVA_INT, 0)); i++) {
        MemorySegment line = lines.asSlice(i * GraphNative.ARRAY_MEMORY.byteSize(), GraphNative.ARRAY_MEMORY);
        arrays.add(new ArrayMemory(Native.string((MemorySegment) GraphNative.MEMORY_NAME.get(line, 0L)),
            (long) GraphNative.MEMORY_LENGTH.get(line, 0L), (int) GraphNative.MEMORY_BITS.get(line, 0L),
            Placement.of((int) GraphNative.MEMORY_PLACEMENT.get(line, 0L)),
            (int) GraphNative.MEMORY_REPLICAS.get(line, 0L), (long) GraphNative.MEMORY_BYTES.get(line, 0L)));
      }
      return new Memory(arrays, total.get(JAVA_LONG, 0));
    }
  }

  /** Out-degree plus in-degree of every vertex. */
  public long[] degreeCentrality() {
    return vertexLongs(GraphNative::degreeCentrality);
  }

  /** The out-degree of every vertex, begin[v+1] - begin[v] (derived: no array holds them). */
  public long[] outDegrees() {
    return vertexLongs(GraphNative::outDegrees);
  }

  // A native call filling one long per vertex: (graph, buffer, n) -> sa_status.
  private interface VertexFill {
    int fill(MemorySegment graph, MemorySegment values, long n);
  }

  private long[] vertexLongs(VertexFill call) {
    int n = vertexArrayLength();
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment values = scratch.allocate(JAVA_LONG, Math.max(n, 1));
      Native.check(call.fill(handle, values, n));
      return values.asSlice(0, (long) n * Long.BYTES).toArray(JAVA_LONG);
    }
  }

  /** PageRank of every vertex (pull over the reverse edges, Jacobi iterations from 1/n). */
  public PageRankResult pagerank(PageRankOptions options) {
    Objects.requireNonNull(options, "options");
    int n = vertexArrayLength();
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment ranks = scratch.allocate(JAVA_DOUBLE, Math.max(n, 1));
      MemorySegment result = scratch.allocate(GraphNative.PAGERANK_RESULT);
      Native.check(GraphNative.pagerank(handle, options.marshal(scratch), ranks, n, result));
      return new PageRankResult(ranks.asSlice(0, (long) n * Double.BYTES).toArray(JAVA_DOUBLE),
          (int) GraphNative.RESULT_ITERATIONS.get(result, 0L), (int) GraphNative.RESULT_CONVERGED.get(result, 0L) == 1,
          (double) GraphNative.RESULT_DIFFERENCE.get(result, 0L), (double) GraphNative.RESULT_SECONDS.get(result, 0L));
    }
  }

  /**
   * Starts a PageRank whose iterations the caller runs with {@link #pagerankStep}, on this graph's own
   * arrays: writes ranks 1/n and contributions rank / out-degree (0 for dangling vertices) into the
   * native segments ranks and contributions (n doubles each; {@link PlacedBuffer} gives them huge pages and a
   * placement); returns how many vertices have no out-edge.
   */
  public long pagerankStart(MemorySegment ranks, MemorySegment contributions) {
    ensureOpen();
    return PullStep.start(GraphNative::pagerankStart, handle, ranks, contributions);
  }

  /**
   * One pull iteration of a caller-driven PageRank over this graph's own arrays, in parallel in the
   * core: from every vertex's contributions and ranks of the previous iteration (native segments of n
   * doubles, read in place) and the dangling rank the previous step reported, writes the new ranks and
   * contributions into newRanks and newContributions. options give the damping and the dangling rule
   * (scores must be F64). Iterated from {@link #pagerankStart}, swapping the segments, it gives
   * {@link #pagerank}'s ranks.
   */
  public PageRankTotals pagerankStep(PageRankOptions options, MemorySegment contributions, MemorySegment ranks,
      double dangling, MemorySegment newRanks, MemorySegment newContributions) {
    ensureOpen();
    return PullStep.step(GraphNative::pagerankStep, handle, options, contributions, ranks, dangling, newRanks,
        newContributions);
  }

  // The vertex count as the length of a Java array of per-vertex values.
  private int vertexArrayLength() {
    long n = vertices();
    if (n > MAX_JAVA_ARRAY) throw new OutOfMemoryError(n + " vertices do not fit in a Java array");
    return (int) n;
  }

  /** Writes the graph to path in format ("el", "mtx" or "sg"; null: from the name). */
  public void save(Path path, String format) {
    Objects.requireNonNull(path, "path");
    ensureOpen();
    try (Arena scratch = Arena.ofConfined()) {
      Native.check(GraphNative.save(handle, Native.path(scratch, path, "path"),
          format == null ? MemorySegment.NULL : Native.cString(scratch, format, "format")));
    }
  }

  /** Frees the native graph; a no-op when already freed. */
  @Override
  public void close() {
    inUse.close(arena, "the graph", arena::close);
  }

  @Override
  public String toString() {
    if (!handle.scope().isAlive()) return "Graph[freed]";
    return "Graph[" + vertices() + " vertices, " + edges() + " edges" + (directed() ? "" : ", undirected") + "]";
  }
}
