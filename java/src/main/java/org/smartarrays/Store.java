// Owns the Java handle of an open store (the compact form, docs/compact-format.md) and the static
// calls that write, append, verify, send and receive stores: thin over the C ABI's sa_store_*.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A store file or stream of named smart arrays and graphs, used in place: opened mapped (the
 * file's pages, no copy) or loaded into a placement, or received from a file descriptor into one
 * region. Arrays and graphs taken from it are read-only handles of their own (close them as usual)
 * that stay valid after the store is closed. Objects to write are given as a map of names to
 * {@link SmartArray} and {@link Graph} values, in the map's iteration order.
 */
public final class Store implements AutoCloseable {
  /** How {@link #open(Path, Mode, ArrayOptions)} makes the arrays of a file. */
  public enum Mode {
    /** Read-only views over the file's pages: no copy; a graph's offsets and ids are read once (bounds). */
    MAP,
    /** Copies (checksums checked) into the given placement, in parallel. */
    LOAD
  }

  private static final String CLOSED = "the store was already closed";

  private final MemorySegment handle;
  private final Arena arena;
  // names() reads C strings the store owns after the calls that return them.
  private final InUse inUse = new InUse();

  private Store(MemorySegment handle, Arena arena) {
    this.handle = handle;
    this.arena = arena;
  }

  /** A native call that opens or receives an sa_store into out, given a scratch arena for its arguments. */
  private interface Opener {
    int open(Arena scratch, MemorySegment out);
  }

  @SuppressWarnings("restricted") // attaches sa_store_close to the handle's lifetime
  private static Store make(Opener opener) {
    MemorySegment pointer;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      Native.check(opener.open(scratch, out));
      pointer = out.get(ADDRESS, 0);
    }
    Arena scope = Arena.ofShared();
    try {
      return new Store(pointer.reinterpret(scope, StoreNative::close), scope);
    } catch (RuntimeException | Error e) {
      StoreNative.close(pointer);
      throw e;
    }
  }

  /** A native call given an sa_store_object list and its length. */
  private interface ObjectsCall {
    int call(MemorySegment list, long n);
  }

  // Runs call on the sa_store_object list of objects, made in scratch. The list carries the handles of
  // the arrays and graphs, which the FFM runtime does not keep alive as it does a downcall's arguments:
  // each is counted in use meanwhile, so a close() from another thread fails instead of freeing it
  // under the call, and one already closed is an IllegalStateException before the call.
  private static void withObjects(Arena scratch, Map<String, ?> objects, ObjectsCall call) {
    Objects.requireNonNull(objects, "objects");
    MemorySegment list = scratch.allocate(StoreNative.OBJECT, Math.max(1, objects.size()));
    List<Runnable> releases = new ArrayList<>();
    try {
      long i = 0;
      for (Map.Entry<String, ?> e : objects.entrySet()) {
        MemorySegment o = list.asSlice(i * StoreNative.OBJECT.byteSize(), StoreNative.OBJECT);
        StoreNative.OBJECT_NAME.set(o, 0L, Native.cString(scratch, e.getKey(), "object name"));
        StoreNative.OBJECT_ARRAY.set(o, 0L, MemorySegment.NULL);
        StoreNative.OBJECT_GRAPH.set(o, 0L, MemorySegment.NULL);
        switch (e.getValue()) {
          case SmartArray a -> {
            StoreNative.OBJECT_ARRAY.set(o, 0L, a.acquire());
            releases.add(a::release);
          }
          case Graph g -> {
            StoreNative.OBJECT_GRAPH.set(o, 0L, g.acquire());
            releases.add(g::release);
          }
          case null -> throw new NullPointerException("object " + e.getKey() + " is null");
          default -> throw new IllegalArgumentException(
              "object " + e.getKey() + " is a " + e.getValue().getClass().getSimpleName() + ", not a SmartArray or a Graph");
        }
        i++;
      }
      Native.check(call.call(list, i));
    } finally {
      releases.forEach(Runnable::run);
    }
  }

  private static MemorySegment placement(Arena scratch, ArrayOptions placement) {
    return placement == null ? MemorySegment.NULL : SmartArray.marshal(placement, scratch);
  }

  /** Writes objects as a new store at path (replacing any file there once the new one is complete). */
  public static void write(Path path, Map<String, ?> objects) {
    Objects.requireNonNull(path, "path");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment file = Native.path(scratch, path, "path");
      withObjects(scratch, objects, (list, n) -> StoreNative.write(file, list, n));
    }
  }

  /** Adds objects to the store at path without rewriting it; names must be new. */
  public static void append(Path path, Map<String, ?> objects) {
    Objects.requireNonNull(path, "path");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment file = Native.path(scratch, path, "path");
      withObjects(scratch, objects, (list, n) -> StoreNative.append(file, list, n));
    }
  }

  /** Opens the store at path mapped. */
  public static Store open(Path path) {
    return open(path, Mode.MAP, null);
  }

  /** Opens the store at path: mapped (placement null or the defaults), or loaded into placement (null = OS default; bits 0). */
  public static Store open(Path path, Mode mode, ArrayOptions placement) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(mode, "mode");
    return make((scratch, out) -> StoreNative.open(Native.path(scratch, path, "path"),
        mode == Mode.MAP ? StoreNative.MAP : StoreNative.LOAD, placement(scratch, placement), out));
  }

  /** The number of problems verify finds in the store at path (0: sound); deep also checks every graph's CSR. */
  public static long verify(Path path, boolean deep) {
    Objects.requireNonNull(path, "path");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment problems = scratch.allocate(JAVA_LONG);
      Native.check(StoreNative.verify(Native.path(scratch, path, "path"), deep ? 1 : 0, problems));
      return problems.get(JAVA_LONG, 0);
    }
  }

  /** Sends objects over the file descriptor fd as one store stream, blocks straight from native memory. */
  public static void send(int fd, Map<String, ?> objects) {
    try (Arena scratch = Arena.ofConfined()) {
      withObjects(scratch, objects, (list, n) -> StoreNative.send(fd, list, n));
    }
  }

  /** Sends the store file at path over fd as one stream, with sendfile. */
  public static void sendFile(int fd, Path path) {
    Objects.requireNonNull(path, "path");
    try (Arena scratch = Arena.ofConfined()) {
      Native.check(StoreNative.sendFile(fd, Native.path(scratch, path, "path")));
    }
  }

  /** Receives one store stream from fd into one region in placement (null = OS default), at most
   *  maxBytes (0 = the process memory limit). */
  public static Store receive(int fd, ArrayOptions placement, long maxBytes) {
    Native.requireNonNegative(maxBytes, "maxBytes");
    return make((scratch, out) -> StoreNative.recv(fd, placement(scratch, placement), maxBytes, out));
  }

  /**
   * Receives store streams one after another, reading each into the region of the last one when no
   * array or graph of that store is left open and the stream fits: no new region, and no page
   * faults, per stream. Calls from several threads take turns. Stores received stay valid after
   * the receiver is closed.
   */
  public static final class Receiver implements AutoCloseable {
    private final MemorySegment handle;
    private final Arena arena;

    /** A receiver placing its regions in placement (null = OS default), accepting streams of at most maxBytes (0 = the memory limit). */
    @SuppressWarnings("restricted") // attaches sa_receiver_free to the handle's lifetime
    public Receiver(ArrayOptions placement, long maxBytes) {
      Native.requireNonNegative(maxBytes, "maxBytes");
      MemorySegment pointer;
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment out = scratch.allocate(ADDRESS);
        Native.check(StoreNative.receiverNew(placement(scratch, placement), maxBytes, out));
        pointer = out.get(ADDRESS, 0);
      }
      arena = Arena.ofShared();
      handle = pointer.reinterpret(arena, StoreNative::receiverFree);
    }

    private void ensureOpen() {
      if (!handle.scope().isAlive()) throw new IllegalStateException("the receiver was already closed");
    }

    /** Receives one store stream from fd, into the kept region when it can be reused. */
    public Store receive(int fd) {
      ensureOpen();
      return make((scratch, out) -> StoreNative.receiverRecv(handle, fd, out));
    }

    /** Bytes of the region kept for the next stream (0 before the first). */
    public long reservedBytes() {
      return stat(0);
    }

    /** How many streams were read into a reused region. */
    public long reuses() {
      return stat(1);
    }

    private long stat(int which) {
      ensureOpen();
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment values = scratch.allocate(JAVA_LONG, 2);
        Native.check(StoreNative.receiverStats(handle, values, values.asSlice(JAVA_LONG.byteSize())));
        return values.getAtIndex(JAVA_LONG, which);
      }
    }

    /** Releases the receiver's region once no store received into it is left. A no-op when already closed. */
    @Override
    public void close() {
      if (arena.scope().isAlive()) arena.close();
    }
  }

  private void ensureOpen() {
    if (!handle.scope().isAlive()) throw new IllegalStateException(CLOSED);
  }

  /** The objects' names, in directory order. */
  public List<String> names() {
    // The names belong to the store: counted in use until they are read, so a close() meanwhile fails.
    inUse.enter(handle, CLOSED);
    try {
      long n = StoreNative.count(handle);
      List<String> names = new ArrayList<>();
      for (long i = 0; i < n; i++) names.add(Native.string(StoreNative.name(handle, i)));
      return List.copyOf(names);
    } finally {
      inUse.exit();
    }
  }

  /** True when the object named name is an array (false: a graph); IllegalArgumentException if there is none. */
  public boolean isArray(String name) {
    ensureOpen();
    Objects.requireNonNull(name, "name");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment kind = scratch.allocate(JAVA_INT);
      Native.check(StoreNative.kind(handle, Native.cString(scratch, name, "name"), kind));
      return kind.get(JAVA_INT, 0) == StoreNative.KIND_ARRAY;
    }
  }

  /** The array named name: a read-only handle sharing the store's memory; close it when done. */
  public SmartArray array(String name) {
    ensureOpen();
    Objects.requireNonNull(name, "name");
    return SmartArray.make(null, (scratch, out) -> StoreNative.array(handle, Native.cString(scratch, name, "name"), out));
  }

  /** The graph named name: a read-only handle sharing the store's memory; close it when done. */
  public Graph graph(String name) {
    ensureOpen();
    Objects.requireNonNull(name, "name");
    MemorySegment pointer;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      Native.check(StoreNative.graph(handle, Native.cString(scratch, name, "name"), out));
      pointer = out.get(ADDRESS, 0);
    }
    return Graph.adopt(pointer);
  }

  /** Closes the store; arrays and graphs taken from it stay valid. A no-op when already closed. */
  @Override
  public void close() {
    inUse.close(arena, "the store", arena::close);
  }

  @Override
  public String toString() {
    return handle.scope().isAlive() ? "Store" + names() : "Store[closed]";
  }
}
