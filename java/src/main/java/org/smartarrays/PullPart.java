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
    return make((scratch, out) -> PullPartNative.graphPart(graph.handle(), first, count, out));
  }

  /** Vertices [first, first + count) of the .sg file sgFile, reading only the part's byte ranges. */
  public static PullPart read(Path sgFile, long first, long count) {
    Objects.requireNonNull(sgFile, "sgFile");
    return make((scratch, out) -> PullPartNative.sgPart(scratch.allocateFrom(sgFile.toString()), first, count, out));
  }

  /** The vertex count n of the .sg file sgFile, from its header. */
  public static long sgVertices(Path sgFile) {
    Objects.requireNonNull(sgFile, "sgFile");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment vertices = scratch.allocate(JAVA_LONG);
      Native.check(PullPartNative.sgVertices(scratch.allocateFrom(sgFile.toString()), vertices));
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

  /** The start of a run (see {@link Start}). */
  public Start start() {
    int count = Math.toIntExact(count());
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment ranks = scratch.allocate(JAVA_DOUBLE, Math.max(count, 1));
      MemorySegment contributions = scratch.allocate(JAVA_DOUBLE, Math.max(count, 1));
      MemorySegment dangling = scratch.allocate(JAVA_LONG);
      Native.check(PullPartNative.start(handle, ranks, contributions, count, dangling));
      return new Start(doubles(ranks, count), doubles(contributions, count), dangling.get(JAVA_LONG, 0));
    }
  }

  /** One pull iteration (see {@link Step}) from every vertex's contributions, this part's previous ranks and the
      dangling rank every part reported last; options give the damping and the dangling rule. */
  public Step step(PageRankOptions options, double[] contributions, double[] ranks, double dangling) {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(contributions, "contributions");
    Objects.requireNonNull(ranks, "ranks");
    int count = Math.toIntExact(count());
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment newRanks = scratch.allocate(JAVA_DOUBLE, Math.max(count, 1));
      MemorySegment newContributions = scratch.allocate(JAVA_DOUBLE, Math.max(count, 1));
      MemorySegment difference = scratch.allocate(JAVA_DOUBLE);
      MemorySegment newDangling = scratch.allocate(JAVA_DOUBLE);
      Native.check(PullPartNative.step(handle, options.marshal(scratch), scratch.allocateFrom(JAVA_DOUBLE, contributions),
          contributions.length, scratch.allocateFrom(JAVA_DOUBLE, ranks), dangling, newRanks, newContributions,
          ranks.length, difference, newDangling));
      return new Step(doubles(newRanks, count), doubles(newContributions, count), difference.get(JAVA_DOUBLE, 0),
          newDangling.get(JAVA_DOUBLE, 0));
    }
  }

  private static double[] doubles(MemorySegment segment, int count) {
    return segment.asSlice(0, (long) count * Double.BYTES).toArray(JAVA_DOUBLE);
  }

  /** Frees the native part; a no-op when already freed. */
  @Override
  public void close() {
    if (arena.scope().isAlive()) arena.close();
  }
}
