// Checks placements, replicas and the pinned Java workers on fake multi-node topologies (the real
// multi-node placement is the emulated-NUMA VM test's job): each worker reads its node's replica.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PlacementTest {
  private static final int LENGTH = 200_000;

  @AfterEach
  void restoreTheRealTopology() {
    Topology.setFake("");
  }

  static ArrayOptions options(Placement placement) {
    return switch (placement) {
      case OS_DEFAULT -> ArrayOptions.defaults();
      case SINGLE_NODE -> ArrayOptions.singleNode(Topology.nodes() - 1);
      case INTERLEAVED -> ArrayOptions.interleaved();
      case REPLICATED -> ArrayOptions.replicated();
      case PARTITIONED -> ArrayOptions.partitioned();
      case AUTO -> throw new IllegalArgumentException("AUTO is chosen by the adaptive layer (AdaptTest)");
    };
  }

  @ParameterizedTest
  @EnumSource(value = Placement.class, names = "AUTO", mode = EnumSource.Mode.EXCLUDE)
  void everyPlacementHoldsTheValuesOnAFourNodeTopology(Placement placement) {
    Topology.setFake("nodes=4");
    assertTrue(Topology.isFake());
    assertEquals(4, Topology.nodes());
    long[] values = RoundTripTest.values(31, LENGTH, 5);
    try (SmartArray a = SmartArray.fromLongs(values, options(placement).withBits(31).withHugePages(true))) {
      assertEquals(placement, a.placement());
      assertEquals(placement == Placement.REPLICATED ? 4 : 1, a.replicas());
      assertArrayEquals(values, a.toArray());
      long[][] pages = a.pagesPerNode();
      assertEquals(a.replicas(), pages.length);
      long wordsPerReplica = (LENGTH + 63) / 64 * 31L;
      for (long[] replica : pages) {
        assertTrue(replica.length >= 1);
        assertTrue(Arrays.stream(replica).sum() * 4096 >= wordsPerReplica * 8, "every page of the replica is counted");
      }
      assertTrue(a.memoryBytes() >= a.replicas() * wordsPerReplica * 8);
      for (int r = 0; r < a.replicas(); r++) {
        assertArrayEquals(a.packedWords(0).toArray(JAVA_LONG), a.packedWords(r).toArray(JAVA_LONG), "replica " + r);
      }
    }
  }

  @Test
  void eachPinnedWorkerReadsItsOwnNodesReplica() {
    Topology.setFake("nodes=2");
    int[] nodes = ParallelLoop.workerNodes();
    assertTrue(Arrays.stream(nodes).allMatch(n -> n >= 0 && n < 2));
    long[] values = RoundTripTest.values(33, LENGTH, 6);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.replicated().withBits(33))) {
      assertEquals(2, a.replicas());
      ConcurrentHashMap<Integer, Integer> replicaOfWorker = new ConcurrentHashMap<>();
      long sum = ParallelLoop.reduce(0, LENGTH, 0, (l, h) -> {
        int worker = ParallelLoop.currentWorker();
        assertEquals(nodes[worker], Topology.currentNode());
        replicaOfWorker.put(worker, a.localReplica());
        return a.sum(l, h);
      }, Long::sum);
      assertEquals(a.sum(), sum);
      replicaOfWorker.forEach((worker, replica) -> assertEquals(nodes[worker], replica, "worker " + worker));
    }
  }

  @Test
  void aPinnedThreadReadsItsNodesReplica() throws InterruptedException {
    Topology.setFake("nodes=2");
    try (SmartArray a = SmartArray.fromLongs(new long[] {1, 2, 3}, ArrayOptions.replicated())) {
      int[] seen = new int[2];
      for (int node = 0; node < 2; node++) {
        int n = node;
        Thread t = new Thread(() -> {
          Topology.pinCurrentThread(n);
          seen[n] = Topology.currentNode() * 10 + a.localReplica();
        });
        t.start();
        t.join();
      }
      assertArrayEquals(new int[] {0, 11}, seen);
    }
  }
}
