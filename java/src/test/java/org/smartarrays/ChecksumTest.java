// Checks the per-replica CRC32C and the replica comparison from Java.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChecksumTest {
  @AfterEach
  void restoreTheRealTopology() {
    Topology.setFake("");
  }

  @Test
  void isTheCrc32cOfThePackedWordsOnEveryReplica() {
    Topology.setFake("nodes=2");
    long[] values = RoundTripTest.values(13, 5_000, 4);
    try (SmartArray a = SmartArray.fromLongs(values, ArrayOptions.replicated().withBits(13))) {
      CRC32C reference = new CRC32C();
      reference.update(a.packedWords(0).asByteBuffer());
      assertEquals(reference.getValue(), a.crc32c(0));
      assertEquals(a.crc32c(0), a.crc32c(1));
      assertTrue(a.replicasEqual());
      long before = a.crc32c(0);
      a.set(10, values[10] ^ 1);
      assertNotEquals(before, a.crc32c(1));
      assertTrue(a.replicasEqual());
    }
  }

  @Test
  void badReplicaIsOutOfBounds() {
    try (SmartArray a = SmartArray.fromLongs(new long[] {1, 2, 3}, ArrayOptions.defaults())) {
      IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> a.crc32c(1));
      assertTrue(e.getMessage().contains("replica 1"), e.getMessage());
    }
  }
}
