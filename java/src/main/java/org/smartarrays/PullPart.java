// Owns the Java handle of one vertex-range part of a graph's reverse CSR (the C ABI's sa_pull_part):
// what one worker of a distributed PageRank holds (docs/dask.md). Cutting, reading and the pull
// iteration run in the C++ core; this class only marshals Java arrays.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Vertices [first, first + count) of a graph's reverse CSR, compressed: cut from a {@link Graph} or read
 * from a GAP .sg file (only the part's byte ranges). Driving every part of a graph with the
 * contributions exchanged between iterations gives {@link Graph#pagerank}'s ranks (f64 scores).
 *
 * <p>A part owns its native memory: free it with {@link #close()}; any use afterwards throws
 * {@link IllegalStateException}. No call changes a part.
 */
public final class PullPart implements AutoCloseable {
  /** A run's start for this part: ranks 1/n, contributions, and how many of its vertices have no out-edge. */
  public record Start(double[] ranks, double[] contributions, long danglingVertices) {}

  /** One iteration's result for this part: new ranks and contributions, the sum of |new - previous| and the
      new ranks of its dangling vertices summed (uniform rule; else 0). */
  public record Step(double[] ranks, double[] contributions, double difference, double dangling) {}

  private final MemorySegment handle;
  private final Arena arena;

  private PullPart(MemorySegment handle, Arena arena) {
    this.handle = handle;
    this.arena = arena;
  }

  /** A native call that makes an sa_pull_part into out, given a scratch arena for its arguments. */
  private interface Maker {
    int make(Arena scratch, MemorySegment out);
  }

  @SuppressWarnings("restricted") // attaches sa_pull_part_free to the handle's lifetime
  private static PullPart make(Maker maker) {
    MemorySegment pointer;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      Native.check(maker.make(scratch, out));
      pointer = out.get(ADDRESS, 0);
    }
    Arena scope = Arena.ofShared();
    try {
      return new PullPart(pointer.reinterpret(scope, PullPartNative::free), scope);
    } catch (RuntimeException | Error e) {
      PullPartNative.free(pointer);
      throw e;
    }
  }

  /** Vertices [first, first + count) of graph, in its widths. */
  public static PullPart of(Graph graph, long first, long count) {
    Objects.requireNonNull(graph, "graph");
    Native.requireNonNegative(first, "first");
    Native.requireNonNegative(count, "count");
    return make((scratch, out) -> PullPartNative.graphPart(graph.handle(), first, count, out));
  }

  /** Vertices [first, first + count) of the .sg file sgFile, reading only the part's byte ranges. */
  public static PullPart read(Path sgFile, long first, long count) {
    Objects.requireNonNull(sgFile, "sgFile");
    Native.requireNonNegative(first, "first");
    Native.requireNonNegative(count, "count");
    return make((scratch, out) -> PullPartNative.sgPart(Native.path(scratch, sgFile, "sgFile"), first, count, out));
  }

  /** The vertex count n of the .sg file sgFile, from its header. */
  public static long sgVertices(Path sgFile) {
    Objects.requireNonNull(sgFile, "sgFile");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment vertices = scratch.allocate(JAVA_LONG);
      Native.check(PullPartNative.sgVertices(Native.path(scratch, sgFile, "sgFile"), vertices));
      return vertices.get(JAVA_LONG, 0);
    }
  }

  private void ensureOpen() {
    if (!handle.scope().isAlive()) throw new IllegalStateException("the part was already freed");
  }

  /** The part's first vertex. */
  public long first() {
    ensureOpen();
    return PullPartNative.first(handle);
  }

  /** The part's vertex count. */
  public long count() {
    ensureOpen();
    return PullPartNative.count(handle);
  }

  /** The whole graph's vertex count n. */
  public long vertices() {
    ensureOpen();
    return PullPartNative.vertices(handle);
  }

  /** The start of a run (see {@link Start}); a part of more vertices than a Java array holds is an
      IllegalStateException naming the segment overload, which has no such limit. */
  public Start start() {
    int count = arrayLength(count());
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment ranks = scratch.allocate(JAVA_DOUBLE, count);
      MemorySegment contributions = scratch.allocate(JAVA_DOUBLE, count);
      long dangling = start(ranks, contributions);
      return new Start(ranks.toArray(JAVA_DOUBLE), contributions.toArray(JAVA_DOUBLE), dangling);
    }
  }

  /** The length of a Java array of one value per vertex of a part of the given count; IllegalStateException
      when no Java array is that long (the VM's limit is a few values short of 2^31 - 1). */
  static int arrayLength(long vertices) {
    long longest = Integer.MAX_VALUE - 8;
    if (vertices > longest) {
      throw new IllegalStateException("a part of " + vertices + " vertices needs longer arrays than Java's (at most "
          + longest + " values): use start(MemorySegment, MemorySegment)");
    }
    return (int) vertices;
  }

  /** The start of a run into the native segments ranks and contributions (count doubles each); returns how
      many of the part's vertices have no out-edge. */
  public long start(MemorySegment ranks, MemorySegment contributions) {
    ensureOpen();
    return PullStep.start(PullPartNative::start, handle, ranks, contributions);
  }

  /** One pull iteration (see {@link Step}) from every vertex's contributions, this part's previous ranks and the
      dangling rank every part reported last; options give the damping and the dangling rule. */
  public Step step(PageRankOptions options, double[] contributions, double[] ranks, double dangling) {
    Objects.requireNonNull(contributions, "contributions");
    Objects.requireNonNull(ranks, "ranks");
    try (Arena scratch = Arena.ofConfined()) {
      // As many as ranks: the core then checks that count against the part's, with its words.
      MemorySegment newRanks = scratch.allocate(JAVA_DOUBLE, ranks.length);
      MemorySegment newContributions = scratch.allocate(JAVA_DOUBLE, ranks.length);
      PageRankTotals totals = step(options, scratch.allocateFrom(JAVA_DOUBLE, contributions),
          scratch.allocateFrom(JAVA_DOUBLE, ranks), dangling, newRanks, newContributions);
      return new Step(newRanks.toArray(JAVA_DOUBLE), newContributions.toArray(JAVA_DOUBLE), totals.difference(),
          totals.dangling());
    }
  }

  /** One pull iteration on native segments, read and written in place: contributions of every vertex (n
      doubles), this part's previous ranks, new ranks and new contributions (count doubles each). */
  public PageRankTotals step(PageRankOptions options, MemorySegment contributions, MemorySegment ranks, double dangling,
      MemorySegment newRanks, MemorySegment newContributions) {
    ensureOpen();
    return PullStep.step(PullPartNative::step, handle, options, contributions, ranks, dangling, newRanks,
        newContributions);
  }

  /** Frees the native part; a no-op when already freed. */
  @Override
  public void close() {
    if (arena.scope().isAlive()) arena.close();
  }
}
