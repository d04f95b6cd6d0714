// Checks that Thread.interrupt() stops the binding's long calls through the C ABI's interrupt check:
// PageRank (on a platform or a virtual thread) and generation end with SmartArrayException(CANCELLED) "interrupted" and the thread keeps
// its interrupt status; once the status is cleared the same calls give the same results; critical
// (short) calls of an interrupted thread are unaffected, and other threads' calls never see it.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InterruptTest {
  // A PageRank that would run for minutes: no tolerance stops it before its iteration cap.
  private static final PageRankOptions ENDLESS = PageRankOptions.defaults().withTolerance(0).withMaxIterations(100_000);

  @AfterEach
  void clearInterruptStatus() {
    Thread.interrupted();
  }

  private static void assertInterrupted(SmartArrayException e, String function) {
    assertEquals(SmartArrayException.Reason.CANCELLED, e.reason());
    assertEquals(function + ": interrupted", e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void anInterruptStopsALongPageRankOnItsThreadWhichKeepsItsInterruptStatus(boolean virtual) throws Exception {
    try (Graph g = Graph.rmat(16, 8, 7, GraphOptions.defaults())) {
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      AtomicBoolean statusKept = new AtomicBoolean();
      CountDownLatch started = new CountDownLatch(1);
      Thread worker = (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).unstarted(() -> {
        started.countDown();
        try {
          g.pagerank(ENDLESS);
        } catch (Throwable t) {
          thrown.set(t);
          statusKept.set(Thread.currentThread().isInterrupted());
        }
      });
      worker.start();
      assertTrue(started.await(30, TimeUnit.SECONDS));
      Thread.sleep(200);
      worker.interrupt();
      worker.join(TimeUnit.SECONDS.toMillis(60));
      assertFalse(worker.isAlive(), "PageRank still running a minute after Thread.interrupt()");
      SmartArrayException e = assertInstanceOf(thrown.get());
      assertInterrupted(e, "sa_graph_pagerank");
      assertTrue(statusKept.get());
    }
  }

  private static SmartArrayException assertInstanceOf(Throwable t) {
    assertNotNull(t, "PageRank ended without an exception");
    if (t instanceof SmartArrayException e) return e;
    throw new AssertionError("expected SmartArrayException, got " + t, t);
  }

  @Test
  void anInterruptedThreadsLongCallsStopAtOnceAndItsShortCallsDoNot() {
    try (Graph g = Graph.rmat(10, 4, 1, GraphOptions.defaults());
        SmartArray a = SmartArray.fromLongs(new long[] {5, 6, 7}, ArrayOptions.defaults())) {
      Thread.currentThread().interrupt();
      assertInterrupted(assertThrows(SmartArrayException.class, () -> Graph.rmat(16, 8, 7, GraphOptions.defaults())),
          "sa_graph_generate_rmat");
      assertInterrupted(assertThrows(SmartArrayException.class, () -> g.pagerank(ENDLESS)), "sa_graph_pagerank");
      assertTrue(Thread.currentThread().isInterrupted());
      assertEquals(1024, g.vertices());
      assertEquals(6, a.get(1));
      assertArrayEquals(new long[] {5, 6, 7}, a.toArray());
    }
  }

  @Test
  void onceTheStatusIsClearedTheSameCallsGiveTheSameResults() {
    PageRankOptions options = PageRankOptions.defaults();
    try (Graph before = Graph.rmat(12, 8, 3, GraphOptions.defaults())) {
      double[] expected = before.pagerank(options).ranks();
      Thread.currentThread().interrupt();
      assertThrows(SmartArrayException.class, () -> Graph.rmat(12, 8, 3, GraphOptions.defaults()));
      assertTrue(Thread.interrupted());
      try (Graph after = Graph.rmat(12, 8, 3, GraphOptions.defaults())) {
        assertEquals(before.edges(), after.edges());
        assertArrayEquals(expected, after.pagerank(options).ranks());
      }
    }
  }

  @Test
  void anotherThreadsInterruptStatusNeverReachesThisThreadsCalls() throws Exception {
    AtomicReference<Throwable> other = new AtomicReference<>();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread interrupted = new Thread(() -> {
      Thread.currentThread().interrupt();
      try {
        Graph.rmat(12, 8, 3, GraphOptions.defaults()).close();
      } catch (Throwable t) {
        other.set(t);
      }
      stopped.countDown();
    });
    interrupted.start();
    assertTrue(stopped.await(60, TimeUnit.SECONDS));
    try (Graph g = Graph.rmat(14, 8, 3, GraphOptions.defaults())) {
      Graph.PageRankResult result = g.pagerank(PageRankOptions.defaults());
      assertTrue(result.converged());
      assertEquals(g.vertices(), result.ranks().length);
    }
    interrupted.join();
    assertInterrupted(assertInstanceOf(other.get()), "sa_graph_generate_rmat");
  }
}
