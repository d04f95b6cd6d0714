// Owns the Spliterator.OfLong behind SmartArray.stream(): a cursor over a range that splits in
// halves at chunk boundaries, so each part decodes whole chunks with its own buffer.
package org.smartarrays;

import java.util.Objects;
import java.util.Spliterator;
import java.util.function.LongConsumer;

final class SmartArraySpliterator implements Spliterator.OfLong {
  // Below this many values a split costs more than it spreads.
  private static final long MIN_SPLIT = 4 * SmartArrayCursor.BATCH;
  private static final long CHUNK_MASK = -64L;

  private final SmartArray array;
  private final SmartArrayCursor cursor;

  SmartArraySpliterator(SmartArray array, long from, long to) {
    this.array = array;
    this.cursor = new SmartArrayCursor(array, from, to);
  }

  @Override
  public boolean tryAdvance(LongConsumer action) {
    Objects.requireNonNull(action, "action");
    if (!cursor.hasNext()) return false;
    action.accept(cursor.nextLong());
    return true;
  }

  @Override
  public void forEachRemaining(LongConsumer action) {
    cursor.forEachRemaining(action);
  }

  @Override
  public Spliterator.OfLong trySplit() {
    long lo = cursor.position();
    long hi = cursor.end();
    long mid = ((lo + hi) >>> 1) & CHUNK_MASK;
    if (mid - lo < MIN_SPLIT || hi - mid < MIN_SPLIT) return null;
    SmartArraySpliterator prefix = new SmartArraySpliterator(array, lo, mid);
    cursor.restrict(mid, hi);
    return prefix;
  }

  @Override
  public long estimateSize() {
    return cursor.end() - cursor.position();
  }

  @Override
  public int characteristics() {
    return ORDERED | SIZED | SUBSIZED | NONNULL;
  }
}
