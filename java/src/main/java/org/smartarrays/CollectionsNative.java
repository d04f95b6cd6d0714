// Owns the downcall handles of the C ABI's collection entry points (sa_group_by, sa_hash_join_*,
// sa_index_*, sa_hash_map_*, sa_hash_set_*). Operators and index builds run parallel loops, so they are ordinary downcalls; the
// size queries are short critical calls.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.smartarrays.Native.CRITICAL;
import static org.smartarrays.Native.ORDINARY;
import static org.smartarrays.Native.bind;
import static org.smartarrays.Native.rethrow;
import static org.smartarrays.Native.status;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

final class CollectionsNative {
  private CollectionsNative() {}

  private static final MethodHandle GROUP_BY =
      bind("sa_group_by", ORDINARY, status(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle JOIN_COUNT = bind("sa_hash_join_count", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle JOIN_PAIRS =
      bind("sa_hash_join_pairs", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle INDEX_BUILD = bind("sa_index_build", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle INDEX_FREE = bind("sa_index_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle INDEX_SIZE = bind("sa_index_size", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle INDEX_MEMORY =
      bind("sa_index_memory_bytes", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle INDEX_LOOKUP =
      bind("sa_index_lookup", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle INDEX_COUNT = bind("sa_index_count_matches", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));

  private static final MethodHandle MAP_BUILD = bind("sa_hash_map_build", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle MAP_FREE = bind("sa_hash_map_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle MAP_SIZE = bind("sa_hash_map_size", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle MAP_MEMORY =
      bind("sa_hash_map_memory_bytes", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle MAP_GET =
      bind("sa_hash_map_get", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle SET_BUILD = bind("sa_hash_set_build", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle SET_FREE = bind("sa_hash_set_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle SET_SIZE = bind("sa_hash_set_size", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle SET_MEMORY =
      bind("sa_hash_set_memory_bytes", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle SET_CONTAINS =
      bind("sa_hash_set_contains", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
  private static final MethodHandle SET_COUNT =
      bind("sa_hash_set_count_contained", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));

  static int groupBy(MemorySegment keys, MemorySegment values, int aggregate, MemorySegment options, MemorySegment outKeys,
                     MemorySegment outValues) {
    try {
      return (int) GROUP_BY.invokeExact(keys, values, aggregate, options, outKeys, outValues);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int joinCount(MemorySegment left, MemorySegment right, MemorySegment options, MemorySegment out) {
    try {
      return (int) JOIN_COUNT.invokeExact(left, right, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int joinPairs(MemorySegment left, MemorySegment right, MemorySegment options, MemorySegment outLeft,
                       MemorySegment outRight) {
    try {
      return (int) JOIN_PAIRS.invokeExact(left, right, options, outLeft, outRight);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int indexBuild(MemorySegment keys, MemorySegment options, MemorySegment out) {
    try {
      return (int) INDEX_BUILD.invokeExact(keys, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void indexFree(MemorySegment index) {
    try {
      INDEX_FREE.invokeExact(index);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long indexSize(MemorySegment index) {
    try {
      return (long) INDEX_SIZE.invokeExact(index);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long indexMemory(MemorySegment index) {
    try {
      return (long) INDEX_MEMORY.invokeExact(index);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int indexLookup(MemorySegment index, MemorySegment probe, long n, MemorySegment counts, MemorySegment first) {
    try {
      return (int) INDEX_LOOKUP.invokeExact(index, probe, n, counts, first);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int indexCount(MemorySegment index, MemorySegment probe, MemorySegment out) {
    try {
      return (int) INDEX_COUNT.invokeExact(index, probe, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
  static int mapBuild(MemorySegment keys, MemorySegment values, MemorySegment options, MemorySegment out) {
    try {
      return (int) MAP_BUILD.invokeExact(keys, values, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void mapFree(MemorySegment map) {
    try {
      MAP_FREE.invokeExact(map);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long mapSize(MemorySegment map) {
    try {
      return (long) MAP_SIZE.invokeExact(map);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long mapMemory(MemorySegment map) {
    try {
      return (long) MAP_MEMORY.invokeExact(map);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int mapGet(MemorySegment map, MemorySegment probe, long n, long missing, MemorySegment out, MemorySegment found) {
    try {
      return (int) MAP_GET.invokeExact(map, probe, n, missing, out, found);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int setBuild(MemorySegment keys, MemorySegment options, MemorySegment out) {
    try {
      return (int) SET_BUILD.invokeExact(keys, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void setFree(MemorySegment set) {
    try {
      SET_FREE.invokeExact(set);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long setSize(MemorySegment set) {
    try {
      return (long) SET_SIZE.invokeExact(set);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long setMemory(MemorySegment set) {
    try {
      return (long) SET_MEMORY.invokeExact(set);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int setContains(MemorySegment set, MemorySegment probe, long n, MemorySegment out) {
    try {
      return (int) SET_CONTAINS.invokeExact(set, probe, n, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int setCount(MemorySegment set, MemorySegment probe, MemorySegment out) {
    try {
      return (int) SET_COUNT.invokeExact(set, probe, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
