// Owns library-wide facts of the binding: the native version, the machine facts and the bit-width rule.
package org.smartarrays;

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

  /** The fewest bits (1..64) that hold max, read as an unsigned 64-bit value. */
  public static int minBits(long max) {
    return Native.minBits(max);
  }
}
