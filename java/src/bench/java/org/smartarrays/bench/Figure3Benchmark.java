// Owns the single-threaded scans of the paper's Figure 3 (with their ratio targets): a sum over a
// Java long[], over native memory read through a MemorySegment, through one downcall per element
// (the JNI-style path), and over smart arrays through the cursor, asSegment() and the bulk sum.
package org.smartarrays.bench;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
import org.smartarrays.SmartArray;
import org.smartarrays.SmartArrayCursor;

/** Single-threaded sums over the same values held in Java, in native memory and in smart arrays. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class Figure3Benchmark {
  /** Values per array. */
  @Param("16777216")
  public int length;

  private long[] javaArray;
  private Arena arena;
  private MemorySegment nativeArray;
  private SmartArray smart64;
  private SmartArray smart33;
  private SmartArray smart10;

  /** Builds every array from the aggregation data (the paper's §5.1 generator) at each width. */
  @Setup(Level.Trial)
  public void setUp() {
    javaArray = AggregationData.values(length, 64, 1);
    arena = Arena.ofShared();
    nativeArray = arena.allocateFrom(JAVA_LONG, javaArray);
    smart64 = SmartArray.fromLongs(javaArray, ArrayOptions.defaults().withBits(64));
    smart33 = SmartArray.fromLongs(AggregationData.values(length, 33, 1), ArrayOptions.defaults().withBits(33));
    smart10 = SmartArray.fromLongs(AggregationData.values(length, 10, 1), ArrayOptions.defaults().withBits(10));
    check(javaLongArray(), smart64.sum(), "64-bit smart array");
  }

  /** Frees the native memory. */
  @TearDown(Level.Trial)
  public void tearDown() {
    smart64.close();
    smart33.close();
    smart10.close();
    arena.close();
  }

  static void check(long expected, long actual, String what) {
    if (expected != actual) throw new IllegalStateException(what + ": sum " + actual + ", expected " + expected);
  }

  /** Java's own array: the baseline of every ratio. */
  @Benchmark
  public long javaLongArray() {
    long sum = 0;
    for (long v : javaArray) sum += v;
    return sum;
  }

  /** Native memory read through a MemorySegment (the Unsafe-style path: fast, not interoperable). */
  @Benchmark
  public long nativeSegment() {
    return scanSegment(nativeArray);
  }

  /** One downcall per element, SmartArray.get (the JNI-style path: interoperable, slow). */
  @Benchmark
  public long downcallPerElement64() {
    SmartArray a = smart64;
    long sum = 0;
    for (long i = 0; i < length; i++) sum += a.get(i);
    return sum;
  }

  /** The 64-bit smart array through its cursor, a value at a time (nextLong). */
  @Benchmark
  public long cursorValues64() {
    return scanValues(smart64.cursor());
  }

  /** The 64-bit smart array through its cursor, a batch at a time (read in place). */
  @Benchmark
  public long cursorBatches64() {
    return scanBatches(smart64.cursor());
  }

  /** The 64-bit smart array through asSegment(), zero copy. */
  @Benchmark
  public long asSegment64() {
    return scanSegment(smart64.asSegment());
  }

  /** The 64-bit smart array's native bulk sum, one downcall. */
  @Benchmark
  public long bulkSum64() {
    return smart64.sum();
  }

  /** The 33-bit smart array through its cursor, a value at a time. */
  @Benchmark
  public long cursorValues33() {
    return scanValues(smart33.cursor());
  }

  /** The 33-bit smart array through its cursor, a batch at a time (decoded natively into the buffer). */
  @Benchmark
  public long cursorBatches33() {
    return scanBatches(smart33.cursor());
  }

  /** The 33-bit smart array's native bulk sum. */
  @Benchmark
  public long bulkSum33() {
    return smart33.sum();
  }

  /** The 10-bit smart array through its cursor, a batch at a time. */
  @Benchmark
  public long cursorBatches10() {
    return scanBatches(smart10.cursor());
  }

  /** The 10-bit smart array's native bulk sum. */
  @Benchmark
  public long bulkSum10() {
    return smart10.sum();
  }

  private static long scanValues(SmartArrayCursor cursor) {
    long sum = 0;
    while (cursor.hasNext()) sum += cursor.nextLong();
    return sum;
  }

  private static long scanBatches(SmartArrayCursor cursor) {
    long sum = 0;
    for (MemorySegment batch = cursor.nextBatch(); batch.byteSize() > 0; batch = cursor.nextBatch()) sum += scanSegment(batch);
    return sum;
  }

  private static long scanSegment(MemorySegment segment) {
    long n = segment.byteSize() / Long.BYTES;
    long sum = 0;
    for (long i = 0; i < n; i++) sum += segment.getAtIndex(JAVA_LONG, i);
    return sum;
  }
}
