// Owns the Java form of sa_hints: what a program promises about an array's accesses, read by the
// adaptive choice (Placement.AUTO, ArrayOptions.withAutoBits()).
package org.smartarrays;

import java.util.Objects;

/**
 * Access hints: read-only, pattern, expected passes (reads per element) and reading threads.
 *
 * @param readOnly never written after it is built (replicas allowed)
 * @param pattern how it is read
 * @param passes expected reads per element over its life, finite and > 0
 * @param threads threads that read it, 0 = the default pool's
 */
public record AccessHints(boolean readOnly, AccessPattern pattern, double passes, int threads) {
  /** Checks the hints: IllegalArgumentException naming the bad one. */
  public AccessHints {
    Objects.requireNonNull(pattern, "pattern");
    if (!(passes > 0) || Double.isInfinite(passes)) {
      throw new IllegalArgumentException("passes must be a finite number > 0, got " + passes);
    }
    if (threads < 0 || threads > 4096) {
      throw new IllegalArgumentException("threads must be 0..4096, got " + threads);
    }
  }

  /** The defaults: not read-only, sequential, one pass, the default pool's threads. */
  public static AccessHints defaults() {
    return new AccessHints(false, AccessPattern.SEQUENTIAL, 1, 0);
  }
}
