// Checks that native failures become the documented Java exceptions with the native message.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ErrorsTest {
  private static SmartArray small() {
    return SmartArray.fromLongs(new long[] {1, 2, 3, 4, 5}, ArrayOptions.defaults().withBits(16));
  }

  @Test
  void aValueTooWideIsAnIllegalArgumentNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SmartArray.fromLongs(new long[] {3, 70_000, 5}, ArrayOptions.defaults().withBits(16)));
    assertTrue(e.getMessage().contains("70000") && e.getMessage().contains("17 bits"), e.getMessage());
    try (SmartArray a = small()) {
      IllegalArgumentException set = assertThrows(IllegalArgumentException.class, () -> a.set(1, 1 << 16));
      assertTrue(set.getMessage().startsWith("sa_array_set"), set.getMessage());
      assertEquals(2, a.get(1), "a failed set changes nothing");
    }
  }

  @Test
  void badOptionsAreIllegalArguments() {
    assertThrows(IllegalArgumentException.class, () -> SmartArray.allocate(10, ArrayOptions.defaults().withBits(65)));
    assertThrows(IllegalArgumentException.class, () -> SmartArray.allocate(10, ArrayOptions.defaults()),
        "allocate needs bits");
    assertThrows(IllegalArgumentException.class, () -> SmartArray.allocate(10, ArrayOptions.defaults().withBits(-1)));
    assertThrows(IllegalArgumentException.class, () -> SmartArray.allocate(-1, ArrayOptions.defaults().withBits(8)));
    int missing = Topology.nodes() + 5;
    IllegalArgumentException node = assertThrows(IllegalArgumentException.class,
        () -> SmartArray.allocate(10, ArrayOptions.singleNode(missing).withBits(8)));
    assertTrue(node.getMessage().contains(Integer.toString(missing)), node.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> SmartArray.allocate(10, ArrayOptions.replicated(0, 0).withBits(8)), "a node listed twice");
    assertThrows(IllegalArgumentException.class,
        () -> SmartArray.fromSegment(MemorySegment.ofArray(new byte[12]), ArrayOptions.defaults()));
  }

  @Test
  void intsTheCAbiReadsUnsignedAreCheckedNotWrapped() {
    // withBits(-1) was SA_BITS_AUTO in C: fromLongs then chose 2 bits where the caller asked for -1.
    for (int bits : new int[] {-1, Integer.MIN_VALUE, 65, Integer.MAX_VALUE}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArrayOptions.defaults().withBits(bits));
      assertTrue(e.getMessage().endsWith("got " + bits), e.getMessage());
    }
    try (SmartArray a = small()) {
      for (Executable call : new Executable[] {() -> a.crc32c(-1), () -> a.hugePageBytes(-1), () -> a.packedWords(-1),
          () -> a.pagesPerNode(-1)}) {
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, call);
        assertEquals("replica -1 is negative", e.getMessage());
      }
      assertThrows(IndexOutOfBoundsException.class, () -> a.crc32c(Integer.MIN_VALUE));
    }
    try (Graph g = Graph.fromEdges(new long[] {0, 1}, new long[] {1, 2}, 0, GraphOptions.defaults())) {
      IllegalArgumentException first = assertThrows(IllegalArgumentException.class, () -> PullPart.of(g, -1, 1));
      assertEquals("first -1 is negative", first.getMessage());
      IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> PullPart.of(g, 0, -1));
      assertEquals("count -1 is negative", count.getMessage());
    }
    // Checked before the file is read.
    IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
        () -> PullPart.read(Path.of("never-read.sg"), 0, -5));
    assertEquals("count -5 is negative", count.getMessage());
  }

  @Test
  void nullArgumentsAreNullPointersNamingThem() {
    try (SmartArray a = small()) {
      // Also once the spliterator has nothing left, as Spliterator's contract says.
      Spliterator.OfLong done = a.spliterator();
      done.forEachRemaining((long v) -> { });
      List<Map.Entry<String, Executable>> calls = List.of(
          Map.entry("values", () -> SmartArray.fromLongs(null, ArrayOptions.defaults())),
          Map.entry("values", () -> SmartArray.fromStream(null, ArrayOptions.defaults())),
          Map.entry("values", () -> LiveArray.fromLongs(null, ArrayOptions.defaults())),
          Map.entry("nodes", () -> ArrayOptions.interleaved((int[]) null)),
          Map.entry("nodes", () -> ArrayOptions.replicated((int[]) null)),
          Map.entry("nodes", () -> ArrayOptions.partitioned((int[]) null)),
          Map.entry("spec", () -> Topology.setFake(null)),
          Map.entry("dst", () -> a.decode(0, (long[]) null, 0, 1)),
          Map.entry("dst", () -> a.decode(0, (MemorySegment) null)),
          Map.entry("action", () -> done.tryAdvance((LongConsumer) null)));
      for (int k = 0; k < calls.size(); k++) {
        NullPointerException e = assertThrows(NullPointerException.class, calls.get(k).getValue(), "call " + k);
        assertEquals(calls.get(k).getKey(), e.getMessage(), "call " + k);
      }
    }
  }

  @Test
  void badIndicesAndRangesAreIndexOutOfBounds() {
    try (SmartArray a = small()) {
      assertThrows(IndexOutOfBoundsException.class, () -> a.get(5));
      assertThrows(IndexOutOfBoundsException.class, () -> a.get(-1));
      assertThrows(IndexOutOfBoundsException.class, () -> a.set(5, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> a.sum(2, 6));
      assertThrows(IndexOutOfBoundsException.class, () -> a.sum(3, 2));
      assertThrows(IndexOutOfBoundsException.class, () -> a.toArray(0, 6));
      assertThrows(IndexOutOfBoundsException.class, () -> a.decode(3, new long[4], 0, 3));
      assertThrows(IndexOutOfBoundsException.class, () -> a.decode(0, new long[4], 2, 3));
      assertThrows(IndexOutOfBoundsException.class, () -> a.cursor(4, 6));
      assertThrows(IndexOutOfBoundsException.class, () -> a.cursor().seek(6));
      IndexOutOfBoundsException replica = assertThrows(IndexOutOfBoundsException.class, () -> a.packedWords(1));
      assertTrue(replica.getMessage().startsWith("sa_array_words"), replica.getMessage());
      assertThrows(IndexOutOfBoundsException.class, () -> a.pagesPerNode(1));
    }
  }

  @Test
  void badDecodeTargetsAreIllegalArguments() {
    try (SmartArray a = small(); Arena arena = Arena.ofConfined()) {
      MemorySegment readOnly = arena.allocate(16).asReadOnly();
      assertThrows(IllegalArgumentException.class, () -> a.decode(0, readOnly));
      assertThrows(IllegalArgumentException.class, () -> a.decode(0, arena.allocate(12)));
      assertThrows(IllegalArgumentException.class, () -> a.decode(0, arena.allocate(24, 8).asSlice(4, 16)));
    }
  }

  @Test
  void memoryThatCannotExistIsASmartArrayException() {
    SmartArrayException e = assertThrows(SmartArrayException.class,
        () -> SmartArray.allocate(1L << 62, ArrayOptions.defaults().withBits(64)));
    assertEquals(SmartArrayException.Reason.OUT_OF_MEMORY, e.reason());
    assertEquals(3, e.reason().status());
    assertTrue(e.getMessage().startsWith("sa_array_alloc"), e.getMessage());
  }

  @Test
  void topologyErrorsAreIllegalArguments() {
    int missing = Topology.nodes();
    assertThrows(IllegalArgumentException.class, () -> Topology.nodeCpus(missing));
    assertThrows(IllegalArgumentException.class, () -> Topology.nodeMemory(-1));
    assertThrows(IllegalArgumentException.class, () -> Topology.distance(0, missing));
    assertThrows(IllegalArgumentException.class, () -> Topology.pinCurrentThread(missing));
    IllegalArgumentException spec = assertThrows(IllegalArgumentException.class, () -> Topology.setFake("nodes=0"));
    assertTrue(spec.getMessage().contains("nodes=0"), spec.getMessage());
    assertEquals(false, Topology.isFake());
  }
}
