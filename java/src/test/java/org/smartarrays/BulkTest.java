// Checks copyFrom, fill and primary-write arrays with sync from Java, and their errors.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BulkTest {
  @AfterEach
  void restoreTheRealTopology() {
    Topology.setFake("");
  }

  @Test
  void copyFromReEncodesIntoEveryReplica() {
    Topology.setFake("nodes=2");
    long[] values = RoundTripTest.values(13, 5_003, 4);
    try (SmartArray src = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(13));
        SmartArray dst = SmartArray.allocate(values.length, ArrayOptions.replicated().withBits(40))) {
      dst.copyFrom(src);
      assertArrayEquals(values, dst.toArray());
      assertTrue(dst.replicasEqual());
      dst.fill(12345);
      long[] filled = new long[values.length];
      Arrays.fill(filled, 12345);
      assertArrayEquals(filled, dst.toArray());
    }
  }

  @Test
  void errorsAreIllegalArguments() {
    try (SmartArray src = SmartArray.fromLongs(new long[] {1, 2, 900}, ArrayOptions.defaults().withBits(10));
        SmartArray narrow = SmartArray.allocate(3, ArrayOptions.defaults().withBits(9));
        SmartArray shorter = SmartArray.allocate(2, ArrayOptions.defaults().withBits(10))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> narrow.copyFrom(src));
      assertTrue(e.getMessage().contains("value 900 at index 2"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> shorter.copyFrom(src));
      assertTrue(e.getMessage().contains("lengths differ"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> narrow.fill(512));
      assertTrue(e.getMessage().contains("needs 10 bits"), e.getMessage());
      assertThrows(NullPointerException.class, () -> narrow.copyFrom(null));
    }
  }

  @Test
  void primaryWritesReachOtherReplicasOnSync() {
    Topology.setFake("nodes=2");
    ArrayOptions options = ArrayOptions.replicated().withBits(12).withWriteMode(WriteMode.PRIMARY);
    try (SmartArray a = SmartArray.allocate(1000, options)) {
      assertEquals(WriteMode.PRIMARY, a.writeMode());
      a.set(999, 4095);
      assertFalse(a.replicasEqual());
      a.sync();
      assertTrue(a.replicasEqual());
      assertEquals(4095, a.get(999));
    }
    try (SmartArray a = SmartArray.allocate(10, ArrayOptions.replicated().withBits(12))) {
      assertEquals(WriteMode.WRITE_THROUGH, a.writeMode());
      a.sync();
    }
  }
}
