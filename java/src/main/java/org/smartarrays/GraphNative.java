// Owns the downcall handles of the C ABI's graph entry points (sa_graph_*, sa_pagerank_*) and the
// layouts of its graph structs. Loading, generating, building, saving, degree centrality and
// PageRank run as long as the graph is big, so they are ordinary downcalls on native memory; the
// counts, the memory report and the options' defaults are short critical calls.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.smartarrays.Native.CRITICAL;
import static org.smartarrays.Native.ORDINARY;
import static org.smartarrays.Native.bind;
import static org.smartarrays.Native.rethrow;
import static org.smartarrays.Native.status;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

final class GraphNative {
  private GraphNative() {}

  /** sa_graph_options as laid out by the C ABI (checked there by static_assert). */
  static final StructLayout OPTIONS = MemoryLayout.structLayout(
      JAVA_INT.withName("variant"),
      JAVA_INT.withName("dedup"),
      JAVA_INT.withName("drop_self_loops"),
      JAVA_INT.withName("undirected"),
      Native.OPTIONS.withName("arrays"),
      ADDRESS.withName("placement"),
      ADDRESS.withName("bits"));

  static final VarHandle OPTIONS_VARIANT = field(OPTIONS, "variant");
  static final VarHandle OPTIONS_DEDUP = field(OPTIONS, "dedup");
  static final VarHandle OPTIONS_DROP_SELF_LOOPS = field(OPTIONS, "drop_self_loops");
  static final VarHandle OPTIONS_UNDIRECTED = field(OPTIONS, "undirected");
  static final VarHandle OPTIONS_PLACEMENT = field(OPTIONS, "placement");
  static final VarHandle OPTIONS_BITS = field(OPTIONS, "bits");
  /** Where the embedded sa_options of every array starts. */
  static final long OPTIONS_ARRAYS_OFFSET = OPTIONS.byteOffset(MemoryLayout.PathElement.groupElement("arrays"));

  /** sa_graph_array_memory. */
  static final StructLayout ARRAY_MEMORY = MemoryLayout.structLayout(
      ADDRESS.withName("name"),
      JAVA_LONG.withName("length"),
      JAVA_LONG.withName("bytes"),
      JAVA_INT.withName("bits"),
      JAVA_INT.withName("placement"),
      JAVA_INT.withName("replicas"),
      MemoryLayout.paddingLayout(4));

  static final VarHandle MEMORY_NAME = field(ARRAY_MEMORY, "name");
  static final VarHandle MEMORY_LENGTH = field(ARRAY_MEMORY, "length");
  static final VarHandle MEMORY_BYTES = field(ARRAY_MEMORY, "bytes");
  static final VarHandle MEMORY_BITS = field(ARRAY_MEMORY, "bits");
  static final VarHandle MEMORY_PLACEMENT = field(ARRAY_MEMORY, "placement");
  static final VarHandle MEMORY_REPLICAS = field(ARRAY_MEMORY, "replicas");

  /** sa_pagerank_options. */
  static final StructLayout PAGERANK_OPTIONS = MemoryLayout.structLayout(
      JAVA_DOUBLE.withName("damping"),
      JAVA_DOUBLE.withName("tolerance"),
      JAVA_INT.withName("max_iterations"),
      JAVA_INT.withName("dangling"),
      JAVA_INT.withName("scores"),
      JAVA_INT.withName("reserved"));

  static final VarHandle PAGERANK_DAMPING = field(PAGERANK_OPTIONS, "damping");
  static final VarHandle PAGERANK_TOLERANCE = field(PAGERANK_OPTIONS, "tolerance");
  static final VarHandle PAGERANK_MAX_ITERATIONS = field(PAGERANK_OPTIONS, "max_iterations");
  static final VarHandle PAGERANK_DANGLING = field(PAGERANK_OPTIONS, "dangling");
  static final VarHandle PAGERANK_SCORES = field(PAGERANK_OPTIONS, "scores");

  /** sa_pagerank_result. */
  static final StructLayout PAGERANK_RESULT = MemoryLayout.structLayout(
      JAVA_INT.withName("iterations"),
      JAVA_INT.withName("converged"),
      JAVA_DOUBLE.withName("difference"),
      JAVA_DOUBLE.withName("seconds"));

  static final VarHandle RESULT_ITERATIONS = field(PAGERANK_RESULT, "iterations");
  static final VarHandle RESULT_CONVERGED = field(PAGERANK_RESULT, "converged");
  static final VarHandle RESULT_DIFFERENCE = field(PAGERANK_RESULT, "difference");
  static final VarHandle RESULT_SECONDS = field(PAGERANK_RESULT, "seconds");

  private static VarHandle field(StructLayout layout, String name) {
    return layout.varHandle(MemoryLayout.PathElement.groupElement(name));
  }

  private static final MethodHandle OPTIONS_INIT =
      bind("sa_graph_options_init", CRITICAL, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle LOAD = bind("sa_graph_load", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle GENERATE_RMAT =
      bind("sa_graph_generate_rmat", ORDINARY, status(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle GENERATE_UNIFORM =
      bind("sa_graph_generate_uniform", ORDINARY, status(JAVA_LONG, JAVA_DOUBLE, JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle FROM_EDGES =
      bind("sa_graph_from_edges", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle SAVE = bind("sa_graph_save", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle FREE = bind("sa_graph_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle VERTICES =
      bind("sa_graph_vertices", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle EDGES = bind("sa_graph_edges", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle DIRECTED = bind("sa_graph_directed", CRITICAL, FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle MEMORY =
      bind("sa_graph_memory", CRITICAL, status(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle DEGREE_CENTRALITY =
      bind("sa_graph_degree_centrality", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle OUT_DEGREES = bind("sa_graph_out_degrees", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle PAGERANK_OPTIONS_INIT =
      bind("sa_pagerank_options_init", CRITICAL, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle PAGERANK =
      bind("sa_graph_pagerank", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
  // A caller-driven PageRank's start and steps run over the whole graph in parallel: ordinary downcalls.
  private static final MethodHandle PAGERANK_START =
      bind("sa_graph_pagerank_start", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
  private static final MethodHandle PAGERANK_STEP = bind("sa_graph_pagerank_step", ORDINARY, status(ADDRESS, ADDRESS,
      ADDRESS, JAVA_LONG, ADDRESS, JAVA_DOUBLE, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));

  static void optionsInit(MemorySegment options) {
    try {
      OPTIONS_INIT.invokeExact(options);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int load(MemorySegment path, MemorySegment format, MemorySegment options, MemorySegment out) {
    try {
      return (int) LOAD.invokeExact(path, format, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int generateRmat(int scale, long edgeFactor, long seed, MemorySegment options, MemorySegment out) {
    try {
      return (int) GENERATE_RMAT.invokeExact(scale, edgeFactor, seed, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int generateUniform(long vertices, double averageDegree, long seed, MemorySegment options, MemorySegment out) {
    try {
      return (int) GENERATE_UNIFORM.invokeExact(vertices, averageDegree, seed, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int fromEdges(MemorySegment src, MemorySegment dst, long m, long vertices, MemorySegment options,
      MemorySegment out) {
    try {
      return (int) FROM_EDGES.invokeExact(src, dst, m, vertices, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int save(MemorySegment graph, MemorySegment path, MemorySegment format) {
    try {
      return (int) SAVE.invokeExact(graph, path, format);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void free(MemorySegment graph) {
    try {
      FREE.invokeExact(graph);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long vertices(MemorySegment graph) {
    try {
      return (long) VERTICES.invokeExact(graph);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long edges(MemorySegment graph) {
    try {
      return (long) EDGES.invokeExact(graph);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int directed(MemorySegment graph) {
    try {
      return (int) DIRECTED.invokeExact(graph);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int memory(MemorySegment graph, MemorySegment arrays, int max, MemorySegment count, MemorySegment total) {
    try {
      return (int) MEMORY.invokeExact(graph, arrays, max, count, total);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int degreeCentrality(MemorySegment graph, MemorySegment degrees, long n) {
    try {
      return (int) DEGREE_CENTRALITY.invokeExact(graph, degrees, n);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int outDegrees(MemorySegment graph, MemorySegment degrees, long n) {
    try {
      return (int) OUT_DEGREES.invokeExact(graph, degrees, n);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void pagerankOptionsInit(MemorySegment options) {
    try {
      PAGERANK_OPTIONS_INIT.invokeExact(options);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int pagerank(MemorySegment graph, MemorySegment options, MemorySegment ranks, long n, MemorySegment result) {
    try {
      return (int) PAGERANK.invokeExact(graph, options, ranks, n, result);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int pagerankStart(MemorySegment graph, MemorySegment ranks, MemorySegment contributions, long count,
      MemorySegment danglingVertices) {
    try {
      return (int) PAGERANK_START.invokeExact(graph, ranks, contributions, count, danglingVertices);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int pagerankStep(MemorySegment graph, MemorySegment options, MemorySegment contributions, long n,
      MemorySegment ranks, double dangling, MemorySegment newRanks, MemorySegment newContributions, long count,
      MemorySegment difference, MemorySegment newDangling) {
    try {
      return (int) PAGERANK_STEP.invokeExact(graph, options, contributions, n, ranks, dangling, newRanks,
          newContributions, count, difference, newDangling);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
