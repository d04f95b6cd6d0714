// Checks the topology facts, machine facts and library facts the binding reads from the C ABI.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TopologyTest {
  @Test
  void theRealTopologyHasNodesWithCpusAndMemory() {
    int nodes = Topology.nodes();
    assertTrue(nodes >= 1);
    int cpus = 0;
    for (int node = 0; node < nodes; node++) {
      cpus += Topology.nodeCpus(node).length;
      assertEquals(10, Topology.distance(node, node));
      Topology.NodeMemory memory = Topology.nodeMemory(node);
      assertTrue(memory.totalBytes() >= memory.freeBytes() && memory.freeBytes() >= 0, memory.toString());
    }
    assertTrue(cpus >= 1);
    int current = Topology.currentNode();
    assertTrue(current >= 0 && current < nodes);
  }

  @Test
  void aFakeTopologyReplacesTheRealOneUntilRestored() throws InterruptedException {
    int real = Topology.nodes();
    try {
      Topology.setFake("nodes=3");
      assertEquals(3, Topology.nodes());
      assertEquals(20, Topology.distance(0, 2));
      int[] pinnedNode = {-1};
      // A thread of its own, so the test runner's thread keeps its CPUs.
      Thread pinned = new Thread(() -> {
        Topology.pinCurrentThread(2);
        pinnedNode[0] = Topology.currentNode();
      });
      pinned.start();
      pinned.join();
      assertEquals(2, pinnedNode[0]);
      assertEquals(ParallelLoop.workers(), ParallelLoop.workerNodes().length);
    } finally {
      Topology.setFake("");
    }
    assertEquals(real, Topology.nodes());
    assertEquals(false, Topology.isFake());
  }

  @Test
  void theVersionIsMajorMinorPatch() {
    assertTrue(SmartArrays.version().matches("\\d+\\.\\d+\\.\\d+"), SmartArrays.version());
  }

  @Test
  void theMachineFactsAreOneJsonObjectOfTheMachineSchema() {
    String facts = SmartArrays.machineFactsJson();
    assertTrue(facts.startsWith("{\"format\":\"smartarrays.machine/1\","), facts);
    assertTrue(facts.contains("\"nodes\":" + Topology.nodes() + ","), facts);
    assertTrue(facts.contains("\"library_version\":\"" + SmartArrays.version() + "\""), facts);
    assertTrue(facts.endsWith("}"), facts);
  }
}
