// Checks the Java Store over the C ABI: write, append, open mapped and loaded, names, kinds, arrays
// and graphs that outlive the store, verify, send and receive over a pipe (made with libc through
// the FFM API), and every error path mapped to the binding's exceptions with the native message.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.zip.CRC32C;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("restricted") // the test makes pipes with libc's pipe(2) and close(2)
class StoreTest {
  private static final Path GRAPHS = Path.of(System.getProperty("smartarrays.graphs", "../tests/data/graph"));
  private static final Linker LINKER = Linker.nativeLinker();
  private static final MethodHandle PIPE =
      LINKER.downcallHandle(LINKER.defaultLookup().find("pipe").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle CLOSE =
      LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));

  @TempDir
  Path dir;

  private static int[] pipe() throws Throwable {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment fds = arena.allocate(JAVA_INT, 2);
      assertEquals(0, (int) PIPE.invokeExact(fds));
      return new int[] {fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1)};
    }
  }

  private static void close(int fd) throws Throwable {
    assertEquals(0, (int) CLOSE.invokeExact(fd));
  }

  private static long[] values(int n) {
    long[] v = new long[n];
    for (int i = 0; i < n; i++) v[i] = (i * 7L) % 1000;
    return v;
  }

  private static long[] decode(SmartArray a) {
    long[] out = new long[(int) a.length()];
    for (int i = 0; i < out.length; i++) out[i] = a.get(i);
    return out;
  }

  @Test
  void writeOpenMappedAndLoaded() {
    Path path = dir.resolve("s.sa");
    long[] v = values(5000);
    try (SmartArray a = SmartArray.fromLongs(v, ArrayOptions.defaults().withBits(10));
        Graph g = Graph.load(GRAPHS.resolve("tiny.el"), GraphOptions.defaults())) {
      Map<String, Object> objects = new LinkedHashMap<>();
      objects.put("values", a);
      objects.put("tiny", g);
      Store.write(path, objects);
      Graph mappedGraph;
      SmartArray mapped;
      try (Store store = Store.open(path)) {
        assertEquals(List.of("values", "tiny"), store.names());
        assertTrue(store.isArray("values"));
        assertFalse(store.isArray("tiny"));
        mapped = store.array("values");
        mappedGraph = store.graph("tiny");
      }
      // Both outlive the store.
      assertEquals(10, mapped.bits());
      assertArrayEquals(v, decode(mapped));
      assertThrows(IllegalArgumentException.class, () -> mapped.set(0, 1));
      assertArrayEquals(g.pagerank(PageRankOptions.defaults()).ranks(), mappedGraph.pagerank(PageRankOptions.defaults()).ranks());
      mapped.close();
      mappedGraph.close();
      try (Store loaded = Store.open(path, Store.Mode.LOAD, ArrayOptions.interleaved());
          SmartArray copy = loaded.array("values")) {
        assertEquals(Placement.INTERLEAVED, copy.placement());
        assertArrayEquals(v, decode(copy));
      }
      assertEquals(0, Store.verify(path, true));
      Store.append(path, Map.of("more", a));
      try (Store store = Store.open(path)) {
        assertEquals(List.of("values", "tiny", "more"), store.names());
      }
    }
  }

  @Test
  void sendAndReceiveOverAPipe() throws Throwable {
    long[] v = values(100_000);
    int[] fds = pipe();
    try (SmartArray a = SmartArray.fromLongs(v, ArrayOptions.defaults().withBits(10))) {
      Thread sender = new Thread(() -> Store.send(fds[1], Map.of("a", a)));
      sender.start();
      try (Store got = Store.receive(fds[0], null, 0); SmartArray back = got.array("a")) {
        assertArrayEquals(v, decode(back));
      }
      sender.join();
      Path path = dir.resolve("f.sa");
      Store.write(path, Map.of("a", a));
      Thread fileSender = new Thread(() -> Store.sendFile(fds[1], path));
      fileSender.start();
      try (Store got = Store.receive(fds[0], null, 0); SmartArray back = got.array("a")) {
        assertArrayEquals(v, decode(back));
      }
      fileSender.join();
    } finally {
      close(fds[1]);
    }
    SmartArrayException closed = assertThrows(SmartArrayException.class, () -> Store.receive(fds[0], null, 0));
    assertTrue(closed.getMessage().contains("the peer closed the stream after 0 of 16 bytes"), closed.getMessage());
    close(fds[0]);
  }

  // Runs call on a thread, interrupts it after 200 ms and returns what it threw (null if nothing);
  // a call still running 60 s after the interrupt fails the test.
  private static Throwable interruptedAfterAWhile(Runnable call) throws InterruptedException {
    java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        call.run();
      } catch (Throwable e) {
        thrown.set(e);
      }
    });
    t.start();
    Thread.sleep(200);
    t.interrupt();
    t.join(60_000);
    assertFalse(t.isAlive(), "still waiting for its peer 60 s after Thread.interrupt()");
    return thrown.get();
  }

  private static void assertInterrupted(Throwable thrown, String function) {
    SmartArrayException e = assertInstanceOf(SmartArrayException.class, thrown);
    assertEquals(SmartArrayException.Reason.CANCELLED, e.reason());
    assertEquals(function + ": interrupted", e.getMessage());
  }

  @Test
  void aSendOrReceiveWhosePeerStoppedEndsOnThreadInterrupt() throws Throwable {
    int[] fds = pipe();
    try (SmartArray a = SmartArray.fromLongs(values(1_000_000), ArrayOptions.defaults())) {
      // Nobody reads: the pipe fills and the sender waits for room.
      assertInterrupted(interruptedAfterAWhile(() -> Store.send(fds[1], Map.of("a", a))), "sa_store_send");
      close(fds[0]);
      close(fds[1]);
      // Nobody sends (the write end stays open): the receiver waits for bytes.
      int[] quiet = pipe();
      try {
        assertInterrupted(interruptedAfterAWhile(() -> Store.receive(quiet[0], null, 0).close()), "sa_store_recv");
      } finally {
        close(quiet[0]);
        close(quiet[1]);
      }
    }
  }

  @Test
  void aReceiverReusesItsRegionOnceTheLastStoreIsClosed() throws Throwable {
    long[] v = values(50_000);
    int[] fds = pipe();
    try (SmartArray a = SmartArray.fromLongs(v, ArrayOptions.defaults().withBits(17));
        Store.Receiver receiver = new Store.Receiver(null, 0)) {
      assertEquals(0, receiver.reservedBytes());
      for (int round = 0; round < 3; round++) {
        Thread sender = new Thread(() -> Store.send(fds[1], Map.of("a", a)));
        sender.start();
        try (Store got = receiver.receive(fds[0]); SmartArray back = got.array("a")) {
          assertArrayEquals(v, decode(back));
        }
        sender.join();
      }
      assertEquals(2, receiver.reuses());
      assertTrue(receiver.reservedBytes() > 50_000L * 17 / 8, "reserved " + receiver.reservedBytes());
      // A store still open keeps its region: the next stream goes into a new one.
      Thread sender = new Thread(() -> Store.send(fds[1], Map.of("a", a)));
      sender.start();
      try (Store held = receiver.receive(fds[0])) {
        sender.join();
        Thread again = new Thread(() -> Store.send(fds[1], Map.of("a", a)));
        again.start();
        try (Store next = receiver.receive(fds[0]); SmartArray first = held.array("a"); SmartArray second = next.array("a")) {
          assertArrayEquals(v, decode(first));
          assertArrayEquals(v, decode(second));
        }
        again.join();
      }
      assertEquals(3, receiver.reuses());
    } finally {
      close(fds[0]);
      close(fds[1]);
    }
    Store.Receiver closed = new Store.Receiver(null, 0);
    closed.close();
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.receive(0));
    assertThrows(IllegalArgumentException.class, () -> new Store.Receiver(null, -1));
    IllegalArgumentException replicated =
        assertThrows(IllegalArgumentException.class, () -> new Store.Receiver(ArrayOptions.replicated(), 0));
    assertTrue(replicated.getMessage().contains("needs copies"), replicated.getMessage());
  }

  @Test
  void closedArraysAndGraphsAreRefusedNotReadAfterTheirFree() throws Throwable {
    Path path = dir.resolve("c.sa");
    SmartArray closedArray = SmartArray.fromLongs(values(1000), ArrayOptions.defaults());
    closedArray.close();
    Graph closedGraph = Graph.load(GRAPHS.resolve("tiny.el"), GraphOptions.defaults());
    closedGraph.close();
    int[] fds = pipe();
    SmartArray open = SmartArray.fromLongs(values(10), ArrayOptions.defaults());
    try {
      for (Map<String, Object> objects : List.<Map<String, Object>>of(Map.of("x", closedArray), Map.of("g", closedGraph))) {
        IllegalStateException write = assertThrows(IllegalStateException.class, () -> Store.write(path, objects));
        assertTrue(write.getMessage().contains("already freed"), write.getMessage());
        assertFalse(Files.exists(path), "nothing written");
        assertThrows(IllegalStateException.class, () -> Store.send(fds[1], objects));
      }
      Store.write(path, Map.of("open", open));
      assertThrows(IllegalStateException.class, () -> Store.append(path, Map.of("x", closedArray)));
      try (Store store = Store.open(path)) {
        assertEquals(List.of("open"), store.names());
      }
      // The open array stays usable: the failed calls released it.
      open.close();
      assertThrows(IllegalStateException.class, open::sum);
    } finally {
      close(fds[0]);
      close(fds[1]);
    }
  }

  @Test
  void closingAnObjectWhileASendCarriesItFailsInsteadOfFreeingIt() throws Throwable {
    int[] fds = pipe();
    // 8 MiB, far more than a pipe holds: the send blocks in native code until the pipe is drained.
    SmartArray a = SmartArray.fromLongs(values(1 << 20), ArrayOptions.defaults().withBits(64));
    Graph g = Graph.load(GRAPHS.resolve("tiny.el"), GraphOptions.defaults());
    Throwable[] failure = new Throwable[1];
    Thread sender = new Thread(() -> {
      try {
        Store.send(fds[1], Map.of("a", a, "g", g));
      } catch (Throwable t) {
        failure[0] = t;
      }
    });
    try (InputStream pipe = Files.newInputStream(Path.of("/proc/self/fd/" + fds[0]))) {
      sender.start();
      assertTrue(pipe.read() >= 0, "the send started");
      IllegalStateException busy = assertThrows(IllegalStateException.class, a::close);
      assertTrue(busy.getMessage().contains("in use by another thread"), busy.getMessage());
      assertThrows(IllegalStateException.class, g::close);
      assertThrows(IllegalStateException.class, () -> LiveArray.of(a), "nor handed over");
      Thread drain = new Thread(() -> {
        try {
          pipe.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
          failure[0] = e;
        }
      });
      drain.start();
      sender.join();
      close(fds[1]);
      drain.join();
    } finally {
      close(fds[0]);
    }
    assertEquals(null, failure[0]);
    assertEquals(values(1 << 20)[12345], a.get(12345), "still the caller's, unchanged");
    a.close();
    g.close();
    assertThrows(IllegalStateException.class, () -> a.get(0));
    assertThrows(IllegalStateException.class, g::vertices);
  }

  @Test
  void namesReadWhileAnotherThreadClosesTheStoreAreRightOrAnIllegalState() throws InterruptedException {
    Path path = dir.resolve("n.sa");
    String name = "a-name-long-enough-to-live-in-its-own-heap-block";
    try (SmartArray a = SmartArray.fromLongs(values(10), ArrayOptions.defaults())) {
      Store.write(path, Map.of(name, a));
    }
    List<String> wrong = new CopyOnWriteArrayList<>();
    for (int round = 0; round < 300 && wrong.isEmpty(); round++) {
      Store store = Store.open(path);
      CountDownLatch reading = new CountDownLatch(1);
      Thread reader = new Thread(() -> {
        try {
          while (true) {
            List<String> names = store.names();
            reading.countDown();
            if (!names.equals(List.of(name))) wrong.add(names.toString());
          }
        } catch (IllegalStateException closed) {
          return;
        }
      });
      reader.start();
      reading.await();
      Closing.closeWhenIdle(store::close);
      reader.join();
    }
    assertEquals(List.of(), wrong, "names read from a freed store");
  }

  private static int crc32c(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  @Test
  void aGraphWithIdsPastItsVertexCountIsRefusedMappedOrLoaded() throws IOException {
    // Its checksums are right, its ids are not. Mapped, it used to open unchecked, and PageRank then
    // crashed the JVM with SIGSEGV.
    Path path = dir.resolve("bounds.sa");
    try (Graph g = Graph.fromEdges(new long[] {0, 1, 2}, new long[] {1, 2, 0}, 3,
        GraphOptions.defaults().withVariant(Graph.Variant.U))) {
      Store.write(path, Map.of("g", g));
    }
    ByteBuffer data = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
    int trailer = data.capacity() - 32;
    int directory = (int) data.getLong(trailer + 8);
    int directoryBytes = (int) data.getLong(trailer + 16);
    // The ids 2^32 - 1, 2^31 and 3e9 at 32 bits over the block's first words (the rest is zero).
    byte[] ids = new byte[16];
    ByteBuffer.wrap(ids).order(ByteOrder.LITTLE_ENDIAN).putLong(0xFFFFFFFFL | (1L << 63)).putLong(3_000_000_000L);
    for (int block : new int[] {1, 3}) { // edge and redge
      int descriptor = directory + 16 + 40 * block;
      int offset = (int) data.getLong(descriptor + 16);
      data.put(offset, ids);
      data.putInt(descriptor + 32, crc32c(data.array(), offset, (int) data.getLong(descriptor + 24)));
    }
    data.putInt(trailer + 24, crc32c(data.array(), directory, directoryBytes));
    data.putInt(trailer + 28, crc32c(data.array(), trailer, 28));
    Files.write(path, data.array());
    for (Store.Mode mode : Store.Mode.values()) {
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
          () -> Store.open(path, mode, ArrayOptions.defaults()));
      assertTrue(refused.getMessage().contains(
          "CSR bounds: neighbour id edge[0] = 4294967295 is not below the vertex count 3"), refused.getMessage());
    }
  }

  @Test
  void threadsAppendingToOneStoreLoseNothingAndACutMappedStoreIsAnErrorNotACrash() throws Exception {
    Path path = dir.resolve("shared.sa");
    try (SmartArray first = SmartArray.fromLongs(values(10), ArrayOptions.defaults())) {
      Store.write(path, Map.of("first", first));
    }
    // Writers exclude each other (docs/compact-format.md, "Writers, readers and locks").
    List<Thread> writers = new java.util.ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int t = 0; t < 4; t++) {
      final int thread = t;
      writers.add(Thread.ofPlatform().start(() -> {
        for (int i = 0; i < 5; i++) {
          try (SmartArray a = SmartArray.fromLongs(values(100 + thread * 5 + i), ArrayOptions.defaults())) {
            Store.append(path, Map.of("t" + thread + "-" + i, a));
          } catch (Throwable e) {
            failures.add(e);
          }
        }
      }));
    }
    for (Thread w : writers) w.join();
    assertEquals(List.of(), failures);
    try (Store store = Store.open(path)) {
      assertEquals(21, store.names().size());
      for (int t = 0; t < 4; t++) {
        for (int i = 0; i < 5; i++) {
          try (SmartArray a = store.array("t" + t + "-" + i)) {
            assertArrayEquals(values(100 + t * 5 + i), decode(a));
          }
        }
      }
    }
    assertEquals(0, Store.verify(path, true));
    // Cut under a mapped reader: the read that meets the missing pages fails naming the file.
    Path big = dir.resolve("big.sa");
    try (SmartArray a = SmartArray.fromLongs(values(300_000), ArrayOptions.defaults())) {
      Store.write(big, Map.of("big", a));
    }
    try (Store store = Store.open(big); SmartArray mapped = store.array("big")) {
      try (var channel = java.nio.channels.FileChannel.open(big, java.nio.file.StandardOpenOption.WRITE)) {
        channel.truncate(4096);
      }
      SmartArrayException cut = assertThrows(SmartArrayException.class, () -> mapped.get(299_999));
      assertTrue(cut.getMessage().contains("was truncated while mapped"), cut.getMessage());
      assertTrue(cut.getMessage().contains(big.toString()), cut.getMessage());
    }
  }

  @Test
  void errorsCarryTheNativeMessage() throws IOException {
    Path path = dir.resolve("e.sa");
    try (SmartArray a = SmartArray.fromLongs(new long[] {1, 2, 3}, ArrayOptions.defaults())) {
      Store.write(path, Map.of("x", a));
      IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> Store.append(path, Map.of("x", a)));
      assertTrue(twice.getMessage().contains("already exists"), twice.getMessage());
      IllegalArgumentException control =
          assertThrows(IllegalArgumentException.class, () -> Store.append(path, Map.of("a\nb", a)));
      assertTrue(control.getMessage().contains("'a\\x0ab' must have 1..1024 bytes and no control byte"),
          control.getMessage());
      IllegalArgumentException notObject =
          assertThrows(IllegalArgumentException.class, () -> Store.write(path, Map.of("y", "text")));
      assertTrue(notObject.getMessage().contains("not a SmartArray or a Graph"), notObject.getMessage());
      IllegalArgumentException bits = assertThrows(IllegalArgumentException.class,
          () -> Store.open(path, Store.Mode.LOAD, ArrayOptions.defaults().withBits(3)));
      assertTrue(bits.getMessage().contains("stored widths"), bits.getMessage());
      IllegalArgumentException mappedPlacement = assertThrows(IllegalArgumentException.class,
          () -> Store.open(path, Store.Mode.MAP, ArrayOptions.interleaved()));
      assertTrue(mappedPlacement.getMessage().contains(
          "placement, nodes and huge pages apply to load mode; a mapped store stays in the file's pages"),
          mappedPlacement.getMessage());
      Path text = Files.writeString(dir.resolve("t.sa"), "not a store at all, just some text in a file\n");
      IllegalArgumentException notStore = assertThrows(IllegalArgumentException.class, () -> Store.open(text));
      assertTrue(notStore.getMessage().contains("store"), notStore.getMessage());
      assertThrows(SmartArrayException.class, () -> Store.open(dir.resolve("missing.sa")));
      try (Store store = Store.open(path)) {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> store.array("nothing"));
        assertTrue(none.getMessage().contains("no object named 'nothing'"), none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> store.graph("x"));
      }
      Store store = Store.open(path);
      store.close();
      store.close();
      assertThrows(IllegalStateException.class, store::names);
      assertThrows(IllegalArgumentException.class, () -> Store.receive(0, null, -1));
    }
  }
}
