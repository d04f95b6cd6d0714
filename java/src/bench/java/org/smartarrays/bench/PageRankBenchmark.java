// Owns the paper's PGX-style PageRank (§5.2) driven from Java against the C++-driven one, in one
// process: Java runs the iteration loop and per iteration makes one native pull step over the
// graph's own smart arrays (Graph.pagerankStep on off-heap segments, swapped between iterations, no
// copy), while Graph.pagerank runs the same iterations in the core; the two alternate run by run,
// their ranks must agree, and the table and JSON give the time per iteration of both and their ratio:
// Java's native steps against the core's iterations (setup excluded on both sides, the target), and
// whole runs with their setup (allocating the scores, copying the ranks out). Per driver it also gives
// how busy the JVM's own threads were (compilers, GC) while it ran, and how long the library's threads
// waited for a CPU: the JVM's interference and the machine's load, read from the kernel (ThreadTimes).
package org.smartarrays.bench;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.smartarrays.ArrayOptions;
import org.smartarrays.Graph;
import org.smartarrays.GraphOptions;
import org.smartarrays.PageRankOptions;
import org.smartarrays.PageRankTotals;
import org.smartarrays.PlacedBuffer;

final class PageRankBenchmark {
  private PageRankBenchmark() {}

  /** Java-driven over C++-driven time per iteration (steps against iterations) must stay below this. */
  static final double LIMIT = 1.10;
  /** Largest relative difference of a rank between the two drivers: float precision. */
  static final double RANK_TOLERANCE = 1e-6;

  /** What one case runs: the R-MAT graph, its variant, the iterations of every run and the runs. */
  record Config(int scale, long edgeFactor, long seed, List<Graph.Variant> variants, int iterations, int warmup, int runs) {}

  /** One Java-driven run: the ranks, the wall time of each native step in milliseconds, and the threads'
      times over the steps. */
  record JavaRun(double[] ranks, List<Double> stepMs, ThreadTimes.Delta threads) {}

  /**
   * The Java-driven PageRank: the start, then options.maxIterations() iterations of one native step
   * each over the graph's own arrays, on two placed buffers of n doubles (huge pages, as the core's own
   * score arrays) updated in place as the core's own loop updates its arrays (the contributions in a
   * second pass once the pull is done); then the ranks copied out once, as Graph.pagerank hands them out.
   */
  static JavaRun javaDriven(Graph g, PageRankOptions options) {
    long bytes = g.vertices() * Double.BYTES;
    List<Double> stepMs = new ArrayList<>(options.maxIterations());
    try (PlacedBuffer b1 = PlacedBuffer.allocate(bytes, ArrayOptions.defaults());
        PlacedBuffer b2 = PlacedBuffer.allocate(bytes, ArrayOptions.defaults())) {
      long n = g.vertices();
      MemorySegment ranks = b1.segment();
      MemorySegment shares = b2.segment();
      long danglingVertices = g.pagerankStart(ranks, shares);
      double dangling = options.dangling() == PageRankOptions.Dangling.UNIFORM ? danglingVertices * (1.0 / n) : 0;
      ThreadTimes before = ThreadTimes.now();
      for (int iteration = 0; iteration < options.maxIterations(); iteration++) {
        long start = System.nanoTime();
        PageRankTotals totals = g.pagerankStep(options, shares, ranks, dangling, ranks, shares);
        stepMs.add((System.nanoTime() - start) / 1e6);
        dangling = totals.dangling();
        if (totals.difference() < options.tolerance()) break;
      }
      ThreadTimes.Delta threads = before.until(ThreadTimes.now());
      return new JavaRun(ranks.toArray(JAVA_DOUBLE), stepMs, threads);
    }
  }

  // The largest |java - cpp| / max(|cpp|, 1/n) over the vertices.
  private static double rankDifference(double[] java, double[] cpp) {
    double floor = 1.0 / cpp.length;
    double worst = 0;
    for (int v = 0; v < cpp.length; v++) worst = Math.max(worst, Math.abs(java[v] - cpp[v]) / Math.max(Math.abs(cpp[v]), floor));
    return worst;
  }

  // A share in percent of a total, 0 for an empty total.
  private static double percent(long part, long total) {
    return total > 0 ? 100.0 * part / total : 0;
  }

  /** Runs of both drivers on a 64-vertex graph before any timing, so the JIT compiles their Java code (the
      step's marshalling and downcall, hot only after thousands of calls) instead of compiling it on the
      CPUs of the timed runs. */
  static final int JIT_WARMUP_RUNS = 1000;

  private static void warmUpTheJit(PageRankOptions options) {
    try (Graph g = Graph.rmat(6, 16, 1, GraphOptions.defaults())) {
      for (int run = 0; run < JIT_WARMUP_RUNS; run++) {
        javaDriven(g, options);
        g.pagerank(options);
        ThreadTimes.now();
      }
    }
  }

  /** Runs every variant (warm-up, then the timed runs, Java-driven and C++-driven alternating); prints the table. */
  static Map<String, Object> run(Config config) {
    PageRankOptions options = PageRankOptions.defaults().withTolerance(0).withMaxIterations(config.iterations());
    warmUpTheJit(options);
    System.out.printf(Locale.ROOT, "%nPageRank on R-MAT scale %d, edge factor %d, %d iterations per run: Java-driven "
        + "(a native pull step per iteration, Graph.pagerankStep) and C++-driven (Graph.pagerank) alternating run by run, "
        + "%d runs each after %d warm-up runs; ms/it = Java's steps and the core's iterations, setup excluded; paired = "
        + "median over runs of Java/C++ of the same run, p25-p75 its quartiles; run paired = the same of whole runs with "
        + "their setup (scores allocated, ranks copied out); JVM%% = CPU time of the JVM's own threads (compilers, "
        + "GC) over the wall time of the Java steps / of the C++ runs; CPU wait = time the library's threads waited for "
        + "a CPU, of their time on and waiting for one (the machine's load)%n",
        config.scale(), config.edgeFactor(), config.iterations(), config.runs(),
        config.warmup());
    System.out.println(" variant  Java ms/it  spread  C++ ms/it  spread  Java/C++  paired  p25-p75      run paired  "
        + "JVM% Java  JVM% C++  CPU wait  max rank diff  target");
    System.out.println(" -------  ----------  ------  ---------  ------  --------  ------  -----------  ----------  "
        + "---------  --------  --------  -------------  -----------");
    List<Object> rows = new ArrayList<>();
    for (Graph.Variant variant : config.variants()) {
      try (Graph g = Graph.rmat(config.scale(), config.edgeFactor(), config.seed(), GraphOptions.defaults().withVariant(variant))) {
        List<Double> javaMs = new ArrayList<>();
        List<Double> cppMs = new ArrayList<>();
        List<Double> javaRunMs = new ArrayList<>();
        List<Double> cppRunMs = new ArrayList<>();
        // Summed over the timed runs, in ns: the JVM's threads' CPU and the wall time under the Java steps and
        // under the C++ runs, and the library's threads' time on a CPU and waiting for one under both.
        long[] jvm = new long[2];
        long[] wall = new long[2];
        long libraryRun = 0;
        long libraryWait = 0;
        double worst = 0;
        for (int run = 0; run < config.warmup() + config.runs(); run++) {
          // Alternate which driver goes first, so neither always runs on the other's warm caches.
          boolean javaFirst = run % 2 == 0;
          double[] timeMs = new double[2];
          JavaRun java = null;
          Graph.PageRankResult cpp = null;
          ThreadTimes.Delta cppThreads = null;
          for (int side = 0; side < 2; side++) {
            boolean javaSide = (side == 0) == javaFirst;
            long start = System.nanoTime();
            if (javaSide) {
              java = javaDriven(g, options);
            } else {
              ThreadTimes before = ThreadTimes.now();
              cpp = g.pagerank(options);
              cppThreads = before.until(ThreadTimes.now());
            }
            timeMs[javaSide ? 0 : 1] = (System.nanoTime() - start) / 1e6;
          }
          if (cpp.iterations() != config.iterations() || java.stepMs().size() != config.iterations()) {
            throw new IllegalStateException("PageRank ran " + cpp.iterations() + " (C++) and " + java.stepMs().size()
                + " (Java) iterations, expected " + config.iterations());
          }
          double difference = rankDifference(java.ranks(), cpp.ranks());
          if (difference > RANK_TOLERANCE) {
            throw new IllegalStateException("the Java-driven ranks differ from the C++-driven ones by " + difference
                + " (relative) on variant " + variant);
          }
          worst = Math.max(worst, difference);
          if (run < config.warmup()) continue;
          double stepsMs = java.stepMs().stream().mapToDouble(Double::doubleValue).sum();
          javaMs.add(stepsMs / config.iterations());
          cppMs.add(cpp.seconds() * 1e3 / config.iterations());
          javaRunMs.add(timeMs[0] / config.iterations());
          cppRunMs.add(timeMs[1] / config.iterations());
          jvm[0] += java.threads().jvmRunNs();
          jvm[1] += cppThreads.jvmRunNs();
          wall[0] += Math.round(stepsMs * 1e6);
          wall[1] += Math.round(timeMs[1] * 1e6);
          libraryRun += java.threads().libraryRunNs() + cppThreads.libraryRunNs();
          libraryWait += java.threads().libraryWaitNs() + cppThreads.libraryWaitNs();
        }
        BenchMain.Scores j = new BenchMain.Scores(javaMs);
        BenchMain.Scores c = new BenchMain.Scores(cppMs);
        BenchMain.Scores jRun = new BenchMain.Scores(javaRunMs);
        BenchMain.Scores cRun = new BenchMain.Scores(cppRunMs);
        BenchMain.Scores pairs = j.ratios(c);
        double ratio = j.median() / c.median();
        double runPaired = jRun.pairedRatio(cRun);
        double javaJvmBusy = percent(jvm[0], wall[0]);
        double cppJvmBusy = percent(jvm[1], wall[1]);
        double cpuWait = percent(libraryWait, libraryRun + libraryWait);
        System.out.printf(Locale.ROOT,
            " %-7s  %10.2f  %5.1f%%  %9.2f  %5.1f%%  %8.3f  %6.3f  %5.3f-%5.3f  %10.3f  %8.1f%%  %7.1f%%  %7.1f%%  %13.1e"
                + "  <= %.2f %s%n",
            variant, j.median(), j.spread() * 100, c.median(), c.spread() * 100, ratio, pairs.median(), pairs.quantile(0.25),
            pairs.quantile(0.75), runPaired, javaJvmBusy, cppJvmBusy, cpuWait, worst, LIMIT, ratio <= LIMIT ? "met" : "MISSED");
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("variant", variant == Graph.Variant.VE ? "V+E" : variant.name());
        row.put("vertices", g.vertices());
        row.put("edges", g.edges());
        row.put("java_ms_per_iteration", j.median());
        row.put("java_spread", j.spread());
        row.put("java_runs_ms_per_iteration", j.ms());
        row.put("cpp_ms_per_iteration", c.median());
        row.put("cpp_spread", c.spread());
        row.put("cpp_runs_ms_per_iteration", c.ms());
        row.put("java_run_ms_per_iteration", jRun.median());
        row.put("cpp_run_ms_per_iteration", cRun.median());
        row.put("java_over_cpp_run_paired", runPaired);
        row.put("java_over_cpp", ratio);
        row.put("java_over_cpp_paired", pairs.median());
        row.put("java_over_cpp_paired_p25", pairs.quantile(0.25));
        row.put("java_over_cpp_paired_p75", pairs.quantile(0.75));
        row.put("java_over_cpp_runs", pairs.ms());
        row.put("jvm_busy_percent_java", javaJvmBusy);
        row.put("jvm_busy_percent_cpp", cppJvmBusy);
        row.put("cpu_wait_percent", cpuWait);
        row.put("limit", LIMIT);
        row.put("met", ratio <= LIMIT);
        row.put("max_relative_rank_difference", worst);
        rows.add(row);
      }
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("scale", config.scale());
    result.put("edge_factor", config.edgeFactor());
    result.put("seed", config.seed());
    result.put("iterations_per_run", config.iterations());
    result.put("warmup_runs", config.warmup());
    result.put("runs", config.runs());
    result.put("results", rows);
    return result;
  }
}
