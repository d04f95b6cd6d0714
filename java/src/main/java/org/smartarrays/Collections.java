// Owns the Java surface of the smart collections, thin over the C ABI: group-by (count, sum, min,
// max, exact median), hash join (count or pairs), the sorted Index, and HashMap and HashSet; results
// are SmartArrays or Java arrays.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** Group-by and hash join over smart arrays of unsigned keys; see docs/collections.md. */
public final class Collections {
  private Collections() {}

  /** The aggregates of {@link #groupBy}; codes are the C ABI's sa_aggregate. */
  public enum Aggregate {
    /** Rows per key. */
    COUNT,
    /** Wrapping sum of each key's values. */
    SUM,
    /** Smallest value per key. */
    MIN,
    /** Largest value per key. */
    MAX,
    /** Exact lower median per key: the value at (c - 1) / 2 of its c sorted values. */
    MEDIAN
  }

  /** Two arrays of equal length: distinct keys and their aggregates, or the rows of join pairs. Close both. */
  public record Pair(SmartArray first, SmartArray second) implements AutoCloseable {
    /** Frees both arrays. */
    @Override
    public void close() {
      first.close();
      second.close();
    }
  }

  // Runs a native call with two sa_array outputs and ties both to fresh owners.
  private interface TwoOutputs {
    int make(Arena scratch, MemorySegment first, MemorySegment second);
  }

  private static Pair pair(TwoOutputs call) {
    try (Arena outer = Arena.ofConfined()) {
      MemorySegment second = outer.allocate(ADDRESS);
      SmartArray a = SmartArray.make(null, (scratch, first) -> call.make(scratch, first, second));
      SmartArray b = SmartArray.make(null, (scratch, out) -> {
        out.set(ADDRESS, 0, second.get(ADDRESS, 0));
        return 0;
      });
      return new Pair(a, b);
    }
  }

  /** Values grouped by keys (equal lengths): first = the distinct keys ascending, second = each one's aggregate. */
  public static Pair groupBy(SmartArray keys, SmartArray values, Aggregate aggregate, ArrayOptions options) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(aggregate, "aggregate");
    return pair((scratch, k, v) -> CollectionsNative.groupBy(keys.handle(), values.handle(), aggregate.ordinal(),
                                                             SmartArray.marshal(options, scratch), k, v));
  }

  /** The number of pairs (i, j) with left[i] == right[j]; the hash table is built on the smaller side. */
  public static long hashJoinCount(SmartArray left, SmartArray right, ArrayOptions options) {
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(right, "right");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(JAVA_LONG);
      Native.check(CollectionsNative.joinCount(left.handle(), right.handle(), SmartArray.marshal(options, scratch), out));
      return out.get(JAVA_LONG, 0);
    }
  }

  /** The pairs themselves, sorted by left row then right row: first = left rows, second = right rows. */
  public static Pair hashJoin(SmartArray left, SmartArray right, ArrayOptions options) {
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(right, "right");
    return pair((scratch, l, r) -> CollectionsNative.joinPairs(left.handle(), right.handle(),
                                                               SmartArray.marshal(options, scratch), l, r));
  }

  /** A read-only sorted index of keys[i] -> i; any number of threads may look up at once. Close it. */
  public static final class Index implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment handle;

    /** Indexes keys, its arrays placed as options says (bits must be 0). */
    public Index(SmartArray keys, ArrayOptions options) {
      Objects.requireNonNull(keys, "keys");
      handle = owned(arena, (scratch, out) -> CollectionsNative.indexBuild(keys.handle(), SmartArray.marshal(options, scratch), out),
                     CollectionsNative::indexFree);
    }

    /** Rows indexed. */
    public long size() {
      return CollectionsNative.indexSize(handle);
    }

    /** Bytes of the index's smart arrays. */
    public long memoryBytes() {
      return CollectionsNative.indexMemory(handle);
    }

    /** The number of rows holding each probe key. */
    public long[] lookup(long[] probe) {
      Objects.requireNonNull(probe, "probe");
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment keys = scratch.allocateFrom(JAVA_LONG, probe);
        MemorySegment counts = scratch.allocate(JAVA_LONG, Math.max(probe.length, 1));
        Native.check(CollectionsNative.indexLookup(handle, keys, probe.length, counts, MemorySegment.NULL));
        return counts.asSlice(0, 8L * probe.length).toArray(JAVA_LONG);
      }
    }

    /** The sum of the match counts of probe's keys (an index nested loop join, counted). */
    public long countMatches(SmartArray probe) {
      Objects.requireNonNull(probe, "probe");
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment out = scratch.allocate(JAVA_LONG);
        Native.check(CollectionsNative.indexCount(handle, probe.handle(), out));
        return out.get(JAVA_LONG, 0);
      }
    }

    /** Frees the index; closing again does nothing. */
    @Override
    public void close() {
      if (arena.scope().isAlive()) arena.close();
    }
  }
  // Makes a native collection with a builder taking (scratch, out), tying its free to arena.
  private interface Builder {
    int make(Arena scratch, MemorySegment out);
  }

  @SuppressWarnings("restricted") // attaches the native free to the handle's lifetime
  private static MemorySegment owned(Arena arena, Builder builder, java.util.function.Consumer<MemorySegment> free) {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment out = scratch.allocate(ADDRESS);
      int status = builder.make(scratch, out);
      if (status != 0) {
        arena.close();
        throw Native.failure(status);
      }
      return out.get(ADDRESS, 0).reinterpret(arena, free);
    }
  }

  /** A read-only hash map of unsigned keys to values (keys and values in the fewest bits); any number of threads may probe it. Close it. */
  public static final class HashMap implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment handle;

    /** Maps keys[i] to values[i] (equal lengths; a key given more than once takes its last row's value), placed as options says (bits must be 0). */
    public HashMap(SmartArray keys, SmartArray values, ArrayOptions options) {
      Objects.requireNonNull(keys, "keys");
      Objects.requireNonNull(values, "values");
      handle = owned(arena, (scratch, out) -> CollectionsNative.mapBuild(keys.handle(), values.handle(),
                                                                         SmartArray.marshal(options, scratch), out),
                     CollectionsNative::mapFree);
    }

    /** Distinct keys. */
    public long size() {
      return CollectionsNative.mapSize(handle);
    }

    /** Bytes of the map's smart arrays. */
    public long memoryBytes() {
      return CollectionsNative.mapMemory(handle);
    }

    /** Each probe key's value, or missing where the key is absent (keys and values are unsigned). */
    public long[] get(long[] probe, long missing) {
      return get(probe, missing, null);
    }

    /** Like {@link #get(long[], long)}, also setting found[k] to whether probe[k] is present (found as long as probe, or null). */
    public long[] get(long[] probe, long missing, boolean[] found) {
      Objects.requireNonNull(probe, "probe");
      if (found != null && found.length != probe.length) {
        throw new IllegalArgumentException("found has " + found.length + " places for " + probe.length + " probe keys");
      }
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment keys = scratch.allocateFrom(JAVA_LONG, probe);
        MemorySegment values = scratch.allocate(JAVA_LONG, Math.max(probe.length, 1));
        MemorySegment mask = found == null ? MemorySegment.NULL : scratch.allocate(JAVA_BYTE, Math.max(probe.length, 1));
        Native.check(CollectionsNative.mapGet(handle, keys, probe.length, missing, values, mask));
        for (int k = 0; found != null && k < probe.length; ++k) found[k] = mask.get(JAVA_BYTE, k) != 0;
        return values.asSlice(0, 8L * probe.length).toArray(JAVA_LONG);
      }
    }

    /** Frees the map; closing again does nothing. */
    @Override
    public void close() {
      if (arena.scope().isAlive()) arena.close();
    }
  }

  /** A read-only hash set of unsigned keys (in the fewest bits); any number of threads may probe it. Close it. */
  public static final class HashSet implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment handle;

    /** The set of keys' values (duplicates count once), placed as options says (bits must be 0). */
    public HashSet(SmartArray keys, ArrayOptions options) {
      Objects.requireNonNull(keys, "keys");
      handle = owned(arena, (scratch, out) -> CollectionsNative.setBuild(keys.handle(), SmartArray.marshal(options, scratch), out),
                     CollectionsNative::setFree);
    }

    /** Distinct keys. */
    public long size() {
      return CollectionsNative.setSize(handle);
    }

    /** Bytes of the set's smart arrays. */
    public long memoryBytes() {
      return CollectionsNative.setMemory(handle);
    }

    /** Whether each probe key is in the set. */
    public boolean[] contains(long[] probe) {
      Objects.requireNonNull(probe, "probe");
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment keys = scratch.allocateFrom(JAVA_LONG, probe);
        MemorySegment out = scratch.allocate(JAVA_BYTE, Math.max(probe.length, 1));
        Native.check(CollectionsNative.setContains(handle, keys, probe.length, out));
        boolean[] result = new boolean[probe.length];
        for (int k = 0; k < probe.length; ++k) result[k] = out.get(JAVA_BYTE, k) != 0;
        return result;
      }
    }

    /** How many of probe's values are in the set (a semi-join, counted). */
    public long countContained(SmartArray probe) {
      Objects.requireNonNull(probe, "probe");
      try (Arena scratch = Arena.ofConfined()) {
        MemorySegment out = scratch.allocate(JAVA_LONG);
        Native.check(CollectionsNative.setCount(handle, probe.handle(), out));
        return out.get(JAVA_LONG, 0);
      }
    }

    /** Frees the set; closing again does nothing. */
    @Override
    public void close() {
      if (arena.scope().isAlive()) arena.close();
    }
  }
}
