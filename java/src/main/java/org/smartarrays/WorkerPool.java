// Owns the Java worker threads of ParallelLoop: as many as the native default pool has, placed on
// nodes by the native plan (sa_runtime_worker_nodes), each pinned through sa_pin_thread_to_node.
// One loop runs at a time; the workers that wake in time drain it with sa_loop_next, naming their
// own node, and the loop is done when its batches are, whether or not every worker took part.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

final class WorkerPool {
  /** longs per 64-byte cache line, for per-worker slots that must not share lines. */
  static final int LONGS_PER_LINE = 8;

  /** Runs the batch [lo, hi) for worker (its index in the pool; 0 when run inline). */
  @FunctionalInterface
  interface BatchRunner {
    void run(int worker, long lo, long hi);
  }

  /**
   * One native loop being drained, with the first failure of any worker. The job is done once the
   * loop has nothing left to hand out and no worker that joined is still running a batch: the
   * caller does not wait for workers that were not scheduled in time (on a shared machine a thread
   * may miss a whole time slice), and a worker that wakes up after the job closed skips it.
   */
  static final class Job {
    private final MemorySegment loop;
    private final BatchRunner runner;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private int joined;        // guarded by this
    private boolean finished;  // guarded by this: no batch left to hand out
    private boolean closed;    // guarded by this: the caller returned, the native loop may be freed

    Job(MemorySegment loop, BatchRunner runner) {
      this.loop = loop;
      this.runner = runner;
    }

    /** Registers a worker before it takes batches; false once the job is closed. */
    synchronized boolean join() {
      if (closed) return false;
      joined++;
      return true;
    }

    /** Unregisters a worker whose drain ended, which means the loop had nothing left to hand out. */
    synchronized void leave() {
      joined--;
      finished = true;
      if (joined == 0) notifyAll();
    }

    /** Waits until the loop is finished and no joined worker runs a batch, then closes the job. */
    synchronized void awaitDone() {
      boolean interrupted = false;
      while (!finished || joined > 0) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      closed = true;
      if (interrupted) Thread.currentThread().interrupt();
    }

    /** Takes batches for a thread on node until the loop is exhausted or stopped. */
    void drain(int node, int worker) {
      long[] range = new long[2];
      MemorySegment slots = MemorySegment.ofArray(range);
      MemorySegment lo = slots.asSlice(0, Long.BYTES);
      MemorySegment hi = slots.asSlice(Long.BYTES, Long.BYTES);
      try {
        while (true) {
          int status = Native.loopNext(loop, node, lo, hi);
          if (status == Native.SA_ECANCELLED && failure.get() != null) return;
          Native.check(status);
          if (range[0] == range[1]) return;
          runner.run(worker, range[0], range[1]);
        }
      } catch (Throwable t) {
        // Cancelling a live loop cannot fail; it stops the other workers after their current batch.
        if (failure.compareAndSet(null, t)) Native.loopCancel(loop);
      }
    }

    /** Rethrows the first failure: a body's exception as it was thrown. */
    void rethrow() {
      Throwable t = failure.get();
      if (t == null) return;
      if (t instanceof RuntimeException r) throw r;
      if (t instanceof Error e) throw e;
      throw new SmartArrayException(SmartArrayException.Reason.INTERNAL, "loop body failed: " + t);
    }
  }

  private static final class Worker extends Thread {
    private final WorkerPool pool;
    private final int index;
    private final int node;

    Worker(WorkerPool pool, int index, int node) {
      super("smartarrays-worker-" + index + "-node-" + node);
      this.pool = pool;
      this.index = index;
      this.node = node;
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        Topology.pinCurrentThread(node);
      } catch (RuntimeException e) {
        pool.startFailure.compareAndSet(null, e);
        return;
      } finally {
        pool.started.countDown();
      }
      long seen = 0;
      while (true) {
        Job job;
        synchronized (pool.monitor) {
          while (pool.generation == seen && !pool.shutDown) {
            try {
              pool.monitor.wait();
            } catch (InterruptedException e) {
              // Workers end only through shutDown(); an interrupt from elsewhere is ignored.
            }
          }
          if (pool.shutDown) return;
          seen = pool.generation;
          job = pool.job;
        }
        if (job == null || !job.join()) continue;
        job.drain(node, index);
        job.leave();
      }
    }
  }

  private final int[] nodes;
  private final Worker[] workers;
  private final Object monitor = new Object();
  private final ReentrantLock submit = new ReentrantLock();
  private final CountDownLatch started;
  private final AtomicReference<RuntimeException> startFailure = new AtomicReference<>();
  private Job job;
  private long generation;
  private boolean shutDown;

  private WorkerPool(int[] nodes) {
    this.nodes = nodes;
    this.workers = new Worker[nodes.length];
    this.started = new CountDownLatch(nodes.length);
  }

  /** Starts and pins the workers; throws if a worker cannot be pinned. */
  static WorkerPool start() {
    int threads = Native.runtimeThreads();
    if (threads == 0) throw Native.failure(Native.SA_EINVAL);
    int[] nodes;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment plan = scratch.allocate(JAVA_INT, threads);
      MemorySegment count = scratch.allocate(JAVA_INT);
      Native.check(Native.runtimeWorkerNodes(plan, threads, count));
      nodes = plan.asSlice(0, (long) Math.min(threads, count.get(JAVA_INT, 0)) * Integer.BYTES).toArray(JAVA_INT);
    }
    WorkerPool pool = new WorkerPool(nodes);
    for (int w = 0; w < threads; w++) {
      pool.workers[w] = new Worker(pool, w, nodes[w]);
      pool.workers[w].start();
    }
    awaitUninterruptibly(pool.started);
    RuntimeException failure = pool.startFailure.get();
    if (failure != null) {
      pool.shutDown();
      throw failure;
    }
    return pool;
  }

  int size() {
    return nodes.length;
  }

  int[] nodes() {
    return nodes.clone();
  }

  /** Offers job to every worker and waits until it is done (see Job); one job at a time. */
  void run(Job job) {
    submit.lock();
    try {
      synchronized (monitor) {
        if (shutDown) throw new IllegalStateException("the worker pool was shut down");
        this.job = job;
        generation++;
        monitor.notifyAll();
      }
      job.awaitDone();
      synchronized (monitor) {
        // A late worker then finds no job, and the body's captures are not kept reachable.
        this.job = null;
      }
    } finally {
      submit.unlock();
    }
  }

  /** Lets every worker end once it is idle. */
  void shutDown() {
    synchronized (monitor) {
      shutDown = true;
      monitor.notifyAll();
    }
  }

  /** The pool index of the calling worker thread, or -1 when the caller is not a worker. */
  static int currentWorker() {
    return Thread.currentThread() instanceof Worker w ? w.index : -1;
  }

  /** The node of the calling worker thread (call only on a worker). */
  static int currentNode() {
    return ((Worker) Thread.currentThread()).node;
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }
}
