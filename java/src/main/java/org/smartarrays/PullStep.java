// Owns the Java side of a caller-driven pull iteration, shared by a whole graph (sa_graph_pagerank_*)
// and a part (sa_pull_part_*): the checks of the caller's off-heap score segments and the marshalling
// of one start or step call. The iteration itself runs in the C++ core, in parallel.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

final class PullStep {
  private PullStep() {}

  /** sa_graph_pagerank_start or sa_pull_part_start on a handle. */
  interface Start {
    int start(MemorySegment handle, MemorySegment ranks, MemorySegment contributions, long count, MemorySegment dangling);
  }

  /** sa_graph_pagerank_step or sa_pull_part_step on a handle. */
  interface Step {
    int step(MemorySegment handle, MemorySegment options, MemorySegment contributions, long n, MemorySegment ranks,
        double dangling, MemorySegment newRanks, MemorySegment newContributions, long count, MemorySegment difference,
        MemorySegment newDangling);
  }

  // The number of doubles in segment, which an ordinary downcall reads or writes in place: native
  // (a heap segment cannot cross it), 8-byte aligned, whole doubles; writable when written. The
  // counts themselves are the core's to check, with its words.
  static long doubles(MemorySegment segment, String name, boolean written) {
    Objects.requireNonNull(segment, name);
    if (!segment.isNative()) {
      throw new IllegalArgumentException(name + " is a heap segment; pass native memory (Arena.allocate)");
    }
    if (written && segment.isReadOnly()) throw new IllegalArgumentException(name + " is read-only");
    if (segment.byteSize() % Double.BYTES != 0 || segment.address() % Double.BYTES != 0) {
      throw new IllegalArgumentException(name + " must be 8-byte aligned and hold whole doubles, got "
          + segment.byteSize() + " bytes");
    }
    return segment.byteSize() / Double.BYTES;
  }

  static long start(Start call, MemorySegment handle, MemorySegment ranks, MemorySegment contributions) {
    long count = doubles(ranks, "ranks", true);
    if (doubles(contributions, "contributions", true) != count) {
      throw new IllegalArgumentException("ranks and contributions must hold as many doubles, got " + count + " and "
          + contributions.byteSize() / Double.BYTES);
    }
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment dangling = scratch.allocate(JAVA_LONG);
      Native.check(call.start(handle, ranks, contributions, count, dangling));
      return dangling.get(JAVA_LONG, 0);
    }
  }

  static PageRankTotals step(Step call, MemorySegment handle, PageRankOptions options, MemorySegment contributions,
      MemorySegment ranks, double dangling, MemorySegment newRanks, MemorySegment newContributions) {
    Objects.requireNonNull(options, "options");
    long n = doubles(contributions, "contributions", false);
    long count = doubles(ranks, "ranks", false);
    doubles(newRanks, "newRanks", true);
    doubles(newContributions, "newContributions", true);
    if (newRanks.byteSize() != ranks.byteSize() || newContributions.byteSize() != ranks.byteSize()) {
      throw new IllegalArgumentException("ranks, newRanks and newContributions must hold as many doubles, got "
          + count + ", " + newRanks.byteSize() / Double.BYTES + " and " + newContributions.byteSize() / Double.BYTES);
    }
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment difference = scratch.allocate(JAVA_DOUBLE);
      MemorySegment newDangling = scratch.allocate(JAVA_DOUBLE);
      Native.check(call.step(handle, options.marshal(scratch), contributions, n, ranks, dangling, newRanks,
          newContributions, count, difference, newDangling));
      return new PageRankTotals(difference.get(JAVA_DOUBLE, 0), newDangling.get(JAVA_DOUBLE, 0));
    }
  }
}
