// Owns `make bench-java`: runs the JMH benchmarks (Figure 3 single-threaded scans, then the
// Java-driven parallel aggregation interleaved bit width by bit width with the C++-driven one of
// `smartarrays bench aggregate`, and in this one process alternately with the C++-driven one through
// sa_array_aggregate), then the Java-driven PageRank alternately with the C++-driven one
// (PageRankBenchmark), prints the tables with their ratio targets, and writes JSON:
// the Java aggregation series in the command's format (docs/cli.md) and a summary (docs/java.md).
package org.smartarrays.bench;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.smartarrays.Graph;
import org.smartarrays.ParallelLoop;
import org.smartarrays.SmartArray;
import org.smartarrays.SmartArrays;

/** Runs the binding's benchmarks; see {@link #USAGE}. */
public final class BenchMain {
  private BenchMain() {}

  static final String USAGE = """
      usage: BenchMain --results DIR [--cli PATH] [--length N] [--agg-length N] [--bits LIST]
                       [--placements LIST] [--warmup N] [--iterations N] [--iteration-ms N]
                       [--agg-warmup N] [--agg-runs N] [--pr-scale N] [--pr-edge-factor N]
                       [--pr-variants LIST] [--pr-iterations N] [--pr-warmup N] [--pr-runs N] [--only LIST]
        --results DIR      where the JSON files go (created if missing)
        --cli PATH         the smartarrays command, for the C++-driven aggregation (skipped without it)
        --length N         values per array of the Figure 3 scans (default 16777216)
        --agg-length N     values per array of the aggregation (default 16777216)
        --bits LIST        aggregation bit widths (default 10,31,32,33,50,63,64)
        --placements LIST  aggregation placements (default os_default,single_node,interleaved,replicated)
        --warmup N         JMH warm-up iterations, and the command's warm-up runs (default 3)
        --iterations N     JMH measured iterations, and the command's timed runs (default 5)
        --iteration-ms N   JMH iteration time in milliseconds (default 500)
        --agg-warmup N     untimed aggregation runs per cell, Java and C++ alike (default 10)
        --agg-runs N       timed single runs per cell, Java and C++ alike; medians compared (default 30)
        --pr-scale N       PageRank graph: R-MAT of 2^N vertices (default 20)
        --pr-edge-factor N PageRank graph: N * 2^scale edges (default 16)
        --pr-variants LIST PageRank compression variants (default U,V,V+E)
        --pr-iterations N  PageRank iterations per run, fixed (tolerance 0; default 10)
        --pr-warmup N      untimed PageRank runs per variant, Java- and C++-driven alike (default 2)
        --pr-runs N        timed PageRank runs per variant, Java- and C++-driven alternating (default 20)
        --only LIST        run only these cases: figure3, aggregate (the JMH and command series, then the
                           in-process one), aggregate-in-process, pagerank (default: all)
        --plot PYTHON      draw the aggregation figure of both series, next to the JSON files, by
        --plot-script S    running the plotting script S (bench/plot_aggregate.py) with PYTHON
      """;

  private static final double AGGREGATE_LIMIT = 1.10;

  /** A benchmark's per-iteration scores (milliseconds per operation, or per single run) and their statistics. */
  record Scores(List<Double> ms) {
    double median() {
      double[] s = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    double min() {
      return ms.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    double max() {
      return ms.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    }

    double spread() {
      return (max() - min()) / median();
    }

    /** The q-quantile (0..1) of the values, interpolated linearly between the two nearest. */
    double quantile(double q) {
      double[] s = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double position = q * (s.length - 1);
      int below = (int) Math.floor(position);
      int above = Math.min(below + 1, s.length - 1);
      return s[below] + (position - below) * (s[above] - s[below]);
    }

    /** ms[i] / other.ms[i] for every run i: the ratios of runs made side by side. */
    Scores ratios(Scores other) {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < ms.size(); i++) ratios.add(ms.get(i) / other.ms().get(i));
      return new Scores(ratios);
    }

    /** The median over runs i of ms[i] / other.ms[i]: the ratio of runs made side by side, which a load that
        changes between runs disturbs less than the ratio of the medians. */
    double pairedRatio(Scores other) {
      return ratios(other).median();
    }
  }

  /** One Figure 3 benchmark: its method, what it measures, and the limit on its ratio (0 = none). */
  record Scan(String method, String label, double limit) {}

  static final List<Scan> SCANS = List.of(
      new Scan("javaLongArray", "long[] (Java)", 0),
      new Scan("nativeSegment", "native memory via MemorySegment", 0),
      new Scan("downcallPerElement64", "downcall per element get(i), 64-bit", 0),
      new Scan("cursorValues64", "smart 64-bit, cursor value by value", 0),
      new Scan("cursorBatches64", "smart 64-bit, cursor batch by batch", 1.15),
      new Scan("asSegment64", "smart 64-bit, asSegment()", 1.15),
      new Scan("bulkSum64", "smart 64-bit, bulk sum()", 1.0),
      new Scan("cursorValues33", "smart 33-bit, cursor value by value", 0),
      new Scan("cursorBatches33", "smart 33-bit, cursor batch by batch", 1.6),
      new Scan("bulkSum33", "smart 33-bit, bulk sum()", 1.0),
      new Scan("cursorBatches10", "smart 10-bit, cursor batch by batch", 0),
      new Scan("bulkSum10", "smart 10-bit, bulk sum()", 0));

  private final Map<String, String> options = new LinkedHashMap<>();
  private final String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
  private Path results;

  /** Runs the benchmarks named by args (see USAGE). */
  public static void main(String[] args) throws Exception {
    BenchMain main = new BenchMain();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        System.err.print("BenchMain: bad arguments " + Arrays.toString(args) + "\n" + USAGE);
        System.exit(2);
      }
      main.options.put(args[i].substring(2), args[i + 1]);
    }
    if (!main.options.containsKey("results")) {
      System.err.print(USAGE);
      System.exit(2);
    }
    main.results = Files.createDirectories(Path.of(main.options.get("results")));
    main.run();
  }

  private String option(String name, String fallback) {
    return options.getOrDefault(name, fallback);
  }

  private int intOption(String name, int fallback) {
    return Integer.parseInt(option(name, Integer.toString(fallback)));
  }

  private static final List<String> CASES = List.of("figure3", "aggregate", "aggregate-in-process", "pagerank");

  // Whether the --only list (empty: every case) names the case.
  private static boolean runs(String only, String name) {
    if (only.isEmpty()) return true;
    List<String> names = List.of(only.split(","));
    for (String n : names) {
      if (!CASES.contains(n)) throw new IllegalArgumentException("--only: unknown case " + n + " (expected " + CASES + ")");
    }
    return names.contains(name);
  }

  private PageRankBenchmark.Config pagerankConfig() {
    List<Graph.Variant> variants = Arrays.stream(option("pr-variants", "U,V,V+E").split(","))
        .map(v -> Graph.Variant.valueOf(v.equals("V+E") ? "VE" : v)).toList();
    return new PageRankBenchmark.Config(intOption("pr-scale", 20), intOption("pr-edge-factor", 16), 1, variants,
        intOption("pr-iterations", 10), intOption("pr-warmup", 2), intOption("pr-runs", 20));
  }

  private void run() throws Exception {
    String only = option("only", "");
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("format", "smartarrays.bench.java/1");
    summary.put("language", "Java");
    summary.put("created", Instant.now().toString());
    summary.put("jmh", ordered("forks", 1, "warmup_iterations", intOption("warmup", 3),
        "iterations", intOption("iterations", 5), "iteration_ms", intOption("iteration-ms", 500),
        "aggregate_warmup_runs", intOption("agg-warmup", 10), "aggregate_runs", intOption("agg-runs", 30)));
    if (runs(only, "figure3")) summary.put("figure3", figure3());
    if (runs(only, "aggregate")) summary.put("aggregate", aggregate());
    if (runs(only, "aggregate") || runs(only, "aggregate-in-process")) {
      summary.put("aggregate_in_process", aggregateInProcess());
    }
    if (runs(only, "pagerank")) summary.put("pagerank", PageRankBenchmark.run(pagerankConfig()));
    summary.put("machine", MachineFacts.now());
    Path file = results.resolve("java-bench-" + stamp + ".json");
    Files.writeString(file, Json.write(summary));
    System.out.println("\nresults: " + file);
  }

  private ChainedOptionsBuilder jmh(String benchmarkRegex) {
    TimeValue iteration = TimeValue.milliseconds(intOption("iteration-ms", 500));
    List<String> jvmArgs = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
    // JMH itself calls sun.misc.Unsafe, which JDK 24+ warns about in every fork.
    if (Runtime.version().feature() >= 24) jvmArgs.add("--sun-misc-unsafe-memory-access=allow");
    String library = System.getProperty("smartarrays.library");
    if (library != null) jvmArgs.add("-Dsmartarrays.library=" + library);
    return new OptionsBuilder().include(benchmarkRegex).forks(1)
        .warmupIterations(intOption("warmup", 3)).warmupTime(iteration)
        .measurementIterations(intOption("iterations", 5)).measurementTime(iteration)
        .jvmArgs(jvmArgs.toArray(String[]::new)).shouldFailOnError(true).verbosity(VerboseMode.SILENT);
  }

  private static Scores scores(RunResult run) {
    List<Double> ms = new ArrayList<>();
    for (BenchmarkResult fork : run.getBenchmarkResults()) {
      for (IterationResult iteration : fork.getIterationResults()) ms.add(iteration.getPrimaryResult().getScore());
    }
    return new Scores(ms);
  }

  private Map<String, Object> figure3() throws RunnerException {
    String length = option("length", Integer.toString(1 << 24));
    System.out.println("Figure 3: single-threaded sum over " + length + " values, JMH " + intOption("warmup", 3)
        + " warm-up + " + intOption("iterations", 5) + " iterations of " + intOption("iteration-ms", 500) + " ms");
    Map<String, Scores> byMethod = new LinkedHashMap<>();
    for (Scan scan : SCANS) {
      System.out.printf(Locale.ROOT, "  %-22s ...%n", scan.method());
      Collection<RunResult> runs = new Runner(
          jmh(Figure3Benchmark.class.getName() + "\\." + scan.method() + "$").param("length", length).build()).run();
      byMethod.put(scan.method(), scores(runs.iterator().next()));
    }
    double baseline = byMethod.get("javaLongArray").median();
    List<Object> rows = new ArrayList<>();
    List<Object> targets = new ArrayList<>();
    System.out.println();
    System.out.println(" benchmark              what                                 median ms  spread  x long[]  target");
    System.out.println(" ---------------------  -----------------------------------  ---------  ------  --------  ------------");
    for (Scan scan : SCANS) {
      Scores s = byMethod.get(scan.method());
      double ratio = s.median() / baseline;
      String target = scan.limit() == 0 ? "" : String.format(Locale.ROOT, "<= %.2f %s", scan.limit(),
          ratio <= scan.limit() ? "met" : "MISSED");
      System.out.printf(Locale.ROOT, " %-21s  %-35s  %9.2f  %5.1f%%  %8.2f  %s%n", scan.method(), scan.label(),
          s.median(), s.spread() * 100, ratio, target);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", scan.method());
      row.put("what", scan.label());
      row.put("median_ms", s.median());
      row.put("min_ms", s.min());
      row.put("max_ms", s.max());
      row.put("spread", s.spread());
      row.put("iterations_ms", s.ms());
      row.put("ratio_vs_long_array", ratio);
      rows.add(row);
      if (scan.limit() > 0) {
        targets.add(ordered("name", scan.method(), "ratio", ratio, "limit", scan.limit(), "met", ratio <= scan.limit()));
      }
    }
    Map<String, Object> figure3 = new LinkedHashMap<>();
    figure3.put("length", Long.parseLong(length));
    figure3.put("results", rows);
    figure3.put("targets", targets);
    return figure3;
  }

  // An object with the given keys and values, in that order.
  private static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    return map;
  }

  private static double number(Object json) {
    return ((BigDecimal) json).doubleValue();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Object json) {
    return (Map<String, Object>) json;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> array(Object json) {
    return (List<Object>) json;
  }

  // The command's aggregation grid for one bit width; its results rows, keyed by placement.
  private Map<String, Map<String, Object>> cppAggregate(String cli, int bits, String length, String placements,
      List<String> cppFiles) throws IOException, InterruptedException {
    Path file = results.resolve("aggregate-cpp-" + stamp + "-" + bits + "bit.json");
    List<String> command = List.of(cli, "bench", "aggregate", "--size", length, "--bits", Integer.toString(bits),
        "--placements", placements, "--warmup", option("agg-warmup", "10"), "--repetitions", option("agg-runs", "30"),
        "--quiet", "--json", file.toString());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
    cppFiles.add(file.toString());
    Map<String, Object> doc = object(Json.parse(Files.readString(file)));
    Map<String, Map<String, Object>> byPlacement = new LinkedHashMap<>();
    for (Object row : array(doc.get("results"))) byPlacement.put((String) object(row).get("placement"), object(row));
    return byPlacement;
  }

  private Map<String, Object> aggregate() throws Exception {
    String length = option("agg-length", Integer.toString(1 << 24));
    List<Integer> bitsList = Arrays.stream(option("bits", "10,31,32,33,50,63,64").split(","))
        .map(Integer::parseInt).toList();
    String placements = option("placements", "os_default,single_node,interleaved,replicated");
    String cli = options.get("cli");
    int threads = ParallelLoop.workers();
    System.out.println("\naggregation sum += a1[i] + a2[i], 2 arrays x " + length + " values, " + threads
        + " threads: Java-driven (pinned Java workers on sa_loop) and " + (cli == null ? "no C++ run (no --cli)"
        : "C++-driven (" + cli + " bench aggregate)") + ", interleaved per bit width");

    List<Map<String, Object>> javaRows = new ArrayList<>();
    List<Object> comparison = new ArrayList<>();
    List<String> cppFiles = new ArrayList<>();
    for (int bits : bitsList) {
      System.out.printf(Locale.ROOT, "  %2d bits ...%n", bits);
      Map<String, Map<String, Object>> cpp = cli == null ? Map.of()
          : cppAggregate(cli, bits, length, placements, cppFiles);
      long expected = expectedSum(Integer.parseInt(length), bits);
      // Single runs, as the command times them: the same estimator (median of single runs) on both sides.
      Collection<RunResult> runs = new Runner(jmh(AggregateBenchmark.class.getName() + "\\.aggregate$")
          .mode(Mode.SingleShotTime).warmupIterations(intOption("agg-warmup", 10))
          .measurementIterations(intOption("agg-runs", 30)).param("length", length).param("bits", Integer.toString(bits)).param("placement", placements.split(","))
          .build()).run();
      for (RunResult run : runs) {
        String placement = run.getParams().getParam("placement");
        Scores s = scores(run);
        javaRows.add(javaRow(bits, placement, threads, Long.parseLong(length), s, expected));
        Map<String, Object> c = cpp.get(placement);
        if (c == null) continue;
        BigDecimal cppSum = (BigDecimal) c.get("sum");
        if (cppSum.compareTo(new BigDecimal(Long.toUnsignedString(expected))) != 0) {
          throw new IllegalStateException("the C++ run summed " + cppSum + " for " + bits + " bits, the Java data gives "
              + Long.toUnsignedString(expected) + ": the two series did not read the same data");
        }
        double ratio = s.median() / 1e3 / number(c.get("median_s"));
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("bits", bits);
        row.put("placement", placement);
        row.put("threads", threads);
        row.put("cpp_median_s", number(c.get("median_s")));
        row.put("java_median_s", s.median() / 1e3);
        row.put("java_over_cpp", ratio);
        row.put("limit", AGGREGATE_LIMIT);
        row.put("met", ratio <= AGGREGATE_LIMIT);
        comparison.add(row);
      }
    }
    speedups(javaRows);

    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "smartarrays.bench.aggregate/1");
    doc.put("language", "Java");
    doc.put("created", Instant.now().toString().replaceAll("\\.\\d+Z$", "Z"));
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("length", Long.parseLong(length));
    config.put("bits", bitsList);
    config.put("placements", List.of(placements.split(",")));
    config.put("threads", List.of(threads));
    config.put("repetitions", intOption("agg-runs", 30));
    config.put("warmup", intOption("agg-warmup", 10));
    config.put("pinning", "sparse");
    config.put("node", 0);
    config.put("seed", 1);
    doc.put("config", config);
    doc.put("machine", MachineFacts.now());
    doc.put("results", javaRows);
    Path javaFile = results.resolve("aggregate-java-" + stamp + ".json");
    Files.writeString(javaFile, Json.write(doc));

    printAggregate(javaRows, comparison);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("java_file", javaFile.toString());
    summary.put("cpp_files", cppFiles);
    summary.put("comparison", comparison);
    System.out.println("\naggregation series: " + javaFile + (cppFiles.isEmpty() ? "" : " (Java), "
        + String.join(" ", cppFiles) + " (C++)"));
    if (options.containsKey("plot") && options.containsKey("plot-script")) summary.put("figure", plot(javaFile, cppFiles));
    return summary;
  }

  // The Java-driven aggregation (ParallelLoop) and the C++-driven one (SmartArrays.aggregate, sa_array_aggregate)
  // timed alternately, run by run, in this one process over the same arrays: the ratio of their medians.
  private Map<String, Object> aggregateInProcess() {
    int length = Integer.parseInt(option("agg-length", Integer.toString(1 << 24)));
    List<Integer> bitsList = Arrays.stream(option("bits", "10,31,32,33,50,63,64").split(",")).map(Integer::parseInt).toList();
    int warmup = intOption("agg-warmup", 10);
    int runs = intOption("agg-runs", 30);
    System.out.println("\naggregation in one process, Java-driven and C++-driven (sa_array_aggregate) alternating run by run, "
        + runs + " runs each after " + warmup + " warm-up runs; paired = median over runs of Java/C++ of the same run");
    System.out.println(" bits  placement    Java ms  spread  C++ ms  spread  Java/C++  paired  target");
    System.out.println(" ----  -----------  -------  ------  ------  ------  --------  ------  -----------");
    List<Object> rows = new ArrayList<>();
    for (int bits : bitsList) {
      long expected = expectedSum(length, bits);
      for (String placement : option("placements", "os_default,single_node,interleaved,replicated").split(",")) {
        try (SmartArray a1 = SmartArray.fromLongs(AggregationData.values(length, bits, 1), AggregateBenchmark.options(placement, bits));
             SmartArray a2 = SmartArray.fromLongs(AggregationData.values(length, bits, 2), AggregateBenchmark.options(placement, bits))) {
          List<Double> javaMs = new ArrayList<>();
          List<Double> cppMs = new ArrayList<>();
          for (int run = 0; run < warmup + runs; run++) {
            // Alternate which driver goes first, so neither always runs on the other's warm caches.
            double[] ms = new double[2];
            for (int side = 0; side < 2; side++) {
              boolean javaSide = (side == 0) == (run % 2 == 0);
              long start = System.nanoTime();
              long sum = javaSide ? ParallelLoop.reduce(0, length, 0, (lo, hi) -> a1.sum(lo, hi) + a2.sum(lo, hi), Long::sum)
                  : SmartArrays.aggregate(a1, a2);
              ms[javaSide ? 0 : 1] = (System.nanoTime() - start) / 1e6;
              Figure3Benchmark.check(expected, sum, javaSide ? "Java-driven aggregation" : "C++-driven aggregation");
            }
            if (run < warmup) continue;
            javaMs.add(ms[0]);
            cppMs.add(ms[1]);
          }
          Scores java = new Scores(javaMs);
          Scores cpp = new Scores(cppMs);
          double ratio = java.median() / cpp.median();
          double paired = java.pairedRatio(cpp);
          System.out.printf(Locale.ROOT, " %4d  %-11s  %7.2f  %5.1f%%  %6.2f  %5.1f%%  %8.3f  %6.3f  <= %.2f %s%n", bits,
              placement, java.median(), java.spread() * 100, cpp.median(), cpp.spread() * 100, ratio, paired,
              AGGREGATE_LIMIT, ratio <= AGGREGATE_LIMIT ? "met" : "MISSED");
          rows.add(ordered("bits", bits, "placement", placement, "threads", ParallelLoop.workers(), "length", length,
              "java_median_s", java.median() / 1e3, "java_spread", java.spread(), "cpp_median_s", cpp.median() / 1e3,
              "cpp_spread", cpp.spread(), "java_over_cpp", ratio, "java_over_cpp_paired", paired,
              "limit", AGGREGATE_LIMIT, "met", ratio <= AGGREGATE_LIMIT));
        }
      }
    }
    return ordered("warmup_runs", warmup, "runs", runs, "results", rows);
  }

  // Draws both series into one figure with the project's plotting script; returns the PNG's path.
  private String plot(Path javaFile, List<String> cppFiles) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(options.get("plot"), options.get("plot-script")));
    command.addAll(cppFiles);
    command.add(javaFile.toString());
    Path png = results.resolve("aggregate-java-" + stamp + ".png");
    command.addAll(List.of("-o", png.toString()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
    System.out.println("aggregation figure: " + png);
    return png.toString();
  }

  // The wrapping sum of both arrays' values, straight from the generator.
  private static long expectedSum(int length, int bits) {
    long[] v1 = AggregationData.values(length, bits, 1);
    long[] v2 = AggregationData.values(length, bits, 2);
    long sum = 0;
    for (int i = 0; i < length; i++) sum += v1[i] + v2[i];
    return sum;
  }

  private static Map<String, Object> javaRow(int bits, String placement, int threads, long length, Scores s, long sum) {
    double median = s.median() / 1e3;
    long bytes = 2 * ((length + 63) / 64) * bits * 8;
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("language", "Java");
    row.put("bits", bits);
    row.put("placement", placement);
    row.put("threads", threads);
    row.put("median_s", median);
    row.put("min_s", s.min() / 1e3);
    row.put("max_s", s.max() / 1e3);
    row.put("spread", s.spread());
    row.put("seconds", s.ms().stream().map(ms -> ms / 1e3).toList());
    row.put("bytes", bytes);
    row.put("gb_per_s", bytes / median / 1e9);
    row.put("values_per_s", 2 * length / median);
    row.put("speedup_vs_64", 0.0);
    row.put("sum", new BigDecimal(Long.toUnsignedString(sum)));
    return row;
  }

  // speedup_vs_64 of each row: the 64-bit median of the same placement over this median.
  private static void speedups(List<Map<String, Object>> rows) {
    for (Map<String, Object> row : rows) {
      for (Map<String, Object> base : rows) {
        if ((int) base.get("bits") == 64 && base.get("placement").equals(row.get("placement"))) {
          row.put("speedup_vs_64", (double) base.get("median_s") / (double) row.get("median_s"));
        }
      }
    }
  }

  private static void printAggregate(List<Map<String, Object>> javaRows, List<Object> comparison) {
    System.out.println();
    System.out.println(" bits  placement    Java ms  spread  C++ ms  Java/C++  target");
    System.out.println(" ----  -----------  -------  ------  ------  --------  -----------");
    for (Map<String, Object> row : javaRows) {
      Map<String, Object> c = comparison.stream().map(BenchMain::object)
          .filter(r -> r.get("bits").equals(row.get("bits")) && r.get("placement").equals(row.get("placement")))
          .findFirst().orElse(null);
      String cpp = c == null ? "     -        -" : String.format(Locale.ROOT, "%6.2f  %8.3f", (double) c.get("cpp_median_s") * 1e3,
          (double) c.get("java_over_cpp"));
      String target = c == null ? "" : String.format(Locale.ROOT, "<= %.2f %s", AGGREGATE_LIMIT,
          (boolean) c.get("met") ? "met" : "MISSED");
      System.out.printf(Locale.ROOT, " %4d  %-11s  %7.2f  %5.1f%%  %s  %s%n", (int) row.get("bits"), row.get("placement"),
          (double) row.get("median_s") * 1e3, (double) row.get("spread") * 100, cpp, target);
    }
  }
}
