// Owns the Java handle of one native smart array: creation from Java data or by allocation, its
// lifetime (its own shared arena closed by close(), or a caller's arena), and the thin API over the
// C ABI's sa_array entry points. Every smart functionality (placement, replicas, bit packing and
// unpacking, sums) runs in the C++ core; Java moves whole batches across the boundary.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;
import java.util.Spliterator;
import java.util.stream.LongStream;
import java.util.stream.StreamSupport;

/**
 * A smart array of unsigned values held by the native library: its placement over NUMA nodes and
 * its bits per value are chosen at creation; reads go to the calling thread's replica.
 *
 * <p>An array either owns its memory (created without an arena: free it with {@link #close()}) or
 * belongs to an {@link Arena} (freed when the arena closes). Any use after the memory is freed
 * throws {@link IllegalStateException}. Reads may run concurrently from many threads when the
 * array is owned or its arena is shared; {@link #set} must not run concurrently with other calls.
 */
public final class SmartArray implements AutoCloseable {
  // Largest Java array the JVM reliably allocates.
  private static final int MAX_JAVA_ARRAY = Integer.MAX_VALUE - 8;
  // Highest kernel NUMA node id plus one that Linux can have (MAX_NUMNODES).
  private static final int MAX_KERNEL_NODES = 1024;
  private static final String FREED = "the smart array was already freed";

  private final MemorySegment handle;
  private final Arena arena;
  private final boolean owned;
  // Set once another owner took the native array over (handOver): closing then frees nothing.
  private final boolean[] handedOver;
  private final long length;
  private final int bits;
  private final Placement placement;
  // Calls the FFM runtime does not guard: Store calls carrying the handle in their object list, and
  // decisionJson() reading the JSON the array owns.
  private final InUse inUse = new InUse();

  private SmartArray(MemorySegment handle, Arena arena, boolean owned, boolean[] handedOver) {
    this.handle = handle;
    this.arena = arena;
    this.owned = owned;
    this.handedOver = handedOver;
    this.length = Native.length(handle);
    this.bits = Native.bits(handle);
    this.placement = Placement.of(Native.placement(handle));
  }

  /** A native call that makes an sa_array into out, given a scratch arena for its arguments. */
  interface Maker {
    int make(Arena scratch, MemorySegment out);
  }

  // Runs maker, then ties the new sa_array to arena (or to a fresh shared arena when arena is null).
  // Package-private for the other handles that hand out arrays (Store).
  @SuppressWarnings("restricted") // attaches sa_array_free to the handle's lifetime
  static SmartArray make(Arena arena, Maker maker) {
    MemorySegment pointer;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      Native.check(maker.make(scratch, out));
      pointer = out.get(ADDRESS, 0);
    }
    boolean owned = arena == null;
    Arena scope = owned ? Arena.ofShared() : arena;
    boolean[] handedOver = {false};
    MemorySegment handle;
    try {
      handle = pointer.reinterpret(scope, p -> {
        if (!handedOver[0]) Native.free(p);
      });
    } catch (RuntimeException | Error e) {
      Native.free(pointer);
      throw e;
    }
    return new SmartArray(handle, scope, owned, handedOver);
  }

  /** A native call that takes over the sa_array in *slot when it succeeds (freeing it and setting *slot to
      NULL, as sa_live_create does), writing what it makes to *out. */
  interface Taker {
    int take(MemorySegment slot, MemorySegment out);
  }

  /**
   * Hands the native array to taker. On success this array is closed without being freed (its new owner
   * freed the handle) and the pointer taker wrote is returned; on failure (the native refusal as an
   * exception) the array is as it was. Only an array that owns its memory can be handed over, and, as for
   * {@link #close()}, no other thread may be using it.
   */
  MemorySegment handOver(Taker taker) {
    ensureOpen();
    if (!owned) {
      throw new IllegalArgumentException("this smart array belongs to an arena, which frees it; only an array made "
          + "without an arena can be handed over");
    }
    MemorySegment[] taken = new MemorySegment[1];
    boolean ran = inUse.close(arena, "the smart array", () -> {
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment slot = scratch.allocate(ADDRESS);
        slot.set(ADDRESS, 0, handle);
        MemorySegment out = scratch.allocate(ADDRESS);
        Native.check(taker.take(slot, out));
        handedOver[0] = true;
        arena.close();
        taken[0] = out.get(ADDRESS, 0);
      }
    });
    if (!ran) throw new IllegalStateException(FREED);
    return taken[0];
  }

  static MemorySegment marshal(ArrayOptions options, Arena arena) {
    Objects.requireNonNull(options, "options");
    MemorySegment o = arena.allocate(Native.OPTIONS);
    Native.optionsInit(o);
    Native.OPTIONS_PLACEMENT.set(o, 0L, options.placement().code());
    Native.OPTIONS_NODE.set(o, 0L, options.node());
    Native.OPTIONS_BITS.set(o, 0L, options.autoBits() ? Native.BITS_AUTO : options.bits());
    Native.OPTIONS_HUGE_PAGES.set(o, 0L, options.hugePages().code());
    Native.OPTIONS_WRITE_MODE.set(o, 0L, options.writeMode().code());
    AccessHints hints = options.hints();
    Native.OPTIONS_READ_ONLY.set(o, 0L, hints.readOnly() ? 1 : 0);
    Native.OPTIONS_PATTERN.set(o, 0L, hints.pattern().code());
    Native.OPTIONS_PASSES.set(o, 0L, hints.passes());
    Native.OPTIONS_THREADS.set(o, 0L, hints.threads());
    int[] nodes = options.nodesShared();
    if (nodes.length > 0) {
      Native.OPTIONS_NODES.set(o, 0L, arena.allocateFrom(JAVA_INT, nodes));
      Native.OPTIONS_NODE_COUNT.set(o, 0L, nodes.length);
    }
    return o;
  }

  /** A zero-filled array of length values; options.bits() must be 1..64. Free it with close(). */
  public static SmartArray allocate(long length, ArrayOptions options) {
    return allocate(null, length, options);
  }

  /** Like {@link #allocate(long, ArrayOptions)}, freed when arena closes. */
  public static SmartArray allocate(Arena arena, long length, ArrayOptions options) {
    Native.requireNonNegative(length, "length");
    return make(arena, (scratch, out) -> Native.alloc(length, marshal(options, scratch), out));
  }

  /** An array of values read as unsigned 64-bit integers. Free it with close(). */
  public static SmartArray fromLongs(long[] values, ArrayOptions options) {
    return fromLongs(null, values, options);
  }

  /** Like {@link #fromLongs(long[], ArrayOptions)}, freed when arena closes. */
  public static SmartArray fromLongs(Arena arena, long[] values, ArrayOptions options) {
    return fromSegment(arena, MemorySegment.ofArray(Objects.requireNonNull(values, "values")), options);
  }

  /** An array of values read as unsigned 32-bit integers. Free it with close(). */
  public static SmartArray fromInts(int[] values, ArrayOptions options) {
    return fromInts(null, values, options);
  }

  /** Like {@link #fromInts(int[], ArrayOptions)}, freed when arena closes. */
  public static SmartArray fromInts(Arena arena, int[] values, ArrayOptions options) {
    Objects.requireNonNull(values, "values");
    return make(arena, (scratch, out) -> {
      MemorySegment staged = scratch.allocateFrom(JAVA_INT, values);
      return Native.fromU32(staged, values.length, marshal(options, scratch), out);
    });
  }

  /** An array of the stream's values read as unsigned 64-bit integers. Free it with close(). */
  public static SmartArray fromStream(LongStream values, ArrayOptions options) {
    return fromStream(null, values, options);
  }

  /** Like {@link #fromStream(LongStream, ArrayOptions)}, freed when arena closes. */
  public static SmartArray fromStream(Arena arena, LongStream values, ArrayOptions options) {
    return fromLongs(arena, Objects.requireNonNull(values, "values").toArray(), options);
  }

  /** An array of the unsigned 64-bit values in native byte order held by values. Free it with close(). */
  public static SmartArray fromSegment(MemorySegment values, ArrayOptions options) {
    return fromSegment(null, values, options);
  }

  /** Like {@link #fromSegment(MemorySegment, ArrayOptions)}, freed when arena closes. */
  public static SmartArray fromSegment(Arena arena, MemorySegment values, ArrayOptions options) {
    Objects.requireNonNull(values, "values");
    if (values.byteSize() % Long.BYTES != 0) {
      throw new IllegalArgumentException("values holds " + values.byteSize() + " bytes, not a whole number of 64-bit values");
    }
    long n = values.byteSize() / Long.BYTES;
    return make(arena, (scratch, out) -> {
      // Encoding runs as long as the array is big, so it is an ordinary call, which takes native memory only.
      MemorySegment source = values;
      if (!values.isNative() || values.address() % Long.BYTES != 0) {
        source = scratch.allocate(JAVA_LONG, n);
        source.copyFrom(values);
      }
      return Native.fromU64(source, n, marshal(options, scratch), out);
    });
  }

  private void ensureOpen() {
    if (!handle.scope().isAlive()) throw new IllegalStateException(FREED);
  }

  // A replica index, which the C ABI takes unsigned: a negative one is past the end there too, but
  // would be named as 2^32 - |replica|.
  private static int replica(int replica) {
    if (replica < 0) throw new IndexOutOfBoundsException("replica " + replica + " is negative");
    return replica;
  }

  /** Number of values. */
  public long length() {
    ensureOpen();
    return length;
  }

  /** Bits per value (1..64). */
  public int bits() {
    ensureOpen();
    return bits;
  }

  /** Where the pages live. */
  public Placement placement() {
    ensureOpen();
    return placement;
  }

  /** The huge-page mode the pages asked for (given, or ON / OFF as chosen by Placement.AUTO). */
  public HugePages hugePages() {
    ensureOpen();
    return HugePages.of(Native.hugePages(handle));
  }

  /** CRC32C (Castagnoli) of a replica's packed words, as an unsigned 32-bit value. */
  public long crc32c(int replica) {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(JAVA_INT);
      Native.check(Native.crc32c(handle, replica(replica), out));
      return Integer.toUnsignedLong(out.get(JAVA_INT, 0));
    }
  }

  // Bulk writes and writable replicas (docs/java.md), each one native call over the pool.
  /** Makes every value equal source's (any bits and placements); IllegalArgumentException for other lengths or a value too wide. */
  public void copyFrom(SmartArray source) {
    Objects.requireNonNull(source, "source");
    ensureOpen();
    source.ensureOpen();
    Native.check(Native.copyFrom(handle, source.handle));
  }

  /** Sets every value to value (unsigned); IllegalArgumentException when it does not fit in bits(). */
  public void fill(long value) {
    ensureOpen();
    Native.check(Native.fill(handle, value));
  }

  /** Copies the groups set() wrote since the last sync from replica 0 to the other replicas (WriteMode.PRIMARY; else nothing). */
  public void sync() {
    ensureOpen();
    Native.check(Native.sync(handle));
  }

  /** How set() reaches the replicas. */
  public WriteMode writeMode() {
    ensureOpen();
    return WriteMode.of(Native.writeMode(handle));
  }

  /** Whether every replica holds the same packed words as replica 0. */
  public boolean replicasEqual() {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(JAVA_INT);
      Native.check(Native.replicasEqual(handle, out));
      return out.get(JAVA_INT, 0) != 0;
    }
  }

  /** Bytes of a replica the kernel backs with huge pages now (transparent or hugetlb). */
  public long hugePageBytes(int replica) {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(JAVA_LONG);
      Native.check(Native.hugePageBytes(handle, replica(replica), out));
      return out.get(JAVA_LONG, 0);
    }
  }

  /**
   * The adaptive decision that chose this array's options (Placement.AUTO / auto bits) as JSON: choice,
   * candidates with predicted_s, explanation (docs/adaptivity.md); "null" when nothing was adaptive.
   */
  public String decisionJson() {
    // The JSON belongs to the array: counted in use until it is read, so a close() meanwhile fails.
    acquire();
    try {
      return Native.decisionJson(handle);
    } finally {
      release();
    }
  }

  /** Number of replicas (the node count for a replicated array, else 1). */
  public int replicas() {
    return Native.replicas(handle);
  }

  /** The replica that serves the calling thread (its node's, else the nearest). */
  public int localReplica() {
    return Native.localReplica(handle);
  }

  /** Bytes mapped by all replicas. */
  public long memoryBytes() {
    return Native.memoryBytes(handle);
  }

  /** Value index (checked), from the calling thread's replica, as an unsigned 64-bit value. */
  public long get(long index) {
    Objects.checkIndex(index, length);
    long[] out = new long[1];
    Native.check(Native.get(handle, index, MemorySegment.ofArray(out)));
    return out[0];
  }

  /** Stores value (unsigned; must fit in bits()) at index in every replica. */
  public void set(long index, long value) {
    Objects.checkIndex(index, length);
    Native.check(Native.set(handle, index, value));
  }

  /** Wrapping unsigned 64-bit sum of every value, computed natively in one call. */
  public long sum() {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(JAVA_LONG);
      Native.check(Native.sum(handle, out));
      return out.get(JAVA_LONG, 0);
    }
  }

  /** Wrapping unsigned 64-bit sum of values [from, to), computed natively in one call. */
  public long sum(long from, long to) {
    Objects.checkFromToIndex(from, to, length);
    long n = to - from;
    if (n <= Native.MAX_CRITICAL_VALUES) {
      long[] out = new long[1];
      Native.check(Native.sumRangeShort(handle, from, n, MemorySegment.ofArray(out)));
      return out[0];
    }
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(JAVA_LONG);
      Native.check(Native.sumRange(handle, from, n, out));
      return out.get(JAVA_LONG, 0);
    }
  }

  /** Decodes values [from, from + count) into dst[offset, offset + count). */
  public void decode(long from, long[] dst, int offset, int count) {
    Objects.checkFromIndexSize(offset, count, Objects.requireNonNull(dst, "dst").length);
    decode(from, MemorySegment.ofArray(dst).asSlice((long) offset * Long.BYTES, (long) count * Long.BYTES));
  }

  /** Decodes values [from, from + dst.byteSize() / 8) into dst (8-byte aligned, writable, heap or native). */
  public void decode(long from, MemorySegment dst) {
    if (Objects.requireNonNull(dst, "dst").isReadOnly()) throw new IllegalArgumentException("dst is read-only");
    if (dst.byteSize() % Long.BYTES != 0 || dst.address() % Long.BYTES != 0) {
      throw new IllegalArgumentException("dst must be 8-byte aligned and hold whole 64-bit values");
    }
    long count = dst.byteSize() / Long.BYTES;
    Objects.checkFromIndexSize(from, count, length);
    decodeUnchecked(from, count, dst);
  }

  // Decodes in bounded critical calls; the range is checked by the caller (and again natively).
  void decodeUnchecked(long from, long count, MemorySegment dst) {
    for (long done = 0; done < count; done += Native.MAX_CRITICAL_VALUES) {
      long n = Math.min(count - done, Native.MAX_CRITICAL_VALUES);
      Native.check(Native.decode(handle, from + done, n, dst.asSlice(done * Long.BYTES, n * Long.BYTES)));
    }
  }

  /** Every value, decoded into a new long[]. */
  public long[] toArray() {
    return toArray(0, length);
  }

  /** Values [from, to), decoded into a new long[]. */
  public long[] toArray(long from, long to) {
    Objects.checkFromToIndex(from, to, length);
    if (to - from > MAX_JAVA_ARRAY) throw new OutOfMemoryError((to - from) + " values do not fit in a Java array");
    long[] values = new long[(int) (to - from)];
    decodeUnchecked(from, values.length, MemorySegment.ofArray(values));
    return values;
  }

  /** A cursor over every value, decoding batches natively into a reused buffer. */
  public SmartArrayCursor cursor() {
    return cursor(0, length);
  }

  /** A cursor over values [from, to). */
  public SmartArrayCursor cursor(long from, long to) {
    Objects.checkFromToIndex(from, to, length);
    ensureOpen();
    return new SmartArrayCursor(this, from, to);
  }

  /** A spliterator over every value that splits at chunk-aligned batch boundaries. */
  public Spliterator.OfLong spliterator() {
    ensureOpen();
    return new SmartArraySpliterator(this, 0, length);
  }

  /** A sequential stream of every value (call parallel() on it to split by batches). */
  public LongStream stream() {
    return StreamSupport.longStream(spliterator(), false);
  }

  /**
   * A read-only, zero-copy view of the calling thread's replica of an uncompressed array: read it
   * with JAVA_LONG (64 bits) or JAVA_INT (32 bits, unsigned) at index i; valid until the array is freed.
   */
  public MemorySegment asSegment() {
    ensureOpen();
    if (bits != 32 && bits != 64) {
      throw new UnsupportedOperationException(
          "asSegment() needs a 32- or 64-bit array; this one has " + bits + " bits (use cursor() or decode())");
    }
    return packedWords(localReplica()).asSlice(0, length * (bits / Byte.SIZE));
  }

  /** A read-only, zero-copy view of a replica's packed 64-bit words (layout of docs/bit-layout.md). */
  @SuppressWarnings("restricted") // gives the native replica its size and the array's lifetime
  public MemorySegment packedWords(int replica) {
    long[] out = new long[2];
    MemorySegment slots = MemorySegment.ofArray(out);
    Native.check(Native.words(handle, replica(replica), slots.asSlice(0, Long.BYTES), slots.asSlice(Long.BYTES, Long.BYTES)));
    return MemorySegment.ofAddress(out[0]).reinterpret(out[1] * Long.BYTES, arena, null).asReadOnly();
  }

  /**
   * Pages of a replica on each kernel NUMA node (index = node id; at least as many entries as the
   * topology has nodes), as the kernel reports them now.
   */
  public long[] pagesPerNode(int replica) {
    return pageCounts((counts, max) -> Native.pagesPerNode(handle, replica(replica), counts, max));
  }

  /** A native call that writes per-kernel-node page counts into counts[0..max). */
  interface PageCountCall {
    int call(MemorySegment counts, int max);
  }

  // The page counts call writes, up to the last node that holds a page or the topology's node count.
  static long[] pageCounts(PageCountCall call) {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment counts = scratch.allocate(JAVA_LONG, MAX_KERNEL_NODES);
      Native.check(call.call(counts, MAX_KERNEL_NODES));
      long[] all = counts.toArray(JAVA_LONG);
      int used = Topology.nodes();
      for (int node = 0; node < all.length; node++) {
        if (all[node] != 0) used = Math.max(used, node + 1);
      }
      return Arrays.copyOf(all, used);
    }
  }

  /** {@link #pagesPerNode(int)} of every replica. */
  public long[][] pagesPerNode() {
    long[][] result = new long[replicas()][];
    for (int r = 0; r < result.length; r++) result[r] = pagesPerNode(r);
    return result;
  }

  /** The sa_array handle, scoped to this array's lifetime (for the binding's own downcalls). */
  MemorySegment handle() {
    return handle;
  }

  /** The handle for a call the FFM runtime does not guard (InUse), counted in use until release(): close() meanwhile fails. */
  MemorySegment acquire() {
    inUse.enter(handle, FREED);
    return handle;
  }

  /** Ends the use acquire() counted. */
  void release() {
    inUse.exit();
  }

  /** Frees the native array; a no-op when already freed. Arrays made with an arena close with it instead. */
  @Override
  public void close() {
    if (!owned) {
      throw new UnsupportedOperationException("this smart array belongs to an arena and is freed when the arena closes");
    }
    inUse.close(arena, "the smart array", arena::close);
  }

  @Override
  public String toString() {
    String state = handle.scope().isAlive() ? "" : ", freed";
    return "SmartArray[length " + length + ", " + bits + " bits, " + placement + state + "]";
  }
}
