// Checks placed buffers: every one-copy placement on a fake topology gives zeroed, writable native
// memory on the pages the kernel reports, huge pages by default, and every refusal.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PlacedBufferTest {
  @Test
  void everyOneCopyPlacementIsZeroedWritableAndOnItsPages() {
    try {
      Topology.setFake("nodes=2");
      ArrayOptions[] placements = {ArrayOptions.defaults(), ArrayOptions.singleNode(1), ArrayOptions.interleaved(),
          ArrayOptions.partitioned(0, 1)};
      for (ArrayOptions options : placements) {
        long bytes = 5 * 4096 + 8;
        try (PlacedBuffer buffer = PlacedBuffer.allocate(bytes, options)) {
          MemorySegment memory = buffer.segment();
          assertEquals(bytes, buffer.bytes());
          assertEquals(bytes, memory.byteSize());
          assertEquals(0, memory.address() % 4096, "page aligned");
          for (long i = 0; i < bytes; i++) assertEquals(0, memory.get(JAVA_BYTE, i));
          long doubles = bytes / Double.BYTES;
          for (long i = 0; i < doubles; i++) memory.setAtIndex(JAVA_DOUBLE, i, i * 0.5);
          assertEquals((doubles - 1) * 0.5, memory.getAtIndex(JAVA_DOUBLE, doubles - 1));
          long[] pages = buffer.pagesPerNode();
          assertEquals(6, Arrays.stream(pages).sum(), options + ": " + Arrays.toString(pages));
          assertEquals(6, pages[0], "the machine's only kernel node");
          assertEquals(0, buffer.hugePageBytes(), "24 KiB get no huge page");
        }
      }
    } finally {
      Topology.setFake("");
    }
  }

  @Test
  void largeBuffersAskForHugePagesAndCloseFreesThem() {
    PlacedBuffer buffer = PlacedBuffer.allocate(8L << 20, ArrayOptions.defaults());
    assertTrue(buffer.hugePageBytes() >= 0 && buffer.hugePageBytes() <= 8L << 20);
    MemorySegment memory = buffer.segment();
    buffer.close();
    buffer.close();
    assertThrows(IllegalStateException.class, () -> memory.get(JAVA_DOUBLE, 0), "a closed buffer's memory is gone");
    assertThrows(IllegalStateException.class, buffer::hugePageBytes);
  }

  @Test
  void refusesWhatItCannotHonour() {
    IllegalArgumentException empty =
        assertThrows(IllegalArgumentException.class, () -> PlacedBuffer.allocate(0, ArrayOptions.defaults()));
    assertTrue(empty.getMessage().contains("at least 1 byte"), empty.getMessage());
    IllegalArgumentException replicated =
        assertThrows(IllegalArgumentException.class, () -> PlacedBuffer.allocate(64, ArrayOptions.replicated()));
    assertTrue(replicated.getMessage().contains("replicated"), replicated.getMessage());
    assertThrows(IllegalArgumentException.class, () -> PlacedBuffer.allocate(-1, ArrayOptions.defaults()));
    assertThrows(NullPointerException.class, () -> PlacedBuffer.allocate(64, null));
  }
}
