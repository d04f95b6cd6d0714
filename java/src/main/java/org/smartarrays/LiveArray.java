// Owns the Java handle of a live array (the C ABI's sa_live): an array re-laid out in the C++ core
// while other threads read it. This class only marshals; pinning hands out read-only SmartArrays.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * An array that can change placement and bit width while other threads read it (live re-layout).
 * Readers {@link #pin()} the current version: a read-only {@link SmartArray} that stays valid and
 * unchanged, whatever relayouts follow, until they close it. {@link #relayout} builds the values in the
 * new layout in parallel while readers go on, then switches atomically; a version's memory is freed
 * when its last pinned array is closed. Every method is thread-safe.
 *
 * <p>A live array owns its native memory: free it with {@link #close()} (pinned arrays stay valid);
 * any use afterwards throws {@link IllegalStateException}.
 */
public final class LiveArray implements AutoCloseable {
  private final MemorySegment handle;
  private final Arena arena;

  private LiveArray(MemorySegment handle, Arena arena) {
    this.handle = handle;
    this.arena = arena;
  }

  /** A live array whose version 0 holds values as unsigned 64-bit integers laid out by options. */
  public static LiveArray fromLongs(long[] values, ArrayOptions options) {
    Objects.requireNonNull(values, "values");
    return create((scratch, out) -> Native.fromU64(scratch.allocateFrom(JAVA_LONG, values), values.length,
        SmartArray.marshal(options, scratch), out));
  }

  /** A live array whose version 0 holds values as unsigned 32-bit integers laid out by options. */
  public static LiveArray fromInts(int[] values, ArrayOptions options) {
    Objects.requireNonNull(values, "values");
    return create((scratch, out) -> Native.fromU32(scratch.allocateFrom(JAVA_INT, values), values.length,
        SmartArray.marshal(options, scratch), out));
  }

  // Makes version 0 with maker, hands it to sa_live_create (which takes it over) and ties the live
  // array to a fresh shared arena that close() closes.
  @SuppressWarnings("restricted") // attaches sa_live_free to the handle's lifetime
  private static LiveArray create(SmartArray.Maker maker) {
    MemorySegment pointer;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment array = scratch.allocate(ADDRESS);
      Native.check(maker.make(scratch, array));
      MemorySegment out = scratch.allocate(ADDRESS);
      int status = LiveNative.create(array, out);
      if (status != Native.SA_OK) {
        Native.free(array.get(ADDRESS, 0));  // not taken over: still ours
        Native.check(status);
      }
      pointer = out.get(ADDRESS, 0);
    }
    Arena scope = Arena.ofShared();
    try {
      return new LiveArray(pointer.reinterpret(scope, LiveNative::free), scope);
    } catch (RuntimeException | Error e) {
      LiveNative.free(pointer);
      throw e;
    }
  }

  private void ensureOpen() {
    if (!handle.scope().isAlive()) throw new IllegalStateException("the live array was already freed");
  }

  /** Number of values. */
  public long length() {
    ensureOpen();
    return LiveNative.length(handle);
  }

  /** The current version's number: 0, then one more per relayout. */
  public long version() {
    ensureOpen();
    return LiveNative.version(handle);
  }

  /** The current version as a read-only array (set throws); close it when done reading. */
  public SmartArray pin() {
    ensureOpen();
    return SmartArray.make(null, (scratch, out) -> LiveNative.pin(handle, out));
  }

  /**
   * Re-lays the array out with options (placement, nodes, huge pages, bits; bits 0 = the fewest that
   * hold the values) while readers go on, then switches to it; returns the new version's number.
   * Throws IllegalArgumentException for a value too wide or bad options (the version is then unchanged).
   */
  public long relayout(ArrayOptions options) {
    ensureOpen();
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment version = scratch.allocate(JAVA_LONG);
      Native.check(LiveNative.relayout(handle, SmartArray.marshal(options, scratch), version));
      return version.get(JAVA_LONG, 0);
    }
  }

  /** Frees the live array (pinned arrays stay valid); a no-op when already freed. */
  @Override
  public void close() {
    if (arena.scope().isAlive()) arena.close();
  }
}
