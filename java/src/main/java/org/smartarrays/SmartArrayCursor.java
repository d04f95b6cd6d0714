// Owns sequential reading of a smart array from Java (the paper's SmartArrayIterator): the C++ core
// decodes a batch of whole chunks into a small reused off-heap buffer in one downcall, and Java
// reads the buffer, so a scan costs one boundary crossing per batch, not per value. Like the C++
// iterator, it reads 64-bit arrays in place (zero copy through sa_array_words).
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.PrimitiveIterator;
import java.util.function.LongConsumer;

/**
 * A forward cursor over a range of a smart array that decodes batches natively into a reused
 * off-heap buffer (a 64-bit array needs no decoding and is read in place, from the replica of the
 * thread that made the cursor): read it a value at a time (nextLong) or a batch at a time
 * (nextBatch, the fast way to scan). Used by one thread at a time. Values already decoded stay
 * readable after the array is freed; reading further then throws {@link IllegalStateException}.
 */
public final class SmartArrayCursor implements PrimitiveIterator.OfLong {
  /** Values decoded per downcall: 8 KiB, so the buffer stays in the L1 cache. */
  static final int BATCH = 1024;
  private static final long CHUNK_MASK = -64L;
  private static final MemorySegment EMPTY = MemorySegment.NULL.asReadOnly();

  private final SmartArray array;
  private final MemorySegment handle;
  private final long arrayLength;
  // 64-bit values need no decoding: the cursor then reads the calling thread's replica in place.
  private final boolean inPlace;
  private MemorySegment buffer;
  private long next;
  private long end;
  private long bufferStart;
  private long bufferEnd;

  SmartArrayCursor(SmartArray array, long from, long to) {
    this.array = array;
    this.handle = array.handle();
    this.arrayLength = array.length();
    this.inPlace = array.bits() == Long.SIZE;
    this.buffer = inPlace ? array.asSegment() : null;
    this.next = from;
    this.end = to;
    this.bufferStart = from;
    this.bufferEnd = from;
  }

  /** True while values remain before the end of the range. */
  @Override
  public boolean hasNext() {
    return next < end;
  }

  /** The next value (unsigned 64-bit); decodes the next batch when the buffer is used up. */
  @Override
  public long nextLong() {
    if (next >= bufferEnd) fill();
    return buffer.getAtIndex(JAVA_LONG, next++ - bufferStart);
  }

  /**
   * The values from position() to the end of the current batch, decoding the next batch natively
   * first when none are left: a read-only view of the reused buffer, valid until the cursor decodes
   * again; empty at the end of the range. A counted loop over it compiles to tight code, which a
   * value-at-a-time loop over nextLong() does not.
   */
  public MemorySegment nextBatch() {
    long i = next;
    if (i >= end) return EMPTY;
    if (i >= bufferEnd) fill();
    next = bufferEnd;
    return buffer.asSlice((i - bufferStart) * Long.BYTES, (bufferEnd - i) * Long.BYTES).asReadOnly();
  }

  /** Passes every remaining value to action, a batch at a time. */
  @Override
  public void forEachRemaining(LongConsumer action) {
    Objects.requireNonNull(action, "action");
    for (MemorySegment batch = nextBatch(); batch.byteSize() > 0; batch = nextBatch()) {
      long n = batch.byteSize() / Long.BYTES;
      for (long k = 0; k < n; k++) action.accept(batch.getAtIndex(JAVA_LONG, k));
    }
  }

  /** Index of the value nextLong() returns next. */
  public long position() {
    return next;
  }

  /** One past the last index of the range. */
  public long end() {
    return end;
  }

  /** Moves to index (0..end()), keeping the end; the paper's reset(). */
  public void seek(long index) {
    Objects.checkFromToIndex(index, end, arrayLength);
    restrict(index, end);
  }

  /** The array this cursor reads. */
  public SmartArray array() {
    return array;
  }

  // Narrows the cursor to [from, to), keeping decoded values that are still inside it.
  void restrict(long from, long to) {
    next = from;
    end = to;
    if (from < bufferStart || from >= bufferEnd) {
      bufferStart = from;
      bufferEnd = from;
    }
    bufferEnd = Math.min(bufferEnd, to);
  }

  // Makes the next batch current: up to BATCH values decoded natively, ending on a chunk boundary
  // (or the range's end); or, in place, the rest of the range.
  private void fill() {
    if (next >= end) throw new NoSuchElementException("cursor at " + next + " is past the end of its range");
    if (inPlace) {
      bufferStart = 0;
      bufferEnd = end;
      return;
    }
    if (buffer == null) buffer = Arena.ofAuto().allocate(JAVA_LONG, BATCH);
    long stop = Math.min(end, (next & CHUNK_MASK) + BATCH);
    Native.check(Native.decode(handle, next, stop - next, buffer));
    bufferStart = next;
    bufferEnd = stop;
  }
}
