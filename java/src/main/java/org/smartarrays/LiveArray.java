// Owns the Java handle of a live array (the C ABI's sa_live): an array re-laid out in the C++ core
// while other threads read it. This class only marshals; pinning hands out read-only SmartArrays.
package org.smartarrays;

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
    return ofNew(SmartArray.fromLongs(values, options));
  }

  /** A live array whose version 0 holds values as unsigned 32-bit integers laid out by options. */
  public static LiveArray fromInts(int[] values, ArrayOptions options) {
    return ofNew(SmartArray.fromInts(values, options));
  }

  /**
   * A live array whose version 0 is array itself, not copied: the live array takes the native array
   * over and array is closed (any use afterwards throws IllegalStateException), as sa_live_create frees
   * the caller's handle. Throws IllegalArgumentException, leaving array as it was, for a read-only array
   * (a store's, or a snapshot from {@link #pin()}), one with unsynced writes under
   * {@link WriteMode#PRIMARY} (sync() it first) or one that belongs to an arena. No other thread may use
   * array meanwhile, as for {@link SmartArray#close()}.
   */
  public static LiveArray of(SmartArray array) {
    Objects.requireNonNull(array, "array");
    return adopt(array.handOver(LiveNative::create));
  }

  // of(array) for an array made for it, which is freed should it not be taken over.
  private static LiveArray ofNew(SmartArray array) {
    try {
      return of(array);
    } catch (RuntimeException | Error e) {
      array.close();
      throw e;
    }
  }

  // Ties a new sa_live pointer to a fresh shared arena that close() closes.
  @SuppressWarnings("restricted") // attaches sa_live_free to the handle's lifetime
  private static LiveArray adopt(MemorySegment pointer) {
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
