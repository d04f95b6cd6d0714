// Owns the Java view of the native topology (logical NUMA nodes, their CPUs and memory, the
// calling thread's node, fake topologies) and thread pinning, all read from the C ABI.
package org.smartarrays;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** The machine's NUMA topology as the native library sees it (intersected with the affinity mask). */
public final class Topology {
  private Topology() {}

  /** Number of logical NUMA nodes (fake ones when a fake topology is active). */
  public static int nodes() {
    return Native.topologyNodes();
  }

  /** The usable CPUs of a logical node. */
  public static int[] nodeCpus(int node) {
    int[] count = new int[1];
    Native.check(Native.topologyNodeCpus(node, MemorySegment.NULL, 0, MemorySegment.ofArray(count)));
    int[] cpus = new int[count[0]];
    Native.check(Native.topologyNodeCpus(node, MemorySegment.ofArray(cpus), cpus.length, MemorySegment.ofArray(count)));
    return cpus;
  }

  /**
   * A node's memory as read with the topology.
   *
   * @param totalBytes the node's memory
   * @param freeBytes the part of it that was free
   */
  public record NodeMemory(long totalBytes, long freeBytes) {}

  /** A node's total and free memory. */
  public static NodeMemory nodeMemory(int node) {
    long[] bytes = new long[2];
    MemorySegment slots = MemorySegment.ofArray(bytes);
    Native.check(Native.topologyNodeMemory(node, slots.asSlice(0, Long.BYTES), slots.asSlice(Long.BYTES, Long.BYTES)));
    return new NodeMemory(bytes[0], bytes[1]);
  }

  /** SLIT distance between two nodes (10 = local). */
  public static int distance(int a, int b) {
    int d = Native.topologyDistance(a, b);
    if (d == 0) throw Native.failure(Native.SA_EINVAL);
    return d;
  }

  /** Whether a fake topology is active. */
  public static boolean isFake() {
    return Native.topologyIsFake() != 0;
  }

  /**
   * Activates a fake topology ("nodes=N" or "cpus=0-1;2-3"), or restores the real one with "".
   * No other thread may use the library meanwhile; ParallelLoop re-plans its workers afterwards.
   */
  public static void setFake(String spec) {
    try (Arena scratch = Arena.ofConfined()) {
      Native.check(Native.topologySetFake(Native.cString(scratch, spec, "spec")));
    }
    ParallelLoop.topologyChanged();
  }

  /** The calling thread's logical node. */
  public static int currentNode() {
    return Native.currentNode();
  }

  /** Pins the calling thread to the CPUs of a logical node, so it reads that node's replicas. */
  public static void pinCurrentThread(int node) {
    Native.check(Native.pinThreadToNode(node));
  }
}
