// Checks array lifetimes: close() and arenas free the native array, and every use afterwards is an
// IllegalStateException, never a crash.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class LifetimeTest {
  private static final long[] VALUES = RoundTripTest.values(64, 5000, 11);

  // Every public operation of an array, each as one call.
  private static final List<Consumer<SmartArray>> USES = List.of(
      SmartArray::length, SmartArray::bits, SmartArray::placement, SmartArray::replicas, SmartArray::localReplica,
      SmartArray::memoryBytes, a -> a.get(0), a -> a.set(0, 1), SmartArray::sum, a -> a.sum(0, 10),
      a -> a.sum(0, 5000), a -> a.decode(0, new long[8], 0, 8), a -> a.decode(0, MemorySegment.ofArray(new long[8])),
      SmartArray::toArray, a -> a.toArray(1, 2), SmartArray::cursor, a -> a.cursor(0, 1), SmartArray::spliterator,
      SmartArray::stream, SmartArray::asSegment, a -> a.packedWords(0), a -> a.pagesPerNode(0),
      SmartArray::pagesPerNode);

  @Test
  void everyUseAfterCloseIsAnIllegalState() {
    SmartArray a = SmartArray.fromLongs(VALUES, ArrayOptions.defaults().withBits(64));
    for (Consumer<SmartArray> use : USES) use.accept(a);
    a.close();
    for (int k = 0; k < USES.size(); k++) {
      Consumer<SmartArray> use = USES.get(k);
      assertThrows(IllegalStateException.class, () -> use.accept(a), "use " + k);
    }
    a.close();
    assertTrue(a.toString().contains("freed"), a.toString());
  }

  @Test
  void viewsAndCursorsOutliveNoArray() {
    SmartArray a = SmartArray.fromLongs(VALUES, ArrayOptions.defaults().withBits(64));
    MemorySegment view = a.asSegment();
    MemorySegment words = a.packedWords(0);
    SmartArrayCursor cursor = a.cursor();
    long first = cursor.nextLong();
    assertEquals(VALUES[0], first);
    assertEquals(VALUES[1], view.getAtIndex(JAVA_LONG, 1));
    a.close();
    assertThrows(IllegalStateException.class, () -> view.getAtIndex(JAVA_LONG, 1));
    assertThrows(IllegalStateException.class, () -> words.getAtIndex(JAVA_LONG, 0));
    cursor.seek(SmartArrayCursor.BATCH * 2);
    assertThrows(IllegalStateException.class, cursor::nextLong, "reading in place");
  }

  @Test
  void decodedValuesStayButDecodingMoreFails() {
    long[] values = RoundTripTest.values(40, 5000, 12);
    SmartArray a = SmartArray.fromLongs(values, ArrayOptions.defaults().withBits(40));
    SmartArrayCursor cursor = a.cursor();
    assertEquals(values[0], cursor.nextLong());
    a.close();
    assertEquals(values[1], cursor.nextLong(), "already decoded");
    cursor.seek(SmartArrayCursor.BATCH * 2);
    assertThrows(IllegalStateException.class, cursor::nextLong, "decoding the next batch");
    assertThrows(IllegalStateException.class, cursor::nextBatch);
  }

  @Test
  void arraysOfAnArenaAreFreedWithIt() {
    SmartArray a;
    MemorySegment view;
    try (Arena arena = Arena.ofConfined()) {
      a = SmartArray.fromLongs(arena, VALUES, ArrayOptions.defaults().withBits(64));
      view = a.asSegment();
      assertEquals(VALUES[7], a.get(7));
      assertThrows(UnsupportedOperationException.class, a::close, "freed by the arena, not by close()");
    }
    assertThrows(IllegalStateException.class, () -> a.get(7));
    assertThrows(IllegalStateException.class, () -> view.getAtIndex(JAVA_LONG, 7));
    assertThrows(IllegalStateException.class, a::sum);
  }

  @Test
  void anArrayOfAClosedArenaIsNeverMade() {
    Arena arena = Arena.ofConfined();
    arena.close();
    assertThrows(IllegalStateException.class,
        () -> SmartArray.fromLongs(arena, VALUES, ArrayOptions.defaults().withBits(64)));
  }

  @Test
  void confinedArraysRejectOtherThreads() throws InterruptedException {
    try (Arena arena = Arena.ofConfined()) {
      SmartArray a = SmartArray.fromLongs(arena, VALUES, ArrayOptions.defaults().withBits(64));
      Throwable[] failure = new Throwable[1];
      Thread other = new Thread(() -> {
        try {
          a.get(0);
        } catch (Throwable t) {
          failure[0] = t;
        }
      });
      other.start();
      other.join();
      assertTrue(failure[0] instanceof WrongThreadException, String.valueOf(failure[0]));
    }
  }

  @Test
  void theDecisionReadWhileAnotherThreadClosesTheArrayIsRightOrAnIllegalState() throws InterruptedException {
    List<String> wrong = new CopyOnWriteArrayList<>();
    for (int round = 0; round < 300 && wrong.isEmpty(); round++) {
      SmartArray a = SmartArray.fromLongs(VALUES, ArrayOptions.auto());
      String expected = a.decisionJson();
      assertTrue(expected.length() > 64, expected);
      CountDownLatch reading = new CountDownLatch(1);
      Thread reader = new Thread(() -> {
        try {
          while (true) {
            String json = a.decisionJson();
            reading.countDown();
            if (!json.equals(expected)) wrong.add(json);
          }
        } catch (IllegalStateException closed) {
          return;
        }
      });
      reader.start();
      reading.await();
      Closing.closeWhenIdle(a::close);
      reader.join();
    }
    assertEquals(List.of(), wrong, "decisions read from a freed array");
  }

  @Test
  void closingWhileAnotherThreadReadsNeverCrashes() throws InterruptedException {
    for (int round = 0; round < 20; round++) {
      SmartArray a = SmartArray.fromLongs(VALUES, ArrayOptions.defaults().withBits(64));
      Throwable[] failure = new Throwable[1];
      Thread reader = new Thread(() -> {
        try {
          while (true) {
            a.sum();
            a.asSegment().getAtIndex(JAVA_LONG, 4999);
            a.toArray();
          }
        } catch (IllegalStateException closed) {
          return;
        } catch (Throwable t) {
          failure[0] = t;
        }
      });
      reader.start();
      Closing.closeWhenIdle(a::close);
      reader.join();
      assertEquals(null, failure[0]);
    }
  }
}
