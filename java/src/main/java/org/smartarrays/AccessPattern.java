// Owns the Java names of the C ABI's sa_access_pattern values.
package org.smartarrays;

/** How an array will be read (an access hint). */
public enum AccessPattern {
  /** Scans in index order. */
  SEQUENTIAL,
  /** Reads at unpredictable indices. */
  RANDOM,
  /** Read through a parallel loop's index. */
  INDEXED;

  int code() {
    return ordinal();
  }
}
