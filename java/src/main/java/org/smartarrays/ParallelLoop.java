// Owns parallel loops written in Java (the Callisto-RTS design of the paper, §2.2): Java worker
// threads, each pinned to a NUMA node through the C ABI, pull batches of a native external-thread
// loop (sa_loop_next), so work distribution, node-local parts and stealing happen in the C++
// runtime and each worker reads its own node's replicas. Bodies are Java lambdas over a batch.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.LongBinaryOperator;

/** Parallel loops over index ranges, run by pinned Java workers that take batches from the native runtime. */
public final class ParallelLoop {
  private ParallelLoop() {}

  /** A loop body over one batch of indices [lo, hi). */
  @FunctionalInterface
  public interface Body {
    /** Runs the indices [lo, hi). */
    void run(long lo, long hi);
  }

  /** A loop body over one batch of indices [lo, hi) that returns a partial result. */
  @FunctionalInterface
  public interface RangeFunction {
    /** The partial result of the indices [lo, hi). */
    long apply(long lo, long hi);
  }

  /**
   * The most indices a default batch of a Java body holds, and the fewest batches per worker it aims for:
   * every batch crosses into Java and back (sa_loop_next, then the body's own downcalls, about 0.1 us
   * each), so Java bodies take batches four times the native default's cap, while a range too small for
   * that still gives every worker several batches to balance.
   */
  static final long JAVA_MAX_BATCH = 65536;
  static final long BATCHES_PER_WORKER = 8;

  private static final Object POOL_LOCK = new Object();
  private static WorkerPool pool;

  /**
   * Runs body over [lo, hi) in batches chosen by the native runtime, on the worker threads; returns
   * when every batch is done. The first exception a body throws stops the loop and is rethrown here.
   * Called from inside a body, it runs inline on that worker.
   */
  public static void forRange(long lo, long hi, Body body) {
    forRange(lo, hi, 0, body);
  }

  /**
   * Like {@link #forRange(long, long, Body)} with batch indices per batch (rounded up to 64); 0 = about
   * eight batches per worker, at most {@link #JAVA_MAX_BATCH} indices each.
   */
  public static void forRange(long lo, long hi, long batch, Body body) {
    if (body == null) throw new NullPointerException("body");
    run(lo, hi, batch, (worker, l, h) -> body.run(l, h));
  }

  /**
   * Folds body's partial results over [lo, hi) with combine: one running partial per worker
   * (starting at identity), then the partials in worker order. combine must be associative and
   * identity its neutral element (0 for a sum); an empty range gives identity.
   */
  public static long reduce(long lo, long hi, long identity, RangeFunction body, LongBinaryOperator combine) {
    if (body == null) throw new NullPointerException("body");
    if (combine == null) throw new NullPointerException("combine");
    int slots = WorkerPool.currentWorker() >= 0 ? 1 : pool().size();
    // One partial per cache line, so workers do not share lines.
    long[] partials = new long[slots * WorkerPool.LONGS_PER_LINE];
    for (int w = 0; w < slots; w++) partials[w * WorkerPool.LONGS_PER_LINE] = identity;
    run(lo, hi, 0, (worker, l, h) -> {
      int slot = worker * WorkerPool.LONGS_PER_LINE;
      partials[slot] = combine.applyAsLong(partials[slot], body.apply(l, h));
    });
    long result = identity;
    for (int w = 0; w < slots; w++) result = combine.applyAsLong(result, partials[w * WorkerPool.LONGS_PER_LINE]);
    return result;
  }

  /** Number of worker threads (SMARTARRAYS_THREADS, else every usable CPU). */
  public static int workers() {
    return pool().size();
  }

  /** The logical node each worker is pinned to (index = worker). */
  public static int[] workerNodes() {
    return pool().nodes();
  }

  /** The index of the worker running the calling thread's loop body, or -1 outside loop bodies. */
  public static int currentWorker() {
    return WorkerPool.currentWorker();
  }

  // Runs on the pool, or inline as worker 0 when called from a loop body.
  private static void run(long lo, long hi, long batch, WorkerPool.BatchRunner runner) {
    if (lo < 0 || hi < lo) throw new IllegalArgumentException("bad range [" + lo + ", " + hi + ")");
    Native.requireNonNegative(batch, "batch");
    MemorySegment loop;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      Native.check(Native.loopCreate(lo, hi, batch != 0 ? batch : defaultBatch(hi - lo), out));
      loop = out.get(ADDRESS, 0);
    }
    try {
      WorkerPool.Job job = new WorkerPool.Job(loop, runner);
      if (WorkerPool.currentWorker() >= 0) {
        job.drain(WorkerPool.currentNode(), 0);
      } else {
        pool().run(job);
      }
      job.rethrow();
    } finally {
      Native.loopFree(loop);
    }
  }

  // The batch of a loop over span indices when the caller names none.
  static long defaultBatch(long span) {
    long workers = WorkerPool.currentWorker() >= 0 ? 1 : pool().size();
    return Math.max(1, Math.min(JAVA_MAX_BATCH, span / (workers * BATCHES_PER_WORKER)));
  }

  private static WorkerPool pool() {
    synchronized (POOL_LOCK) {
      if (pool == null) pool = WorkerPool.start();
      return pool;
    }
  }

  /** Called after the topology changed: the next loop starts workers planned on the new one. */
  static void topologyChanged() {
    synchronized (POOL_LOCK) {
      if (pool != null) pool.shutDown();
      pool = null;
    }
  }
}
