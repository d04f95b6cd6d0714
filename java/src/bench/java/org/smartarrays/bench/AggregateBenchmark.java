// Owns the paper's parallel aggregation (§5.1, Figure 10) driven from Java: sum += a1[i] + a2[i]
// as a ParallelLoop whose pinned Java workers take batches from the native runtime and sum each
// batch of both smart arrays with one native call per array (the Callisto-RTS design).
package org.smartarrays.bench;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.smartarrays.ArrayOptions;
import org.smartarrays.ParallelLoop;
import org.smartarrays.Placement;
import org.smartarrays.SmartArray;

/** The aggregation of two smart arrays by the Java workers of ParallelLoop. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class AggregateBenchmark {
  /** Values per array. */
  @Param("16777216")
  public int length;

  /** Bits per value of both arrays. */
  @Param({"10", "31", "32", "33", "50", "63", "64"})
  public int bits;

  /** Placement of both arrays, as the command spells it. */
  @Param({"os_default", "single_node", "interleaved", "replicated"})
  public String placement;

  /** Data seed of the first array (the second uses seed + 1), as `smartarrays bench aggregate --seed`. */
  @Param("1")
  public long seed;

  private SmartArray a1;
  private SmartArray a2;
  private long expected;

  static ArrayOptions options(String placement, int bits) {
    ArrayOptions options = switch (Placement.valueOf(placement.toUpperCase(Locale.ROOT))) {
      case OS_DEFAULT -> ArrayOptions.defaults();
      case SINGLE_NODE -> ArrayOptions.singleNode(0);
      case INTERLEAVED -> ArrayOptions.interleaved();
      case REPLICATED -> ArrayOptions.replicated();
      case PARTITIONED -> ArrayOptions.partitioned();
      case AUTO -> throw new IllegalArgumentException("placement auto is chosen by the adaptive layer, not benchmarked here");
    };
    return options.withBits(bits);
  }

  /** Builds both arrays and the sum every run must give (from the data, not from the arrays). */
  @Setup(Level.Trial)
  public void setUp() {
    long[] v1 = AggregationData.values(length, bits, seed);
    long[] v2 = AggregationData.values(length, bits, seed + 1);
    long sum = 0;
    for (int i = 0; i < length; i++) sum += v1[i] + v2[i];
    expected = sum;
    a1 = SmartArray.fromLongs(v1, options(placement, bits));
    a2 = SmartArray.fromLongs(v2, options(placement, bits));
  }

  /** Frees both arrays. */
  @TearDown(Level.Trial)
  public void tearDown() {
    a1.close();
    a2.close();
  }

  /** One aggregation over both arrays; fails if the sum is wrong. */
  @Benchmark
  public long aggregate() {
    SmartArray x = a1;
    SmartArray y = a2;
    long sum = ParallelLoop.reduce(0, length, 0, (lo, hi) -> x.sum(lo, hi) + y.sum(lo, hi), Long::sum);
    Figure3Benchmark.check(expected, sum, "aggregation");
    return sum;
  }
}
