// Owns the downcall handles of the C ABI's sa_pull_part entry points (a distributed PageRank's
// vertex-range parts): cutting and reading parts, and a part's start and step, which run as long as
// the part is big, are ordinary downcalls; the counts are short critical calls.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.smartarrays.Native.CRITICAL;
import static org.smartarrays.Native.ORDINARY;
import static org.smartarrays.Native.bind;
import static org.smartarrays.Native.rethrow;
import static org.smartarrays.Native.status;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

final class PullPartNative {
  private PullPartNative() {}

  private static final MethodHandle GRAPH_PART =
      bind("sa_graph_pull_part", ORDINARY, status(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
  private static final MethodHandle SG_PART =
      bind("sa_sg_pull_part", ORDINARY, status(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
  private static final MethodHandle SG_VERTICES = bind("sa_sg_vertices", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle FREE = bind("sa_pull_part_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle FIRST =
      bind("sa_pull_part_first", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle COUNT =
      bind("sa_pull_part_count", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle VERTICES =
      bind("sa_pull_part_vertices", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle START =
      bind("sa_pull_part_start", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
  private static final MethodHandle STEP = bind("sa_pull_part_step", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS,
      JAVA_LONG, ADDRESS, JAVA_DOUBLE, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));

  static int graphPart(MemorySegment graph, long first, long count, MemorySegment out) {
    try {
      return (int) GRAPH_PART.invokeExact(graph, first, count, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int sgPart(MemorySegment path, long first, long count, MemorySegment out) {
    try {
      return (int) SG_PART.invokeExact(path, first, count, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int sgVertices(MemorySegment path, MemorySegment vertices) {
    try {
      return (int) SG_VERTICES.invokeExact(path, vertices);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void free(MemorySegment part) {
    try {
      FREE.invokeExact(part);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long first(MemorySegment part) {
    try {
      return (long) FIRST.invokeExact(part);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long count(MemorySegment part) {
    try {
      return (long) COUNT.invokeExact(part);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long vertices(MemorySegment part) {
    try {
      return (long) VERTICES.invokeExact(part);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int start(MemorySegment part, MemorySegment ranks, MemorySegment contributions, long count,
      MemorySegment danglingVertices) {
    try {
      return (int) START.invokeExact(part, ranks, contributions, count, danglingVertices);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int step(MemorySegment part, MemorySegment options, MemorySegment contributions, long n, MemorySegment ranks,
      double dangling, MemorySegment newRanks, MemorySegment newContributions, long count, MemorySegment difference,
      MemorySegment newDangling) {
    try {
      return (int) STEP.invokeExact(part, options, contributions, n, ranks, dangling, newRanks, newContributions, count,
          difference, newDangling);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
