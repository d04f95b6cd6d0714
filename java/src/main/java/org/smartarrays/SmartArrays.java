// Owns library-wide facts of the binding: the native version, the machine facts and the bit-width rule;
// and the C++-driven aggregation (sa_array_aggregate), timed against the Java-driven one in one process.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/** Facts about the native smartarrays library. */
public final class SmartArrays {
  private SmartArrays() {}

  /** The native library's version, "MAJOR.MINOR.PATCH". */
  public static String version() {
    return Native.version();
  }

  /** Where the native library was loaded from: a file and why it was chosen. */
  public static String libraryLocation() {
    Native.version();
    return NativeLibrary.loadedFrom();
  }

  /**
   * The machine facts results depend on (CPU, nodes, memory, huge-page and NUMA-balancing settings, load
   * average, kernel, codec instruction set, library version) as one JSON object of schema
   * smartarrays.machine/1, the same object every tool of the project reports.
   */
  public static String machineFactsJson() {
    return Native.machineFactsJson();
  }

  private static final MethodHandle AGGREGATE =
      Native.bind("sa_array_aggregate", Native.ORDINARY, Native.status(ADDRESS, ADDRESS, ADDRESS));

  /**
   * The paper's aggregation (section 5.1) run by the C++ runtime: the wrapping sum over i of a1[i] + a2[i].
   * Throws IllegalArgumentException when the lengths differ.
   */
  public static long aggregate(SmartArray a1, SmartArray a2) {
    Objects.requireNonNull(a1, "a1");
    Objects.requireNonNull(a2, "a2");
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment sum = scratch.allocate(JAVA_LONG);
      int status;
      try {
        status = (int) AGGREGATE.invokeExact(a1.handle(), a2.handle(), sum);
      } catch (Throwable t) {
        throw Native.rethrow(t);
      }
      Native.check(status);
      return sum.get(JAVA_LONG, 0);
    }
  }

  /** The fewest bits (1..64) that hold max, read as an unsigned 64-bit value. */
  public static int minBits(long max) {
    return Native.minBits(max);
  }
}
