// Owns placed buffers (sa_buffer_*): plain native memory placed like a smart array (Shoal's
// shl__malloc), handed to Java as a MemorySegment, e.g. the scores of a Java-driven PageRank
// (Graph.pagerankStep). The memory is the core's: page aligned, zero-filled, with huge pages.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.smartarrays.Native.CRITICAL;
import static org.smartarrays.Native.ORDINARY;
import static org.smartarrays.Native.bind;
import static org.smartarrays.Native.rethrow;
import static org.smartarrays.Native.status;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** Native memory placed as an ArrayOptions says (one copy: not replicated); free it with close(). */
public final class PlacedBuffer implements AutoCloseable {
  private static final MethodHandle ALLOC = bind("sa_buffer_alloc", ORDINARY, status(JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle DATA = bind("sa_buffer_data", CRITICAL, FunctionDescriptor.of(ADDRESS, ADDRESS));
  private static final MethodHandle HUGE_PAGE_BYTES =
      bind("sa_buffer_huge_page_bytes", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle PAGES_PER_NODE =
      bind("sa_buffer_pages_per_node", ORDINARY, status(ADDRESS, ADDRESS, JAVA_INT));
  private static final MethodHandle FREE = bind("sa_buffer_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));

  private final Arena arena;
  private final MemorySegment handle;
  private final MemorySegment segment;

  private PlacedBuffer(Arena arena, MemorySegment handle, MemorySegment segment) {
    this.arena = arena;
    this.handle = handle;
    this.segment = segment;
  }

  /**
   * bytes (> 0) of page-aligned, zero-filled native memory placed as options say (placement, node set and
   * huge pages; bits do not apply). Throws IllegalArgumentException for 0 bytes or a replicated placement,
   * and as an array would for bad nodes or too little memory (SmartArrayException OUT_OF_MEMORY).
   */
  @SuppressWarnings("restricted") // the segment spans the buffer the core allocated, freed with the arena
  public static PlacedBuffer allocate(long bytes, ArrayOptions options) {
    Native.requireNonNegative(bytes, "bytes");
    MemorySegment pointer;
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      int status;
      try {
        status = (int) ALLOC.invokeExact(bytes, SmartArray.marshal(options, scratch), out);
      } catch (Throwable t) {
        throw rethrow(t);
      }
      Native.check(status);
      pointer = out.get(ADDRESS, 0);
    }
    Arena arena = Arena.ofShared();
    MemorySegment handle;
    MemorySegment data;
    try {
      handle = pointer.reinterpret(arena, PlacedBuffer::free);
    } catch (RuntimeException | Error e) {
      free(pointer);
      throw e;
    }
    try {
      data = ((MemorySegment) DATA.invokeExact(handle)).reinterpret(bytes, arena, null);
    } catch (Throwable t) {
      arena.close();
      throw rethrow(t);
    }
    return new PlacedBuffer(arena, handle, data);
  }

  /** The memory: bytes() bytes, readable and writable from any thread until close(). */
  public MemorySegment segment() {
    return segment;
  }

  /** The size in bytes, as asked. */
  public long bytes() {
    return segment.byteSize();
  }

  /** Bytes of the buffer the kernel backs with huge pages now. */
  public long hugePageBytes() {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(JAVA_LONG);
      int status;
      try {
        status = (int) HUGE_PAGE_BYTES.invokeExact(handle, out);
      } catch (Throwable t) {
        throw rethrow(t);
      }
      Native.check(status);
      return out.get(JAVA_LONG, 0);
    }
  }

  /** Pages of the buffer on each kernel node (index = kernel node id), as the kernel reports them. */
  public long[] pagesPerNode() {
    return SmartArray.pageCounts((counts, max) -> {
      try {
        return (int) PAGES_PER_NODE.invokeExact(handle, counts, max);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    });
  }

  /** Frees the memory; segments from segment() can no longer be used. A no-op when already closed. */
  @Override
  public void close() {
    if (arena.scope().isAlive()) arena.close();
  }

  private static void free(MemorySegment pointer) {
    try {
      FREE.invokeExact(pointer);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
